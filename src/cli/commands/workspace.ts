// `obflow workspace`: the ready-made folder (and zip) for people who are not developers — guide, collections,
// environment, certificates, one-click run, and the HTML report of the run that made it (src/workspace/).

import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { API_FAMILIES_OPTION } from '../../api-families.js';
import type { CommandState } from '../context.js';
import { openCommand, sessionSeams } from '../context.js';
import { API_VERSION_OPTION, assertOneVersion } from '../../generate/api-versions.js';

export const workspaceCommand = (state: CommandState): CommandModule => ({
  command: 'workspace',
  describe: 'Write a ready-made workspace: guide (index.html), collections, environment, certificates, run.sh/run.cmd, report',
  builder: (yargs) =>
    yargs
      .option('out', { type: 'string', describe: 'The workspace folder (default <state-dir>/workspace/<target>-<profile>)' })
      .option('zip', { type: 'string', describe: 'Also write the workspace as this zip file' })
      .option('include-secrets', {
        type: 'boolean',
        default: false,
        describe: 'Put the transport key and client secret in (folder 0700, files 0600); without it the workspace holds no secret',
      })
      .option('force', { type: 'boolean', default: false, describe: 'Replace an existing workspace folder or zip' })
      .option('run', {
        type: 'boolean',
        default: true,
        describe: 'Run the flow first and put its HTML report in reports/ (--no-run skips it)',
      })
      .option('api-version', API_VERSION_OPTION)
      .option('apis', {
        ...API_FAMILIES_OPTION,
        describe: 'The API family whose flow the workspace holds (one: accounts, payments or funds)',
      })
      .option('profile', { type: 'string', describe: 'Sandbox client profile' })
      .option('insecure', {
        type: 'boolean',
        describe: "Do not verify the bank's server certificate during the run (self-signed sandboxes only)",
      })
      .example('$0 workspace', 'after register and environment: the folder, with no secrets, and the report of a run')
      .example('$0 workspace --zip bank-workspace.zip', 'also as a zip to hand over')
      .example('$0 workspace --include-secrets --out ~/my-workspace', 'a workspace that runs as it is (keep it to yourself)'),
  handler: async (argv) => {
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
