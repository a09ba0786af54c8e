// `obflow run [step|all]`: run the collections with newman in one process over mTLS, chaining the environment.

import type { CommandModule } from 'yargs';
import type { CommandState } from '../context.js';
import { loadCommandConfig } from '../context.js';

export const runCommand = (state: CommandState): CommandModule => ({
  command: 'run [step]',
  describe: 'Run the collections with newman, presenting the transport certificate (all steps, or one)',
  builder: (yargs) =>
    yargs
      .positional('step', { type: 'string', default: 'all', describe: 'all, or one step name (see docs/collections.md)' })
      .option('profile', { type: 'string', describe: 'Sandbox client profile' })
      .option('consent', { type: 'string', choices: ['auto', 'headless', 'browser', 'manual'], describe: 'How the PSU consents (manual: open the consent URL yourself, paste the redirect back)' })
      .option('psu-user', { type: 'string', describe: 'Test user who consents (sandbox: alex, sam or jo)' })
      .option('consent-timeout', { type: 'number', describe: 'Seconds the PSU has to finish browser consent (default 300)' })
      .option('response-type', { type: 'string', choices: ['code id_token', 'code'], describe: 'OIDC response type of the PSU consent' })
      .option('max-pages', { type: 'number', describe: 'Guard against endless transaction paging (pages per account)' })
      .option('out-collections', { type: 'string', describe: 'Where the collections are (default: collections)' })
      .option('out-reports', { type: 'string', describe: 'Where the JUnit reports go (default .obflow/reports)' })
      .option('insecure', { type: 'boolean', describe: "Do not verify the bank's server certificate (self-signed sandboxes only)" })
      .example('$0 run all', 'every step, in order')
      .example('$0 run all --consent manual', 'consent in your own browser, then paste the redirect address')
      .example('$0 run all --consent browser', "the bank's consent page in Chromium: a consent script, or you in the window")
      .example('$0 run accounts', 'one step, reading the earlier steps\' state from the environment'),
  handler: async (argv) => {
    const config = await loadCommandConfig(state, argv);
    const { openCommandSession } = await import('../session.js');
    const { flowInputs, readEnvironmentFile, runStage, saveEnvironment } = await import('../../pipeline/stages.js');
    const session = await openCommandSession(state, config, { insecure: argv.insecure === true });
    try {
      const environment = await readEnvironmentFile(config, session.target);
      // newman's cli reporter writes to the process stdout itself: only for people, never with --json/--quiet.
      const reporters: ('cli' | 'junit')[] = state.output.json || state.output.quiet ? ['junit'] : ['cli', 'junit'];
      // Flags given for this run win over what `obflow environment` saved (config values were applied there).
      const inputs = flowInputs(session);
      const given = (flag: string, value: string | undefined) => (argv[flag] === undefined ? undefined : value);
      const overrides = {
        consent_mode: given('consent', inputs.consent_mode),
        psu_login_hint: given('psu-user', inputs.psu_login_hint),
        response_type: given('response-type', inputs.response_type),
        max_pages: given('max-pages', inputs.max_pages),
      };
      const result = await runStage(session, { environment, overrides, select: String(argv.step ?? 'all'), reporters, progress: (line) => state.output.line(line) });
      // The chained environment carries the state for the next `obflow run <step>` (state folder, mode 0600).
      await saveEnvironment(session, result.environment);
      const { reportRun } = await import('../report.js');
      reportRun(state, result);
    } finally {
      await session.close();
    }
  },
});
