// `obflow demo` (= `npm start`): the whole flow against the embedded sandbox on a fresh clone — identity if absent,
// start the emulator, register, environment, generate, run every step, summary, stop.

import { SANDBOX_FAPI_OPTION, TOKEN_AUTH_METHOD_OPTION } from '../../fapi-profile.js';
import { ObflowError } from '../../errors.js';
import { defineCommand } from '../command.js';
import { liveLineOption, openCommand, sessionSeams } from '../context.js';

export const demoCommand = defineCommand({
  command: 'demo',
  describe: 'The whole flow against the embedded sandbox: register, environment, generate, run, summary',
  options: [
    'profile',
    'response-type',
    'fapi',
    { 'token-auth-method': TOKEN_AUTH_METHOD_OPTION, 'sandbox-fapi': SANDBOX_FAPI_OPTION },
    'api-version',
    'apis',
    'psu-user',
  ],
  examples: [
    ['$0 demo', 'what `npm start` runs'],
    ['$0 demo --fapi 2.0', 'a FAPI 2.0 client (PAR, PKCE, code, iss, private_key_jwt) against the emulator in its FAPI 2.0 mode'],
    ['$0 demo --sandbox-fapi 1-advanced', 'the emulator as a certified FAPI 1 Advanced server (plain code only with JARM)'],
    ['$0 demo --api-version 3.1,4.0', 'the flow on AIS v3.1 and v4.0, then v3.1 beside v4.0'],
    ['$0 demo --apis payments,funds', 'a signed, idempotent payment and funds checks against the emulator'],
    ['$0 demo --profile permissive-interactive --psu-user sam', 'log in and consent in Chromium'],
  ],
  handler: async (argv, state) => {
    const started = Date.now();
    const { core, config, overrides } = await openCommand(state, argv);
    if (config.target !== 'sandbox') {
      throw new ObflowError('ERR_USAGE', 'demo runs against the embedded sandbox, but the config targets a bank', {
        hint: 'Use `obflow register`, `environment`, `generate` and `run all` for a real bank.',
      });
    }
    const out = state.output;
    /** A leg's name before its lines in a run over several (`AIS v4.0: `). */
    const prefix = (leg: { label: string }) => (leg.label === '' ? '' : `${leg.label}: `);
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
    // The emulator serves what the run calls (flow.apis) beside what sandbox.apis names.
    const sandbox = await core.startEmbeddedSandbox(config, { apis: [...new Set([...config.sandbox.apis, ...config.flow.apis])] });
    try {
      out.line(`sandbox      ${sandbox.urls.sandbox_base_url}, profile ${config.sandbox.profile}, FAPI mode ${sandbox.fapi} ${took()}`);
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
        // `--api-version 3.1,4.0`: a leg per version (a consent each, its own reports folder), then the two side by
        // side (src/pipeline/legs.ts).
        const verdict = await core.runLegsStage(session, {
          versions: core.legVersions(config, overrides),
          environment,
          generate: {
            collectionsDir: demoCollections,
            par: core.parForGeneration(config),
            jarm: config.flow.jarm,
            fapi: config.flow.fapi,
          },
          run: { reporters: ['junit', 'html'], progress: () => undefined, ...liveLineOption(state, core) },
          progress: {
            generated: (leg, generated) =>
              out.line(
                `generate     ${prefix(leg)}${generated.paths.length} collections in ${generated.dir}${generated.written ? '' : ' (current)'} ${took()}`,
              ),
            ran: (leg, result) => {
              out.line(
                `run          ${prefix(leg)}newman, ${result.steps.length} steps, reports in ${core.reportsDir(leg.session.config)} ${took()}`,
              );
              out.line(`report       ${core.htmlReportPath(leg.session.config)} ${took()}`);
            },
          },
        });
        (await import('../report.js')).renderVerdict(state, verdict, {
          profile: config.sandbox.profile,
          seconds: (Date.now() - started) / 1000,
        });
        out.line(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } finally {
        await session.close();
      }
    } finally {
      await sandbox.close();
    }
  },
});
