// The run stage: the checks before a run (src/pipeline/run-checks.ts), the plan (run-plan.ts), then the runner over the
// session's transport with the reporters asked for; where its reports go.

import { join } from 'node:path';
import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import type { ObflowConfig } from '../config/schema.js';
import type { PostmanEnvironment } from '../environment/index.js';
import { ensureDirectory } from '../fs.js';
import { SECRET_VARIABLE_KEYS } from '../generate/variables.js';
import { DEFAULT_REPORTERS, runSteps, type ReporterName, type RunResult, type RunSubscriber, type VersionPage } from '../run/index.js';
import { HTML_REPORT_FILE } from '../run/reporters/html.js';
import { stateLayout } from '../state/layout.js';
import { storedRegistration } from './register.js';
import { checkBeforeRun } from './run-checks.js';
import { planRun } from './run-plan.js';
import type { Session } from './session.js';

export interface RunStageOptions {
  environment: PostmanEnvironment;
  /** The step collections, when the caller has them (the demo just built them); otherwise read from output.collections. */
  collections?: Readonly<Record<string, object>>;
  /** `all` or one step name. */
  select?: string;
  /** Reporters by name (src/run/reporters/index.ts); default cli + junit. */
  reporters?: readonly ReporterName[];
  /** Progress lines of the cli reporter. */
  progress?: (line: string) => void;
  /** The cli reporter prints every request and check (`--verbose`), not only a line per step. */
  verbose?: boolean;
  /** A terminal's live line during a long step (src/run/subscribers/live-line.ts); the CLI gives it on a TTY only. */
  liveLine?: RunSubscriber;
  /** More subscribers to the run's events (the bench times the run's phases with one). */
  subscribers?: readonly RunSubscriber[];
  /** Only the collections' steps, as a workspace's own runner runs them (no local id_token steps): the report a
   *  workspace ships counts what its run.sh will count (src/pipeline/workspace.ts). */
  collectionStepsOnly?: boolean;
  /** The API family whose steps run (default accounts, the only row so far: src/api-families.ts). */
  family?: ApiFamily;
  /** A run over two API versions: keep the transaction pages' bodies (the comparison adds them up). */
  keepTransactionBodies?: boolean;
  /** …and what this leg's page says of the comparison (src/pipeline/legs.ts; src/run/reporters/html.ts draws it). */
  versionPage?: VersionPage;
  /** Once the checks passed and the plan is made, just before the run begins (the legs stage clears other legs'
   *  reports there: a run refused by its checks leaves the folder as it was). */
  beforeRun?: () => Promise<void>;
}

export async function runStage(session: Session, options: RunStageOptions): Promise<RunResult> {
  const { config, target } = session;
  await checkBeforeRun(session, options, await storedRegistration(session));
  // Where this run writes, before anything is sent: a file standing where a folder should be is ERR_WRITE_FAILED.
  const state = stateLayout(config.stateDir);
  const runDir = state.run;
  await ensureDirectory(runDir, { secret: true });
  const reporters = options.reporters ?? DEFAULT_REPORTERS;
  const { steps, environment, sslClientCertList, caBundle, release } = await planRun(session, options);
  try {
    await options.beforeRun?.();
    return await runSteps({
      steps,
      environment,
      cwd: runDir,
      sslClientCertList,
      ...(caBundle ? { sslExtraCaCerts: caBundle } : {}),
      insecure: target.insecure,
      reporters,
      reportDir: reportsDir(config),
      secretKeys: SECRET_VARIABLE_KEYS,
      log: options.progress ?? session.log,
      ...(options.verbose === true ? { verbose: true } : {}),
      ...(options.liveLine !== undefined ? { first: [options.liveLine] } : {}),
      ...(options.subscribers !== undefined ? { subscribers: options.subscribers } : {}),
      // The session loaded and checked the transport material: the preflight does not read it again.
      transportMaterial: session.transport,
      target: {
        name: target.name,
        profile: target.profile,
        consent: target.consent,
        apiVersion: config.flow.apiVersion,
        families: [(options.family ?? API_FAMILIES.accounts).name],
        fapi: config.flow.fapi.name,
      },
      ...(options.keepTransactionBodies === true ? { keepTransactionBodies: true } : {}),
      ...(options.versionPage !== undefined ? { versionPage: options.versionPage } : {}),
    });
  } finally {
    // The PEM copy of a legacy PFX's key goes with the run (src/pipeline/transport-copy.ts).
    await release();
  }
}

/** Where the JUnit reports go: `output.reports`, else `<stateDir>/reports`. */
export function reportsDir(config: ObflowConfig): string {
  return config.output.reports ?? stateLayout(config.stateDir).reports;
}

/** The HTML report a run with the `html` reporter writes. */
export function htmlReportPath(config: ObflowConfig): string {
  return join(reportsDir(config), HTML_REPORT_FILE);
}
