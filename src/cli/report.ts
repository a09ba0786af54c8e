// How a finished run is shown: the verdict of its legs (src/pipeline/verdict.ts, decided by the core) as lines for
// people — the summary (accounts, balances, transaction counts, steps) of each leg, under its label in a run over
// several (`AIS v4.0:`), where the reports are, one ✗ line per failing request, v3.1 beside v4.0 — and as `--json`'s
// result; then the verdict's error is thrown as it is (src/cli/main.ts turns it into the exit code). Nothing here
// decides whether the run passed.

import { dirname, relative } from 'node:path';
import { DEFAULT_API_VERSION, type ApiVersion } from '../generate/api-versions.js';
import { legsVerdict, summaryOf, type LegsVerdict } from '../pipeline/verdict.js';
import { API_FAMILIES } from '../api-families.js';
import { formatComparison } from '../run/reporters/compare-versions.js';
import { formatOutcomeComparison } from '../run/reporters/compare-outcomes.js';
import type { RunResult } from '../run/result.js';
import { formatRunSummary } from '../run/summary.js';
import type { CommandState } from './context.js';

/** Renders the verdict of a run's legs and throws its error, if it has one. `extra` joins the `--json` result. */
export function renderVerdict(state: CommandState, verdict: LegsVerdict, extra: Record<string, unknown> = {}): void {
  const { output } = state;
  const single = verdict.legs.length === 1 && verdict.legs[0]?.label === '' ? verdict.legs[0] : undefined;
  if (single !== undefined) {
    const { result, summary } = single;
    const reports = result.reports ?? [];
    output.result({ ...extra, passed: verdict.passed, ...summary, failedStep: result.failedStep, reports });
    for (const line of formatRunSummary(summary, single.version)) output.line(line);
    const where = reportsLine(reports, state.io.cwd);
    if (where !== undefined) output.line(where);
  } else {
    const legs = verdict.legs.map(({ version, label, result, summary }) => {
      output.line(`${label}:`);
      for (const line of formatRunSummary(summary, version)) output.line(`  ${line}`);
      const where = reportsLine(result.reports ?? [], state.io.cwd);
      if (where !== undefined) output.line(`  ${where}`);
      return { version, passed: result.passed, ...summary, failedStep: result.failedStep, reports: result.reports ?? [] };
    });
    output.result({
      ...extra,
      passed: verdict.passed,
      versions: legs,
      comparison: verdict.comparison,
      ...(verdict.outcomeComparisons !== undefined ? { outcomeComparisons: verdict.outcomeComparisons } : {}),
    });
  }
  for (const line of verdict.failureLines) output.line(line);
  // The later version's report.html (when the run wrote pages) holds the same comparison, the stage's one.
  if (verdict.comparison !== undefined) for (const line of formatComparison(verdict.comparison)) output.line(line);
  for (const comparison of verdict.outcomeComparisons ?? []) for (const line of formatOutcomeComparison(comparison)) output.line(line);
  if (verdict.error !== undefined) throw verdict.error;
}

/** A run of one leg outside the legs stage (a workspace's own run): its verdict, rendered. */
export function reportRun(
  state: CommandState,
  result: RunResult,
  extra: Record<string, unknown> = {},
  options: { allowSkips?: boolean; apiVersion?: ApiVersion } = {},
): void {
  const leg = {
    version: options.apiVersion ?? DEFAULT_API_VERSION,
    family: API_FAMILIES.accounts,
    label: '',
    result,
    summary: summaryOf(result),
  };
  renderVerdict(state, legsVerdict([leg], { ...(options.allowSkips !== undefined ? { allowSkips: options.allowSkips } : {}) }), extra);
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
