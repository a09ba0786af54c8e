// The verdict of a run's legs (src/pipeline/legs.ts), decided once: passed or not, and the one error the command ends
// with — the first failed leg's (ERR_RUN_FAILED naming the step; ERR_REMOTE_UNREACHABLE / ERR_REMOTE_TLS when no answer
// came, exit 3: nothing was verified; a version the bank does not serve), a skipped step under `--no-skips`
// (ERR_RUN_SKIPPED), or v3.1 and v4.0 differing where the code mapping explains nothing (ERR_VERSIONS_DIFFER: the
// accounts read, a payment, a VRP mandate's walk). Pure:
// the CLI renders the verdict and throws its error (src/cli/report.ts); `passed` is false whenever there is one.

import type { ApiFamily } from '../api-families.js';
import { ObflowError } from '../errors.js';
import { apiBasePath, apiLabel, API_VERSION_ROWS, DEFAULT_API_VERSION, type ApiVersion } from '../generate/api-versions.js';
import { COMPARED_VERSIONS, type VersionComparison } from '../run/reporters/compare-versions.js';
import { comparisonKindOf, type OutcomeComparison } from '../run/reporters/compare-outcomes.js';
import type { RunResult } from '../run/result.js';
import { buildRunSummary, type RunSummary } from '../run/summary.js';
import { failingRequests, failureHint, failureLine, transportHint } from '../run/verdict.js';

/** One leg that ran: its version and family, how lines name it (empty in a run of one leg), its result and summary. */
export interface LegOutcome {
  version: ApiVersion;
  family: ApiFamily;
  label: string;
  result: RunResult;
  summary: RunSummary;
}

export interface LegsVerdict {
  passed: boolean;
  legs: readonly LegOutcome[];
  /** v3.1 beside v4.0, when both ran and every leg passed (src/run/reporters/compare-versions.ts). */
  comparison?: VersionComparison;
  /** What each money family did on v3.1 beside v4.0 (the payment, the VRP mandate's walk), when both of its legs ran
   *  and every leg passed (src/run/reporters/compare-outcomes.ts, one row per family). */
  outcomeComparisons?: OutcomeComparison[];
  /** One line per failing request of the failed leg (never every check). */
  failureLines: string[];
  /** The one error the command ends with; undefined: it passed. */
  error?: ObflowError;
}

/** The summary of a run's result (what the terminal, `--json` and the verdict read). */
export function summaryOf(result: RunResult): RunSummary {
  return buildRunSummary({
    environment: result.environment,
    steps: result.steps,
    executions: result.executions,
    ...(result.planned !== undefined ? { planned: result.planned } : {}),
  });
}

/** Pure: the legs' verdict. `comparison` is the stage's, computed once; `allowSkips` false is `--no-skips`. */
export function legsVerdict(
  legs: readonly LegOutcome[],
  options: {
    comparison?: VersionComparison | undefined;
    outcomeComparisons?: readonly OutcomeComparison[] | undefined;
    allowSkips?: boolean | undefined;
  },
): LegsVerdict {
  const failed = legs.find((leg) => !leg.result.passed);
  const comparison = failed === undefined ? options.comparison : undefined;
  const outcomeComparisons = failed === undefined && (options.outcomeComparisons?.length ?? 0) > 0 ? options.outcomeComparisons : undefined;
  const error =
    failed !== undefined
      ? legFailure(failed)
      : (skipsRefusal(legs, options.allowSkips) ?? versionsDiffer(comparison) ?? outcomesDiffer(outcomeComparisons));
  return {
    passed: error === undefined,
    legs,
    ...(comparison !== undefined ? { comparison } : {}),
    ...(outcomeComparisons !== undefined ? { outcomeComparisons: [...outcomeComparisons] } : {}),
    failureLines: failed === undefined ? [] : runFailureLines(failed.result),
    ...(error !== undefined ? { error } : {}),
  };
}

/** A failed leg's error, its label before the message in a run of several legs. */
function legFailure(leg: LegOutcome): ObflowError {
  const error = versionNotServed(leg.result, leg.version, leg.family) ?? runFailureError(leg.result);
  if (leg.label === '') return error;
  return new ObflowError(error.code, `${leg.label}: ${error.message}`, { hint: error.hint, cause: error });
}

/** `--no-skips` (flow.allowSkips false): the first step that did not run, on any leg, with its reason. */
function skipsRefusal(legs: readonly LegOutcome[], allowSkips: boolean | undefined): ObflowError | undefined {
  if (allowSkips !== false) return undefined;
  const leg = legs.find((candidate) => candidate.summary.skips.length > 0);
  const first = leg?.summary.skips[0];
  if (leg === undefined || first === undefined) return undefined;
  return new ObflowError('ERR_RUN_SKIPPED', `${leg.label === '' ? '' : `${leg.label}: `}step ${first.step} did not run: ${first.reason}`, {
    hint: 'The run was asked to fail on skips (--no-skips, flow.allowSkips false): do what the reason names to make the step run, or leave --no-skips out where it may be skipped.',
  });
}

/** A difference between the compared versions that the code mapping does not explain. */
function versionsDiffer(comparison: VersionComparison | undefined): ObflowError | undefined {
  const first = comparison?.differences[0];
  if (comparison === undefined || first === undefined) return undefined;
  const [a, b] = [API_VERSION_ROWS[COMPARED_VERSIONS.first].name, API_VERSION_ROWS[COMPARED_VERSIONS.second].name];
  return new ObflowError(
    'ERR_VERSIONS_DIFFER',
    `${comparison.differences.length} difference(s) between ${a} and ${b} the code mapping does not explain, first: ` +
      `account ${first.account} ${first.field} is ${first.v31} on ${a}, ${first.v40} on ${b}`,
    { hint: 'The bank serves different data on its two versions: look at the field named (docs/collections.md, "Versions").' },
  );
}

/** A family's outcome on one version unlike the other's where v4.0's codes do not explain it (the same payment or
 *  mandate was asked on both): the first family's first difference, in its row's words. */
function outcomesDiffer(comparisons: readonly OutcomeComparison[] | undefined): ObflowError | undefined {
  const comparison = comparisons?.find((candidate) => candidate.differences.length > 0);
  const first = comparison?.differences[0];
  if (comparison === undefined || first === undefined) return undefined;
  const kind = comparisonKindOf(comparison);
  const [a, b] = [API_VERSION_ROWS[COMPARED_VERSIONS.first].name, API_VERSION_ROWS[COMPARED_VERSIONS.second].name];
  return new ObflowError(
    'ERR_VERSIONS_DIFFER',
    `${comparison.differences.length} difference(s) between ${kind.between} on ${a} and ${b} the code mapping does not explain, ` +
      `first: ${first.field} is ${first.v31} on ${a}, ${first.v40} on ${b}`,
    { hint: kind.hint },
  );
}

/**
 * A run of a version a bank may not serve (its row's mayBeUnserved) whose first request under the family's base path
 * answered 404: the bank does not serve that version at this address (OBIE R/W Profile: an endpoint not implemented is
 * a 404) — a setting to change, not a bank breaking the standard. Undefined otherwise.
 */
export function versionNotServed(result: RunResult, version: ApiVersion, family: ApiFamily): ObflowError | undefined {
  if (!API_VERSION_ROWS[version].mayBeUnserved) return undefined;
  const base = `${apiBasePath(family, version)}/`;
  const first = result.executions.find((execution) => execution.url.includes(base));
  if (first === undefined || first.status !== 404) return undefined;
  const api = apiLabel(family, version);
  return new ObflowError(
    'ERR_RUN_FAILED',
    `step ${first.step} failed: the bank answered 404 to the first ${api} request (${first.method} ${first.url.split('?')[0] ?? ''})`,
    {
      hint: `The bank does not serve ${api} at this address: set flow.apiVersion to "${DEFAULT_API_VERSION}" (or --api-version ${DEFAULT_API_VERSION}), or use the version the bank publishes.`,
    },
  );
}

/** One line per failing request: its first failing check and how many more failed (never every check). */
export function runFailureLines(result: RunResult): string[] {
  return result.transport !== undefined ? [] : failingRequests(result).map(failureLine);
}

/** The one error a failed run ends with (the CLI's exit code follows from its code). */
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
