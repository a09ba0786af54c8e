// `obflow workspace`: the ready-made folder (and zip) for people who are not developers — guide, collections,
// environment, certificates, one-click run, and the HTML report of the run that made it (src/workspace/).

import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { openCommand, sessionSeams } from '../context.js';
import { assertOneVersion } from '../../generate/api-versions.js';

export const workspaceCommand = defineCommand({
  command: 'workspace',
  describe: 'Write a ready-made workspace: guide (index.html), collections, environment, certificates, run.sh/run.cmd, report',
  options: [
    {
      out: { type: 'string', describe: 'The workspace folder (default <state-dir>/workspace/<target>-<profile>)' },
      zip: { type: 'string', describe: 'Also write the workspace as this zip file' },
      'include-secrets': {
        type: 'boolean',
        default: false,
        describe: 'Put the transport key and client secret in (folder 0700, files 0600); without it the workspace holds no secret',
      },
      force: { type: 'boolean', default: false, describe: 'Replace an existing workspace folder or zip' },
      run: {
        type: 'boolean',
        default: true,
        describe: 'Run the flow first and put its HTML report in reports/ (--no-run skips it)',
      },
    },
    'api-version',
    'apis',
    'profile',
    'insecure',
  ],
  examples: [
    ['$0 workspace', 'after register and environment: the folder, with no secrets, and the report of a run'],
    ['$0 workspace --zip bank-workspace.zip', 'also as a zip to hand over'],
    ['$0 workspace --include-secrets --out ~/my-workspace', 'a workspace that runs as it is (keep it to yourself)'],
  ],
  handler: async (argv, state) => {
    const { core, config, overrides } = await openCommand(state, argv);
    assertOneVersion(overrides.apiVersions, 'workspace');
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      const includeSecrets = argv['include-secrets'] === true;
      const outcome = await core.makeWorkspace(session, {
        ...(typeof argv.out === 'string' ? { out: resolve(state.io.cwd, argv.out) } : {}),
        ...(typeof argv.zip === 'string' ? { zip: resolve(state.io.cwd, argv.zip) } : {}),
        includeSecrets,
        force: argv.force === true,
        run: argv.run !== false,
        now: session.now(),
        cwd: state.io.cwd,
      });
      state.output.result({
        dir: outcome.dir,
        zip: outcome.zip,
        includesSecrets: includeSecrets,
        files: outcome.files.map((file) => file.path),
        passed: outcome.run?.passed,
      });
      state.output.line(
        `wrote ${outcome.dir ?? ''} (${outcome.files.length} files; open index.html)${outcome.zip !== undefined ? ` and ${outcome.zip}` : ''}`,
      );
      if (includeSecrets)
        state.output.line(
          'warning: this workspace holds the transport private key, the client secret and (for private_key_jwt or signed request objects) the signing key (mode 0600): keep it to yourself',
        );
      if (outcome.run !== undefined) (await import('../report.js')).reportRun(state, outcome.run);
    } finally {
      await session.close();
    }
  },
});
