// How a finished newman run is reported: the summary (accounts, balances, transaction counts, steps) and, when an
// assertion failed, ERR_RUN_FAILED naming the step (exit 1).

import { ObflowError } from '../errors.js';
import type { RunResult } from '../run/newman.js';
import { buildRunSummary, formatRunSummary } from '../run/summary.js';
import type { CommandState } from './context.js';

export function reportRun(state: CommandState, result: RunResult, extra: Record<string, unknown> = {}): void {
  const summary = buildRunSummary({ environment: result.environment, steps: result.steps, executions: result.executions });
  state.output.result({ ...extra, passed: result.passed, ...summary, failedStep: result.failedStep });
  for (const line of formatRunSummary(summary)) state.output.line(line);
  if (result.passed) return;
  const step = result.steps.find((candidate) => !candidate.passed);
  const first = step?.failures[0];
  const what = first ? `: ${first.item} — ${first.test}${first.message ? ` (${first.message})` : ''}` : '';
  throw new ObflowError('ERR_RUN_FAILED', `step ${result.failedStep ?? step?.name ?? '?'} failed${what}`, {
    hint: `Read ${step?.reports[0] ?? 'the JUnit report'}; the bank answered something the standard does not allow.`,
  });
}
