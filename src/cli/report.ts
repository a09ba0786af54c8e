// How a finished newman run is reported: the summary (accounts, balances, transaction counts, steps) and, when a step
// failed, one line per failing request (its first failing check and the count of the rest) and ERR_RUN_FAILED naming
// the step, with a hint that says which side broke which rule (src/run/verdict.ts) (exit 1) — or, when no answer came at all, ERR_REMOTE_UNREACHABLE /
// ERR_REMOTE_TLS naming the step and the bank origin (exit 3: nothing was verified, the bank was not reached).

import { dirname, relative } from 'node:path';
import { ObflowError } from '../errors.js';
import type { RunResult } from '../run/result.js';
import { buildRunSummary, formatRunSummary } from '../run/summary.js';
import { failingRequests, failureHint, failureLine, transportHint } from '../run/verdict.js';
import type { CommandState } from './context.js';

export function reportRun(
  state: CommandState,
  result: RunResult,
  extra: Record<string, unknown> = {},
  options: { allowSkips?: boolean } = {},
): void {
  const summary = buildRunSummary({
    environment: result.environment,
    steps: result.steps,
    executions: result.executions,
    ...(result.planned !== undefined ? { planned: result.planned } : {}),
  });
  // --no-skips: a step that did not run fails the run (CI where every step must run).
  const skipFails = options.allowSkips === false && summary.skips.length > 0;
  const reports = result.reports ?? [];
  state.output.result({ ...extra, passed: result.passed && !skipFails, ...summary, failedStep: result.failedStep, reports });
  for (const line of formatRunSummary(summary)) state.output.line(line);
  const where = reportsLine(reports, state.io.cwd);
  if (where !== undefined) state.output.line(where);
  if (!result.passed) {
    for (const line of runFailureLines(result)) state.output.line(line);
    throw runFailureError(result);
  }
  if (skipFails) {
    const [first] = summary.skips;
    throw new ObflowError('ERR_RUN_SKIPPED', `step ${first?.step ?? '?'} did not run: ${first?.reason ?? ''}`, {
      hint: 'The run was asked to fail on skips (--no-skips, flow.allowSkips false): do what the reason names to make the step run, or leave --no-skips out where it may be skipped.',
    });
  }
}

/** Where the run's reports are: their folder (relative to the working directory when inside it) and their names. */
export function reportsLine(reports: readonly string[], cwd: string): string | undefined {
  if (reports.length === 0) return undefined;
  const dirs = [...new Set(reports.map((file) => dirname(file)))];
  const shown = (path: string): string => {
    const inside = relative(cwd, path);
    return inside !== '' && !inside.startsWith('..') ? inside : path;
  };
  if (dirs.length > 1) return `reports: ${reports.map(shown).join(', ')}`;
  return `reports in ${shown(dirs[0] ?? '')}: ${reports.map((file) => relative(dirs[0] ?? '', file)).join(', ')}`;
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
        { hint: transportHint('tls') },
      );
    }
    return new ObflowError(
      'ERR_REMOTE_UNREACHABLE',
      `step ${transport.step}: no answer from ${transport.origin} at ${transport.item} (${reason})`,
      { hint: transportHint(transport.kind) },
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
