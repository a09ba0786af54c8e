// What a finished run returns: per-step results, the first failure, the chained environment, and the requests the
// summary reads. Built by the runner from its events (src/run/events.ts); the CLI reports it (src/cli/report.ts).

import type { PostmanEnvironment } from '../environment/merge.js';
import type { TransportErrorKind } from '../bank/transport-error.js';

export interface StepFailure {
  item: string;
  test: string;
  message: string;
}

/** A request that got no HTTP answer: the bank was not reached (refused, reset, DNS, timeout) or the TLS handshake
 *  failed (server certificate not trusted, client certificate refused). Not a verdict on the bank's answers. */
export interface TransportFailure {
  kind: TransportErrorKind;
  item: string;
  /** `https://host:port` of the request (no path: paths may carry ids). */
  origin: string;
  /** Node's error code when it has one (ECONNREFUSED, UNABLE_TO_GET_ISSUER_CERT_LOCALLY, …). */
  code?: string;
  message: string;
}

/** A request that did not go out, and why (events.ts SkipEvent). */
export interface StepSkip {
  item: string;
  reason: string;
}

export interface StepResult {
  name: string;
  /** False when a check failed (a skipped step has not failed: true, with `skipped`). */
  passed: boolean;
  /** The requests of the step that were skipped, with their reasons; the step itself is skipped when none went out
   *  (stepStatus). Absent when none was. */
  skipped?: StepSkip[];
  /** Set when the step failed because a request got no answer (the CLI maps it to ERR_REMOTE_UNREACHABLE/_TLS). */
  transport?: TransportFailure;
  requests: number;
  assertions: { total: number; failed: number };
  failures: StepFailure[];
  /** Reports written for this step (newman's JUnit file of the batch the step ran in). */
  reports: string[];
}

/** A step's verdict: failed (a check failed), skipped (it checked nothing: each of its requests was skipped with its
 *  reason, or answered that the bank does not offer it — runner-rules.ts createSkipWatch), or passed. A local step is
 *  skipped when it had nothing to check (src/run/context.ts runLocalStep). */
export type StepStatus = 'passed' | 'failed' | 'skipped';

export function stepStatus(step: Pick<StepResult, 'passed' | 'assertions' | 'skipped'>): StepStatus {
  if (!step.passed) return 'failed';
  return step.assertions.total === 0 && (step.skipped?.length ?? 0) > 0 ? 'skipped' : 'passed';
}

/** Why a skipped step did not run: its first skip's reason (the later ones depend on it). */
export function skipReasonOf(step: Pick<StepResult, 'skipped'>): string {
  return step.skipped?.[0]?.reason ?? '';
}

/** One request the run made: enough for the summary; bodies kept only where a subscriber reads them (events.ts). */
export interface ExecutionRecord {
  step: string;
  item: string;
  method: string;
  url: string;
  status: number | undefined;
  /** Parsed JSON body of GET …/aisp/accounts (the summary names the accounts). */
  json?: unknown;
}

export interface RunResult {
  passed: boolean;
  /** The results of the steps that ran (or were skipped), in order; a step the run never reached has none. */
  steps: StepResult[];
  /** Every step of the run's plan, in order (those after a failure were not reached). */
  planned?: string[];
  /** The first step that failed (the CLI names it and exits 1 with ERR_RUN_FAILED, or 3 when it is a transport error). */
  failedStep?: string;
  /** The failed step's transport error, if its failure is that no answer came (see StepResult.transport). */
  transport?: TransportFailure & { step: string };
  environment: PostmanEnvironment;
  executions: ExecutionRecord[];
  /** Every file the run's reporters wrote (JUnit per batch, the JSON report, …), in the order they finished. */
  reports?: string[];
}
