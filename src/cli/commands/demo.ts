// `obflow demo` (= `npm start`): the whole flow against the embedded sandbox on a fresh clone — identity if absent,
// start the emulator, register, environment, generate, run every step, summary, stop.

import type { CommandModule } from 'yargs';
import { ObflowError } from '../../errors.js';
import type { CommandState } from '../context.js';
import { liveLineOption, openCommand, sessionSeams } from '../context.js';
import { SANDBOX_PROFILES } from '../../config/profiles.js';

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
      .option('psu-user', { type: 'string', describe: 'Test user who consents: alex (default), sam or jo' })
      .example('$0 demo', 'what `npm start` runs')
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
      const workDir = core.stateLayout(config.stateDir).demo;
      const session = await core.openSession(config, overrides, { addresses: sandbox.urls, workDir, seams: sessionSeams(state) });
      try {
        const registered = await core.registerStage(session, { force: true });
        if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
        out.line(`register     client ${registered.registration.client_id} ${took()}`);
        const { environment, path } = await core.environmentStage(session, registered.registration);
        out.line(`environment  ${path} ${took()}`);
        const generated = await core.generateStage(config.output.collections, {
          par: core.parForGeneration(config),
          jarm: config.flow.jarm,
        });
        out.line(
          `generate     ${generated.paths.length} collections in ${config.output.collections}${generated.written ? '' : ' (current)'} ${took()}`,
        );
        const result = await core.runStage(session, {
          environment,
          collections: generated.collections,
          reporters: ['junit', 'html'],
          progress: () => undefined,
          ...liveLineOption(state, core),
        });
        await core.saveEnvironment(session, result.environment);
        out.line(`run          newman, ${result.steps.length} steps, reports in ${core.reportsDir(session.config)} ${took()}`);
        out.line(`report       ${core.htmlReportPath(session.config)} ${took()}`);
        (await import('../report.js')).reportRun(state, result, {
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
