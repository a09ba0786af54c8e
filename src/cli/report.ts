// How a finished newman run is reported: the summary (accounts, balances, transaction counts, steps) and, when a step
// failed, one line per failing request (its first failing check and the count of the rest) and ERR_RUN_FAILED naming
// the step, with a hint that says which side broke which rule (src/run/verdict.ts) (exit 1) — or, when no answer came at all, ERR_REMOTE_UNREACHABLE /
// ERR_REMOTE_TLS naming the step and the bank origin (exit 3: nothing was verified, the bank was not reached).

import { ObflowError } from '../errors.js';
import type { RunResult } from '../run/result.js';
import { buildRunSummary, formatRunSummary } from '../run/summary.js';
import { failingRequests, failureHint, failureLine } from '../run/verdict.js';
import type { CommandState } from './context.js';

export function reportRun(state: CommandState, result: RunResult, extra: Record<string, unknown> = {}): void {
  const summary = buildRunSummary({ environment: result.environment, steps: result.steps, executions: result.executions });
  state.output.result({ ...extra, passed: result.passed, ...summary, failedStep: result.failedStep });
  for (const line of formatRunSummary(summary)) state.output.line(line);
  if (result.passed) return;
  for (const line of runFailureLines(result)) state.output.line(line);
  throw runFailureError(result);
}

/** One line per failing request: its first failing check and how many more failed (never every check). */
export function runFailureLines(result: RunResult): string[] {
  return result.transport !== undefined ? [] : failingRequests(result).map(failureLine);
}

/** The one error a failed run ends with (exported for tests: the CLI's exit code follows from its code). */
export function runFailureError(result: RunResult): ObflowError {
  const step = result.steps.find((candidate) => !candidate.passed);
  const transport = result.transport ?? (step?.transport !== undefined ? { step: step.name, ...step.transport } : undefined);
  if (transport !== undefined) {
    const reason = transport.code !== undefined ? `${transport.code}: ${transport.message}` : transport.message;
    if (transport.kind === 'tls') {
      return new ObflowError(
        'ERR_REMOTE_TLS',
        `step ${transport.step}: TLS with ${transport.origin} failed at ${transport.item} (${reason})`,
        {
          hint: "Check the bank's CA (bank.server_ca, or the sandbox's directory CAs) and that the transport certificate is the registered one; `obflow doctor` checks both.",
        },
      );
    }
    return new ObflowError(
      'ERR_REMOTE_UNREACHABLE',
      `step ${transport.step}: no answer from ${transport.origin} at ${transport.item} (${reason})`,
      {
        hint: 'Is the bank (or `obflow sandbox`) running at that address? If the sandbox restarted, run `obflow environment` again.',
      },
    );
  }
  const request = failingRequests(result).find((candidate) => candidate.step === step?.name);
  const first = request?.first ?? step?.failures[0];
  const more = request !== undefined && request.more > 0 ? ` (+${request.more} more)` : '';
  const what = first ? `: ${first.item} — ${first.test}${first.message ? ` (${first.message})` : ''}${more}` : '';
  return new ObflowError('ERR_RUN_FAILED', `step ${result.failedStep ?? step?.name ?? '?'} failed${what}`, {
    hint: failureHint(request, step?.reports[0] ?? 'the JUnit report'),
  });
}
