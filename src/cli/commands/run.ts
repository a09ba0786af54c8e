// `obflow run [step|all]`: run the collections with newman in one process over mTLS, chaining the environment.

import type { CommandModule } from 'yargs';
import { FAPI_OPTION, RESPONSE_TYPE_OPTION } from '../../fapi-profile.js';
import { STEP_NAMES } from '../../generate/step-names.js';
import { DEFAULT_REPORTERS, REPORTER_NAMES, parseReporterNames } from '../../run/reporters/names.js';
import type { CommandState } from '../context.js';
import { liveLineOption, openCommand, sessionSeams } from '../context.js';
import { API_VERSION_OPTION } from '../../generate/api-versions.js';
import type { ApiVersion } from '../../generate/api-versions.js';

export const runCommand = (state: CommandState): CommandModule => ({
  command: 'run [step]',
  describe: 'Run the collections with newman, presenting the transport certificate (all steps, or one)',
  builder: (yargs) =>
    yargs
      .positional('step', {
        type: 'string',
        default: 'all',
        describe: `all, or one step, in the order they run: ${STEP_NAMES.join(', ')} (docs/collections.md)`,
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
      .example('$0 run accounts', "one step, reading the earlier steps' state from the environment"),
  handler: async (argv) => {
    const { core, config, overrides } = await openCommand(state, argv);
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      // The progress lines are for people, never with --json/--quiet.
      const asked = argv.reporters === undefined ? DEFAULT_REPORTERS : parseReporterNames(argv.reporters as string | string[]);
      const reporters = state.output.json || state.output.quiet ? asked.filter((name) => name !== 'cli') : asked;
      // `--api-version 3.1,4.0`: the flow once per version (a consent each, reports in <reports>/v<version>), then the
      // two side by side (src/cli/report.ts reportVersionRuns).
      const versions = overrides.apiVersions !== undefined && overrides.apiVersions.length > 1 ? overrides.apiVersions : undefined;
      const legs: { version: ApiVersion; result: Awaited<ReturnType<typeof core.runStage>> }[] = [];
      for (const version of versions ?? [config.flow.apiVersion]) {
        const leg = versions === undefined ? session : core.versionSession(session, version);
        // The version's own chained environment when an earlier run over several versions left one, else the
        // environment stage's; saved back where it came from (each version of a run over several to its own file).
        const saved = await core.readVersionEnvironment(config, session.target, version);
        const environment = saved.environment;
        if (versions !== undefined) state.output.line(`AIS v${version}`);
        // The flow inputs the flags gave win over the saved environment's (session.overrides; src/pipeline/run-plan.ts flowInputs).
        const result = await core.runStage(leg, {
          environment,
          select: String(argv.step ?? 'all'),
          reporters,
          progress: (line) => state.output.line(line),
          ...(argv.verbose === true ? { verbose: true } : {}),
          ...liveLineOption(state, core),
          // Over two versions: each adds up its transactions, and the later one's page compares it with the earlier.
          ...(versions !== undefined ? { keepTransactionBodies: true } : {}),
          ...(versions !== undefined && legs[0] !== undefined ? { compareWith: legs[0] } : {}),
        });
        // The chained environment carries the state for the next `obflow run <step>` (state folder, mode 0600).
        await core.saveEnvironment(
          leg,
          result.environment,
          versions === undefined ? saved.stem : core.versionEnvironmentStem(session.target, version),
        );
        legs.push({ version, result });
      }
      const report = await import('../report.js');
      if (versions === undefined)
        report.reportRun(
          state,
          (legs[0] as (typeof legs)[number]).result,
          {},
          { allowSkips: config.flow.allowSkips, apiVersion: config.flow.apiVersion },
        );
      else await report.reportVersionRuns(state, legs, {}, { allowSkips: config.flow.allowSkips });
    } finally {
      await session.close();
    }
  },
});
