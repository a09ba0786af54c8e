// `obflow run [step|all]`: run the collections with newman in one process over mTLS, chaining the environment.

import { FAMILY_LIST, stepNamesOf } from '../../api-families.js';
import { DEFAULT_REPORTERS, REPORTER_NAMES, parseReporterNames } from '../../run/reporters/names.js';
import { defineCommand } from '../command.js';
import { liveLineOption, openCommand, sessionSeams } from '../context.js';

export const runCommand = defineCommand({
  command: 'run [step]',
  describe: 'Run the collections with newman, presenting the transport certificate (all steps, or one)',
  positionals: {
    step: {
      type: 'string',
      default: 'all',
      describe: `all, or one step, in the order they run: ${stepNamesOf(FAMILY_LIST).join(', ')} (docs/collections.md); a step of several families (--apis) runs in each`,
    },
  },
  options: [
    'profile',
    {
      consent: {
        type: 'string',
        choices: ['auto', 'headless', 'browser', 'manual'],
        describe: 'How the PSU consents (manual: open the consent URL yourself, paste the redirect back)',
      },
    },
    'psu-user',
    { 'consent-timeout': { type: 'number', describe: 'Seconds the PSU has to finish browser consent (default 300)' } },
    'response-type',
    'fapi',
    'api-version',
    'apis',
    { 'max-pages': { type: 'number', describe: 'Guard against endless transaction paging (pages per account)' } },
    'out-collections',
    {
      'out-reports': { type: 'string', describe: 'Where the reports go (JUnit, JSON; default .obflow/reports)' },
      reporters: {
        type: 'string',
        describe: `Comma-separated, from ${REPORTER_NAMES.join(', ')} (default ${DEFAULT_REPORTERS.join(',')})`,
      },
      skips: {
        type: 'boolean',
        describe: 'A step that did not run (skipped, with its reason) leaves the run passing; --no-skips fails it (ERR_RUN_SKIPPED)',
      },
      verbose: { type: 'boolean', describe: 'Every request and check, not only a line per step' },
    },
    'insecure',
  ],
  examples: [
    ['$0 run all', 'every step, in order'],
    ['$0 run all --consent manual', 'consent in your own browser, then paste the redirect address'],
    ['$0 run all --reporters cli,junit,json', 'also write the run as JSON (reports/obflow-run.json)'],
    ['$0 run all --consent browser', "the bank's consent page in Chromium: a consent script, or you in the window"],
    ['$0 run all --api-version 3.1,4.0', 'both versions of the bank, a consent each, then side by side'],
    ['$0 run all --no-skips', 'CI where every step must run: a skipped step fails the run'],
    ['$0 run all --apis payments,funds', 'a signed, idempotent domestic payment, then confirmation of funds'],
    ['$0 run accounts', "one step, reading the earlier steps' state from the environment"],
  ],
  handler: async (argv, state) => {
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
