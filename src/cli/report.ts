// How a finished newman run is reported: the summary (accounts, balances, transaction counts, steps) and, when a step
// failed, one line per failing request (its first failing check and the count of the rest) and ERR_RUN_FAILED naming
// the step, with a hint that says which side broke which rule (src/run/verdict.ts) (exit 1) — or, when no answer came at all, ERR_REMOTE_UNREACHABLE /
// ERR_REMOTE_TLS naming the step and the bank origin (exit 3: nothing was verified, the bank was not reached).

import { dirname, relative } from 'node:path';
import { ObflowError } from '../errors.js';
import type { ApiVersion } from '../generate/api-versions.js';
import { compareVersions, formatComparison, legOfRun } from '../run/reporters/compare-versions.js';
import type { RunResult } from '../run/result.js';
import { buildRunSummary, formatRunSummary, type RunSummary } from '../run/summary.js';
import { failingRequests, failureHint, failureLine, transportHint } from '../run/verdict.js';
import type { CommandState } from './context.js';

export function reportRun(
  state: CommandState,
  result: RunResult,
  extra: Record<string, unknown> = {},
  options: { allowSkips?: boolean; apiVersion?: ApiVersion } = {},
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
  for (const line of formatRunSummary(summary, options.apiVersion)) state.output.line(line);
  const where = reportsLine(reports, state.io.cwd);
  if (where !== undefined) state.output.line(where);
  if (!result.passed) {
    for (const line of runFailureLines(result)) state.output.line(line);
    throw versionNotServed(result, options.apiVersion ?? '3.1') ?? runFailureError(result);
  }
  if (skipFails) throw skipsRefused(summary.skips);
}

/** `--no-skips` (flow.allowSkips false): the first step that did not run, with its reason, as ERR_RUN_SKIPPED. */
function skipsRefused(skips: RunSummary['skips'], label = ''): ObflowError {
  const [first] = skips;
  return new ObflowError('ERR_RUN_SKIPPED', `${label}step ${first?.step ?? '?'} did not run: ${first?.reason ?? ''}`, {
    hint: 'The run was asked to fail on skips (--no-skips, flow.allowSkips false): do what the reason names to make the step run, or leave --no-skips out where it may be skipped.',
  });
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

/**
 * A run of another version than v3.1 whose first AIS request answered 404: the bank does not serve that version at
 * this address (OBIE R/W Profile: an endpoint not implemented is a 404) — a setting to change, not a bank breaking
 * the standard. Undefined otherwise.
 */
export function versionNotServed(result: RunResult, apiVersion: ApiVersion): ObflowError | undefined {
  if (apiVersion === '3.1') return undefined;
  const base = `/open-banking/v${apiVersion}/aisp/`;
  const first = result.executions.find((execution) => execution.url.includes(base));
  if (first === undefined || first.status !== 404) return undefined;
  return new ObflowError(
    'ERR_RUN_FAILED',
    `step ${first.step} failed: the bank answered 404 to the first AIS v${apiVersion} request (${first.method} ${first.url.split('?')[0] ?? ''})`,
    {
      hint: `The bank does not serve AIS v${apiVersion} at this address: set flow.apiVersion to "3.1" (or --api-version 3.1), or use the version the bank publishes.`,
    },
  );
}

/**
 * A run over several API versions (`demo --api-version 3.1,4.0`): each version's summary under its name, then — when
 * every version passed and both v3.1 and v4.0 ran — the two side by side. A failed version ends it as a failed run
 * does; a difference the v4.0 code mapping does not explain is ERR_VERSIONS_DIFFER naming the field and both values.
 */
export async function reportVersionRuns(
  state: CommandState,
  legs: readonly { version: ApiVersion; result: RunResult }[],
  extra: Record<string, unknown> = {},
  options: { allowSkips?: boolean } = {},
): Promise<void> {
  const summaries = legs.map(({ version, result }) => {
    const summary = buildRunSummary({
      environment: result.environment,
      steps: result.steps,
      executions: result.executions,
      ...(result.planned !== undefined ? { planned: result.planned } : {}),
    });
    state.output.line(`AIS v${version}:`);
    for (const line of formatRunSummary(summary, version)) state.output.line(`  ${line}`);
    const where = reportsLine(result.reports ?? [], state.io.cwd);
    if (where !== undefined) state.output.line(`  ${where}`);
    return { version, passed: result.passed, ...summary, failedStep: result.failedStep, reports: result.reports ?? [] };
  });
  const v31 = legs.find((leg) => leg.version === '3.1');
  const v40 = legs.find((leg) => leg.version === '4.0');
  const failed = legs.find((leg) => !leg.result.passed);
  const comparison =
    failed === undefined && v31 !== undefined && v40 !== undefined
      ? compareVersions(legOfRun('3.1', v31.result), legOfRun('4.0', v40.result))
      : undefined;
  // --no-skips: a step that did not run on either version fails the run, as it does for one version.
  const skipped = options.allowSkips === false ? summaries.find((summary) => summary.skips.length > 0) : undefined;
  state.output.result({
    ...extra,
    passed: failed === undefined && skipped === undefined && (comparison?.differences.length ?? 0) === 0,
    versions: summaries,
    comparison,
  });
  if (failed !== undefined) {
    for (const line of runFailureLines(failed.result)) state.output.line(line);
    const error = versionNotServed(failed.result, failed.version) ?? runFailureError(failed.result);
    throw new ObflowError(error.code, `AIS v${failed.version}: ${error.message}`, { hint: error.hint, cause: error });
  }
  if (skipped !== undefined) throw skipsRefused(skipped.skips, `AIS v${skipped.version}: `);
  if (comparison === undefined) return;
  // The later version's report.html (when the run wrote pages) has the same comparison as its "v3.1 beside v4.0"
  // section (src/run/reporters/html.ts, fed the earlier version's run).
  for (const line of formatComparison(comparison)) state.output.line(line);
  const first = comparison.differences[0];
  if (first !== undefined) {
    throw new ObflowError(
      'ERR_VERSIONS_DIFFER',
      `${comparison.differences.length} difference(s) between v3.1 and v4.0 the code mapping does not explain, first: ` +
        `account ${first.account} ${first.field} is ${first.v31} on v3.1, ${first.v40} on v4.0`,
      { hint: 'The bank serves different data on its two versions: look at the field named (docs/collections.md, "Versions").' },
    );
  }
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
