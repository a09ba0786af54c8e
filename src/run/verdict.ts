// Which side broke which rule when a run failed: the bank's answer against the standard, obflow's request
// refused by the bank, or a setting that is missing. Pure: read from a finished run's failing checks and the statuses
// of its requests. The CLI prints one line per failing request and ends with the first one's hint (src/cli/report.ts).
// The rules themselves (the side, the hint per error code, the sentence) live in src/runner-rules.ts, which every
// workspace's report shares.

import { failureHintOf, failureLineOf, failureSentenceOf, failureSideOf, type FailureSideInfo } from '../runner-rules.js';
import type { RunResult, StepFailure, TransportFailure } from './result.js';

export type { FailureSide } from '../runner-rules.js';

export interface FailingRequest extends FailureSideInfo {
  step: string;
  item: string;
  /** The request's first failing check, and how many more of its checks failed. */
  first: StepFailure;
  more: number;
}

/** One entry per request with a failing check, in the order the checks failed. */
export function failingRequests(result: RunResult): FailingRequest[] {
  const requests: FailingRequest[] = [];
  for (const step of result.steps) {
    const byItem = new Map<string, StepFailure[]>();
    for (const failure of step.failures) byItem.set(failure.item, [...(byItem.get(failure.item) ?? []), failure]);
    for (const [item, failures] of byItem) {
      const first = failures[0] as StepFailure;
      const execution = result.executions.findLast((candidate) => candidate.step === step.name && candidate.item === item);
      requests.push({
        step: step.name,
        item,
        first,
        more: failures.length - 1,
        ...failureSideOf(first, execution?.status, execution?.url),
      });
    }
  }
  return requests;
}

/** The hint of a failed run, naming the side of its first failing request (the rows: src/runner-rules.ts, shared with
 *  every workspace's report). */
export function failureHint(request: FailingRequest | undefined, report: string): string {
  return failureHintOf(request, report, 'obflow');
}

/** One line for a failing request: where, the first failing check, how many more. */
export function failureLine(request: FailingRequest): string {
  return failureLineOf(request);
}

/** What to do when no answer came (ERR_REMOTE_TLS / ERR_REMOTE_UNREACHABLE): the CLI's hint and the report page's. */
export function transportHint(kind: TransportFailure['kind']): string {
  return kind === 'tls'
    ? "Check the bank's CA (bank.server_ca, or the sandbox's directory CAs) and that the transport certificate is the registered one; `obflow doctor` checks both."
    : 'Is the bank (or `obflow sandbox`) running at that address? If the sandbox restarted, run `obflow environment` again.';
}

/** A failed run for people (the report page's box): a plain first sentence — where it stopped, whose side — the same
 *  "what to do" as the CLI's hint, and the technical lines (the CLI's ✗ lines) to fold under it. */
export interface FailureSummary {
  step: string;
  sentence: string;
  hint: string;
  detail: string[];
}

export function failureSummary(result: RunResult, report: string): FailureSummary | undefined {
  const step = result.steps.find((candidate) => !candidate.passed);
  if (step === undefined) return undefined;
  const transport = result.transport ?? (step.transport !== undefined ? { step: step.name, ...step.transport } : undefined);
  if (transport !== undefined) {
    return {
      step: transport.step,
      sentence:
        transport.kind === 'tls'
          ? `The run stopped at step ${transport.step}: the secure (mutual TLS) connection to the bank at ${transport.origin} failed, so nothing was checked there.`
          : `The run stopped at step ${transport.step}: the bank at ${transport.origin} did not answer, so nothing was checked there.`,
      hint: transportHint(transport.kind),
      detail: [`${transport.item}: ${transport.code !== undefined ? `${transport.code}: ` : ''}${transport.message}`],
    };
  }
  const requests = failingRequests(result);
  const request = requests.find((candidate) => candidate.step === step.name);
  const where = request !== undefined ? `step ${step.name} (${request.item})` : `step ${step.name}`;
  const sentence = failureSentenceOf(where, request, 'obflow');
  const detail =
    requests.length > 0
      ? requests.map(failureLine)
      : step.failures.map((failure) => `✗ ${step.name} › ${failure.item}: ${failure.test} — ${failure.message}`);
  return { step: step.name, sentence, hint: failureHint(request, report), detail };
}
