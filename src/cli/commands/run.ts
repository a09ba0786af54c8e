// `obflow run [step|all]`: run the collections with newman in one process over mTLS, chaining the environment.

import type { CommandModule } from 'yargs';
import { API_FAMILIES_OPTION, FAMILY_LIST, stepNamesOf } from '../../api-families.js';
import { FAPI_OPTION, RESPONSE_TYPE_OPTION } from '../../fapi-profile.js';
import { DEFAULT_REPORTERS, REPORTER_NAMES, parseReporterNames } from '../../run/reporters/names.js';
import type { CommandState } from '../context.js';
import { liveLineOption, openCommand, sessionSeams } from '../context.js';
import { API_VERSION_OPTION } from '../../generate/api-versions.js';

export const runCommand = (state: CommandState): CommandModule => ({
  command: 'run [step]',
  describe: 'Run the collections with newman, presenting the transport certificate (all steps, or one)',
  builder: (yargs) =>
    yargs
      .positional('step', {
        type: 'string',
        default: 'all',
        describe: `all, or one step, in the order they run: ${stepNamesOf(FAMILY_LIST).join(', ')} (docs/collections.md); a step of several families (--apis) runs in each`,
      })
      .option('profile', { type: 'string', describe: 'Sandbox client profile' })
      .option('consent', {
        type: 'string',
        choices: ['auto', 'headless', 'browser', 'manual'],
        describe: 'How the PSU consents (manual: open the consent URL yourself, paste the redirect back)',
      })
      .option('psu-user', { type: 'string', describe: 'Test user who consents (sandbox: alex, sam or jo)' })
      .option('consent-timeout', { type: 'number', describe: 'Seconds the PSU has to finish browser consent (default 300)' })
      .option('response-type', RESPONSE_TYPE_OPTION)
      .option('fapi', FAPI_OPTION)
      .option('api-version', API_VERSION_OPTION)
      .option('apis', API_FAMILIES_OPTION)
      .option('max-pages', { type: 'number', describe: 'Guard against endless transaction paging (pages per account)' })
      .option('out-collections', { type: 'string', describe: 'Where the collections are (default: collections)' })
      .option('out-reports', { type: 'string', describe: 'Where the reports go (JUnit, JSON; default .obflow/reports)' })
      .option('reporters', {
        type: 'string',
        describe: `Comma-separated, from ${REPORTER_NAMES.join(', ')} (default ${DEFAULT_REPORTERS.join(',')})`,
      })
      .option('skips', {
        type: 'boolean',
        describe: 'A step that did not run (skipped, with its reason) leaves the run passing; --no-skips fails it (ERR_RUN_SKIPPED)',
      })
      .option('verbose', { type: 'boolean', describe: 'Every request and check, not only a line per step' })
      .option('insecure', { type: 'boolean', describe: "Do not verify the bank's server certificate (self-signed sandboxes only)" })
      .example('$0 run all', 'every step, in order')
      .example('$0 run all --consent manual', 'consent in your own browser, then paste the redirect address')
      .example('$0 run all --reporters cli,junit,json', 'also write the run as JSON (reports/obflow-run.json)')
      .example('$0 run all --consent browser', "the bank's consent page in Chromium: a consent script, or you in the window")
      .example('$0 run all --api-version 3.1,4.0', 'both versions of the bank, a consent each, then side by side')
      .example('$0 run all --no-skips', 'CI where every step must run: a skipped step fails the run')
      .example('$0 run all --apis payments,funds', 'a signed, idempotent domestic payment, then confirmation of funds')
      .example('$0 run accounts', "one step, reading the earlier steps' state from the environment"),
  handler: async (argv) => {
    const { core, config, overrides } = await openCommand(state, argv);
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      // The progress lines are for people, never with --json/--quiet.
      const asked = argv.reporters === undefined ? DEFAULT_REPORTERS : parseReporterNames(argv.reporters as string | string[]);
      const reporters = state.output.json || state.output.quiet ? asked.filter((name) => name !== 'cli') : asked;
      // `--api-version 3.1,4.0`: a leg per version (a consent each, reports in <reports>/v<version>), then the two side by
      // side (src/pipeline/legs.ts). The flow inputs the flags gave win over the saved environment's (run-plan.ts).
      const verdict = await core.runLegsStage(session, {
        versions: core.legVersions(config, overrides),
        run: {
          select: String(argv.step ?? 'all'),
          reporters,
          progress: (line) => state.output.line(line),
          ...(argv.verbose === true ? { verbose: true } : {}),
          ...liveLineOption(state, core),
        },
        allowSkips: config.flow.allowSkips,
        progress: { begin: (leg) => (leg.label === '' ? undefined : state.output.line(leg.label)) },
      });
      (await import('../report.js')).renderVerdict(state, verdict);
    } finally {
      await session.close();
    }
  },
});
