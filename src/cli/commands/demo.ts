// `obflow demo` (= `npm start`): the whole flow against the embedded sandbox on a fresh clone — identity if absent,
// start the emulator, register, environment, generate, run every step, summary, stop.

import type { CommandModule } from 'yargs';
import { ObflowError } from '../../errors.js';
import type { CommandState } from '../context.js';
import { liveLineOption, openCommand, sessionSeams } from '../context.js';
import { SANDBOX_PROFILES } from '../../config/profiles.js';
import type { ApiVersion } from '../../generate/api-versions.js';
import { API_VERSION_OPTION } from '../../generate/api-versions.js';

export const demoCommand = (state: CommandState): CommandModule => ({
  command: 'demo',
  describe: 'The whole flow against the embedded sandbox: register, environment, generate, run, summary',
  builder: (yargs) =>
    yargs
      .option('profile', {
        type: 'string',
        choices: SANDBOX_PROFILES,
        describe: 'Sandbox client profile (interactive ones consent in Chromium)',
      })
      .option('response-type', { type: 'string', choices: ['code id_token', 'code'], describe: 'OIDC response type' })
      .option('fapi', { type: 'string', choices: ['1-advanced', '2.0'], describe: 'FAPI profile (flow.fapi): 1-advanced (default) or 2.0' })
      .option('api-version', API_VERSION_OPTION)
      .option('psu-user', { type: 'string', describe: 'Test user who consents: alex (default), sam or jo' })
      .example('$0 demo', 'what `npm start` runs')
      .example('$0 demo --api-version 3.1,4.0', 'the flow on AIS v3.1 and v4.0, then v3.1 beside v4.0')
      .example('$0 demo --profile permissive-interactive --psu-user sam', 'log in and consent in Chromium'),
  handler: async (argv) => {
    const started = Date.now();
    const { core, config, overrides } = await openCommand(state, argv);
    if (config.target !== 'sandbox') {
      throw new ObflowError('ERR_USAGE', 'demo runs against the embedded sandbox, but the config targets a bank', {
        hint: 'Use `obflow register`, `environment`, `generate` and `run all` for a real bank.',
      });
    }
    const out = state.output;
    let mark = Date.now();
    /** Milliseconds since the previous stage line: where the demo's time goes. */
    const took = () => {
      const now = Date.now();
      const text = `(${now - mark} ms)`;
      mark = now;
      return text;
    };
    const issued = await core.ensureLocalIdentity(config);
    if (issued) out.line(`identity     issued software statement ${issued.software_id} under a local test directory ${took()}`);
    // Ctrl-C / SIGTERM stop the emulator too (startEmbeddedSandbox registers it with the interrupt cleanups).
    const sandbox = await core.startEmbeddedSandbox(config);
    try {
      out.line(`sandbox      ${sandbox.urls.sandbox_base_url}, profile ${config.sandbox.profile} ${took()}`);
      // The demo's own collections: `output.collections` (in a clone, the tracked collections/) stays what generate makes.
      const { demo: workDir, demoCollections } = core.stateLayout(config.stateDir);
      const session = await core.openSession(config, overrides, {
        addresses: sandbox.urls,
        workDir,
        seams: sessionSeams(state),
        runs: true,
      });
      try {
        const registered = await core.registerStage(session, { force: true });
        if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
        out.line(`register     client ${registered.registration.client_id} ${took()}`);
        const { environment, path } = await core.environmentStage(session, registered.registration);
        out.line(`environment  ${path} ${took()}`);
        // `--api-version 3.1,4.0`: the flow once per version (a consent each), each with its own reports folder, then
        // the two side by side (src/run/reporters/compare-versions.ts).
        const versions =
          overrides.apiVersions !== undefined && overrides.apiVersions.length > 1 ? overrides.apiVersions : [config.flow.apiVersion];
        const legs: { version: ApiVersion; result: Awaited<ReturnType<typeof core.runStage>> }[] = [];
        for (const version of versions) {
          const label = versions.length > 1 ? `AIS v${version}: ` : '';
          const leg = versions.length > 1 ? core.versionSession(session, version) : session;
          const generated = await core.generateStage(demoCollections, {
            version,
            par: core.parForGeneration(config),
            jarm: config.flow.jarm,
            fapi: config.flow.fapi,
          });
          out.line(
            `generate     ${label}${generated.paths.length} collections in ${core.collectionsDirOf(demoCollections, version)}${generated.written ? '' : ' (current)'} ${took()}`,
          );
          const result = await core.runStage(leg, {
            environment,
            collections: generated.collections,
            reporters: ['junit', 'html'],
            progress: () => undefined,
            ...liveLineOption(state, core),
            // Over two versions: each adds up its transactions, and the later one's page compares it with the earlier.
            ...(versions.length > 1 ? { keepTransactionBodies: true } : {}),
            ...(versions.length > 1 && legs[0] !== undefined ? { compareWith: legs[0] } : {}),
          });
          // Each version of a run over several keeps its chained environment in its own file (a later `obflow run
          // <step> --api-version 4.0` continues v4.0's consent, src/pipeline/environment.ts versionEnvironmentStem).
          await core.saveEnvironment(
            leg,
            result.environment,
            versions.length > 1 ? core.versionEnvironmentStem(session.target, version) : undefined,
          );
          out.line(`run          ${label}newman, ${result.steps.length} steps, reports in ${core.reportsDir(leg.config)} ${took()}`);
          out.line(`report       ${core.htmlReportPath(leg.config)} ${took()}`);
          legs.push({ version, result });
        }
        const report = await import('../report.js');
        if (legs.length === 1) {
          report.reportRun(
            state,
            (legs[0] as (typeof legs)[number]).result,
            { profile: config.sandbox.profile, seconds: (Date.now() - started) / 1000 },
            { apiVersion: config.flow.apiVersion },
          );
        } else await report.reportVersionRuns(state, legs, { profile: config.sandbox.profile, seconds: (Date.now() - started) / 1000 });
        out.line(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } finally {
        await session.close();
      }
    } finally {
      await sandbox.close();
    }
  },
});
