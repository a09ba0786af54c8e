// `obflow report merge`, the pure core: the JSON run reports of a CI matrix's legs (src/run/reporters/json.ts) and the
// leg-status files of legs that never wrote one (docs/ci.md "One page for every leg") in, one merged summary out —
// legs (bank × client profile × consent mode) × steps, each cell passed/failed/skipped/not reached with the checks that failed and
// the rule they name, each step's time — and, against the previous night's summary, what changed. Data in, data out:
// reading, rendering and writing are src/report/merge-files.ts and merge-render.ts.

import { API_FAMILIES, FAMILY_LIST, type ApiFamily } from '../api-families.js';
import { ObflowError } from '../errors.js';
import { DEFAULT_FAPI_PROFILE } from '../fapi-profile.js';
import { apiLabel, DEFAULT_API_VERSION, knownVersionRow } from '../generate/api-versions.js';
import { DEFAULT_SLOWER_THRESHOLD } from './defaults.js';
import type { JsonReport, JsonReportStep } from '../run/reporters/json.js';
import { outcomesBroken } from '../runner-rules.js';
import { outcomeLines } from '../run/summary.js';

/** `skipped`: the step did not run, for the reason its leg's report gives (e.g. the bank issued no refresh token);
 *  `not-reached`: the leg stopped at an earlier failure. */
export type CellStatus = 'passed' | 'failed' | 'skipped' | 'not-reached';

/** One failed check of a step: the item (request) it belongs to, the check's name, the rule it cites. */
export interface LegFailure {
  item: string;
  check: string;
  /** The clause the check's name cites in its closing parentheses (`FAPI 1 Advanced §8.6`, `RFC 6749 §5.1`). */
  rule?: string;
  message?: string;
}

export interface LegStep {
  name: string;
  status: CellStatus;
  /** Wall time of the step (its end minus its start), when it ran. */
  ms?: number;
  /** Why a skipped step did not run. */
  reason?: string;
  failures: LegFailure[];
}

/** What a leg's CI job writes beside its reports (examples/ci/): who the leg is, how obflow ended, at which command. */
export interface LegStatus {
  bank: string;
  profile: string;
  consent: string;
  /** The AIS version the leg ran: a version axis of the matrix. */
  apiVersion?: string;
  /** The API families the leg covered (src/api-families.ts; absent: accounts, the only one before families existed). */
  families?: string[];
  /** The FAPI profile the leg followed (flow.fapi), when the script says. */
  fapi?: string;
  /** The exit code of the script's last obflow command (0 when every command passed). */
  exit: number;
  /** The command that ended the script (`sandbox`, `doctor`, `register`, `environment`, `generate`, `run`). */
  stage?: string;
  /** That command's own `error:` line (`CODE what is wrong`), when it printed one: the real cause, over the exit
   *  code's general reason. */
  error?: string;
  /** …and its `hint:` line: whose side, and what to do (src/errors.ts: every error has one). */
  hint?: string;
}

export type LegVerdict = 'passed' | 'failed' | 'no-report';

export interface MergedLeg {
  /** `bank / profile / consent`, then what is not the default (`/ AIS v4.0`, `/ PIS v3.1`, `/ FAPI 2.0`): unique in a
   *  merge, the key a later night compares by. */
  id: string;
  /** How the page names the leg: `bank / profile / consent` and its marks. */
  label: string;
  /** Everything else that tells it from another leg of the same bank, profile and consent mode: its API families with
   *  the version (`AIS v4.0`), its FAPI profile (`FAPI 2.0`) when its report or status says. */
  marks: string[];
  bank: string;
  profile: string;
  consent: string;
  /** The AIS version, when not v3.1. */
  apiVersion?: string;
  status: LegVerdict;
  /** Why a leg failed without a failing step, or has no report (from its exit code: LEG_EXIT_REASONS). */
  reason?: string;
  /** What to do about it, whose side: the failed command's `hint:` line, or the failed run's (its report's). */
  hint?: string;
  exit?: number;
  stage?: string;
  startedAt?: string;
  finishedAt?: string;
  /** The leg's own report, relative to the merged page (its copy under legs/). */
  report?: string;
  /** What the leg paid and checked, a line each (the payment: ids, amounts, statuses, signatures; the funds checks; the VRP
   *  mandate and each of its limits). */
  outcomes?: string[];
  steps: LegStep[];
}

export interface LegChange {
  leg: string;
  /** Absent when the change is the whole leg's (it has no report now, or had none before). */
  step?: string;
}

export interface SlowerStep {
  leg: string;
  step: string;
  previousMs: number;
  ms: number;
}

export interface MergeChanges {
  newlyFailing: LegChange[];
  newlyPassing: LegChange[];
  slower: SlowerStep[];
  /** Legs tonight that the previous summary did not have, and the other way round. */
  newLegs: string[];
  goneLegs: string[];
  threshold: SlowerThreshold;
}

/** The machine-readable summary (obflow-merged.json), and what `--previous` reads back the next night. `version`
 *  moves when a field changes meaning; new fields are added without it. */
export interface MergedSummary {
  version: 1;
  passed: boolean;
  counts: { legs: number; passed: number; failed: number; noReport: number };
  /** The grid's columns: every step any leg planned, in flow order. */
  steps: string[];
  legs: MergedLeg[];
  changes?: MergeChanges;
}

/** What the merge is given per leg: its report, its status file, or both (a leg's folder holds both). */
export interface LegInput {
  /** Where it came from, for error messages. */
  source: string;
  report?: JsonReport;
  status?: LegStatus;
  /** The leg's own report page, relative to the merged page, when it has one. */
  link?: string;
}

/** Why a leg with no report ended, by its exit code (README "Commands", docs/ci.md "Exit codes"). One row per code. */
export const LEG_EXIT_REASONS: Readonly<Record<number, string>> = {
  0: 'obflow passed but wrote no JSON run report (run with --reporters …,json)',
  1: 'a check failed before the run (doctor, a registration preflight, a step of the run)',
  2: 'usage or configuration error (a secret missing or empty, a wrong config path)',
  3: 'the bank refused or could not be reached (registration rejected, bank down at discovery, TLS refused)',
  124: 'the leg timed out',
  127: 'obflow was not found (did npm ci fail?)',
  130: 'interrupted (SIGINT)',
  143: 'stopped (SIGTERM): the job was cancelled or timed out',
};

export function exitReason(status: Pick<LegStatus, 'exit' | 'stage' | 'error'>): string {
  const why = status.error !== undefined && status.error !== '' ? status.error : (LEG_EXIT_REASONS[status.exit] ?? 'the job crashed');
  return `exit ${status.exit}${status.stage !== undefined && status.stage !== '' ? ` at obflow ${status.stage}` : ''}: ${why}`;
}

/** The clause a check's name cites: its closing parenthesis when that names a section (§) or an RFC. */
export function ruleOf(check: string): string | undefined {
  const match = /\(([^()]*(?:§|\bRFC \d+)[^()]*)\)\s*$/.exec(check);
  return match?.[1]?.trim();
}

const failure = (item: string, check: string, message: string | undefined): LegFailure => {
  const rule = ruleOf(check);
  return { item, check, ...(rule !== undefined ? { rule } : {}), ...(message !== undefined && message !== '' ? { message } : {}) };
};

function failuresOf(step: JsonReportStep): LegFailure[] {
  const failures: LegFailure[] = [];
  for (const assertion of step.preRequestAssertions)
    if (assertion.status === 'failed') failures.push(failure(assertion.item, assertion.name, assertion.message));
  for (const request of step.requests) {
    // A request that got no answer (refused connection, TLS failure, timeout): nothing was checked, nothing answered.
    if (request.failure !== undefined) failures.push(failure(request.item, `no answer to ${request.method}`, request.failure.message));
    for (const assertion of request.assertions)
      if (assertion.status === 'failed') failures.push(failure(request.item, assertion.name, assertion.message));
  }
  for (const error of step.scriptErrors) failures.push(failure(error.item, `${error.listen} script: ${error.name}`, error.message));
  return failures;
}

function stepOf(step: JsonReportStep): LegStep {
  const ms =
    step.startedAt !== undefined && step.finishedAt !== undefined ? Date.parse(step.finishedAt) - Date.parse(step.startedAt) : Number.NaN;
  return {
    name: step.name,
    // A report from before `status` was written: no verdict meant not reached.
    status: step.status === 'skipped' ? 'skipped' : step.passed === undefined ? 'not-reached' : step.passed ? 'passed' : 'failed',
    ...(Number.isFinite(ms) ? { ms: Math.max(0, ms) } : {}),
    ...(step.status === 'skipped' ? { reason: step.skipReason ?? '' } : {}),
    failures: failuresOf(step),
  };
}

/** The families a leg names, as rows (a name this obflow does not know stands for itself); none named: accounts, the
 *  only family before families existed. */
function familiesOf(names: readonly string[] | undefined): Pick<ApiFamily, 'short'>[] {
  if (names === undefined || names.length === 0) return [API_FAMILIES.accounts];
  return names.map((name) => FAMILY_LIST.find((family) => family.name === name) ?? { short: name });
}

/** One leg from its report and/or its status file: the status file names the leg (the CI matrix's labels), the
 *  report its steps; a non-zero exit fails a leg whose report passed. */
export function legOf(input: LegInput): MergedLeg {
  const { report, status } = input;
  if (report === undefined && status === undefined) throw new TypeError(`${input.source}: neither a report nor a leg status`);
  const bank = status?.bank ?? report?.target?.name ?? 'unknown';
  const profile = status?.profile ?? report?.target?.profile ?? '';
  const consent = status?.consent ?? report?.target?.consent ?? '';
  // A leg of another AIS version than v3.1 (the interface as written) says so in its id: `bank / profile / consent /
  // AIS v4.0` beside the v3.1 leg's `bank / profile / consent` (the version's row, legMark). A version this
  // obflow does not know is named as it is.
  const apiVersion = status?.apiVersion ?? report?.target?.apiVersion;
  const families = familiesOf(status?.families ?? report?.target?.families);
  const short = families.map((family) => family.short).join('+');
  const row = knownVersionRow(apiVersion ?? DEFAULT_API_VERSION);
  const mark = row === undefined ? `${short} v${apiVersion ?? ''}` : row.legMark(short);
  const fapi = status?.fapi ?? report?.target?.fapi;
  // The id carries everything that tells one leg from another of the same bank, profile and consent mode, and nothing
  // for the defaults, so a leg that ran as before keeps its id and a later night still compares it: other families
  // than accounts (`PIS v3.1`: the version's own mark names only a version other than the default), another FAPI
  // profile than the default (`FAPI 2.0`).
  const accountsOnly = families.every((family) => family.short === API_FAMILIES.accounts.short);
  const familyMark = mark ?? (accountsOnly || row === undefined ? undefined : apiLabel({ short }, row.version));
  const fapiMark = fapi !== undefined && fapi !== DEFAULT_FAPI_PROFILE ? `FAPI ${fapi}` : undefined;
  const marks: string[] = [
    row === undefined ? `${short} v${apiVersion ?? ''}` : families.map((family) => apiLabel(family, row.version)).join(', '),
    ...(fapi !== undefined ? [`FAPI ${fapi}`] : []),
  ];
  const identity = {
    id: [bank, profile, consent, ...[familyMark, fapiMark].filter((part) => part !== undefined)].join(' / '),
    label: `${[bank, profile, consent].join(' / ')} · ${marks.join(' · ')}`,
    marks,
    bank,
    profile,
    consent,
    ...(mark === undefined || apiVersion === undefined ? {} : { apiVersion }),
  };
  const exit = status === undefined ? {} : { exit: status.exit, ...(status.stage !== undefined ? { stage: status.stage } : {}) };
  if (report === undefined) {
    const hint = status?.exit !== 0 ? status?.hint : undefined;
    return {
      ...identity,
      status: 'no-report',
      reason: exitReason(status ?? { exit: -1 }),
      ...(hint !== undefined ? { hint } : {}),
      ...exit,
      steps: [],
    };
  }
  const steps = report.steps.map(stepOf);
  const unfinished = report.passed === undefined;
  const exitFailed = status !== undefined && status.exit !== 0;
  // A payment made past a VRP limit fails the leg as it fails the leg's own page (src/runner-rules.ts outcomesBroken).
  const passed = report.passed === true && !exitFailed && !outcomesBroken(report);
  const reason = unfinished
    ? 'the run did not finish (no verdict in its report)'
    : passed || !exitFailed || report.passed === false
      ? undefined
      : exitReason(status);
  // What to do: the failed run's own hint (its report's verdict, src/run/verdict.ts), else the failed command's.
  const hint = report.passed === false ? report.failure?.hint : exitFailed ? status.hint : undefined;
  const outcomes = outcomeLines(report);
  return {
    ...identity,
    status: passed ? 'passed' : 'failed',
    ...(reason !== undefined ? { reason } : {}),
    ...(hint !== undefined ? { hint } : {}),
    ...exit,
    ...(report.startedAt !== '' ? { startedAt: report.startedAt } : {}),
    ...(report.finishedAt !== undefined ? { finishedAt: report.finishedAt } : {}),
    ...(input.link !== undefined ? { report: input.link } : {}),
    ...(outcomes.length > 0 ? { outcomes } : {}),
    steps,
  };
}

/** A leg's steps by name (the first of a name, as a search from the start finds it): one look-up per cell instead of a
 *  scan of the leg, so a grid of S steps costs O(S), not O(S²). */
export function stepsByName(leg: Pick<MergedLeg, 'steps'>): Map<string, LegStep> {
  const byName = new Map<string, LegStep>();
  for (const step of leg.steps) if (!byName.has(step.name)) byName.set(step.name, step);
  return byName;
}

/** Every step name of the legs, each once, in flow order: a leg's steps keep their order; a step only some legs have
 *  (browser consent, id_token checks) sits after the step it follows in the first leg that has it. A linked list keyed
 *  by name: finding a column and inserting after it are O(1), so the columns of S steps cost O(S) (an array's indexOf
 *  and splice made one 200,000-step leg quadratic). */
export function stepColumns(legs: readonly MergedLeg[]): string[] {
  const next = new Map<string, string | undefined>();
  let first: string | undefined;
  for (const leg of legs) {
    // The column this leg's last step sits at; undefined: before the first column.
    let after: string | undefined;
    for (const step of leg.steps) {
      if (!next.has(step.name)) {
        if (after === undefined) {
          next.set(step.name, first);
          first = step.name;
        } else {
          next.set(step.name, next.get(after));
          next.set(after, step.name);
        }
      }
      after = step.name;
    }
  }
  const columns: string[] = [];
  for (let name = first; name !== undefined; name = next.get(name)) columns.push(name);
  return columns;
}

const byLeg = (a: MergedLeg, b: MergedLeg): number =>
  a.bank < b.bank ? -1 : a.bank > b.bank ? 1 : a.profile < b.profile ? -1 : a.profile > b.profile ? 1 : a.consent < b.consent ? -1 : 1;

/** The merged summary of the legs (sorted by bank, profile, consent mode). Two inputs naming one leg are an error. */
export function mergeLegs(inputs: readonly LegInput[]): MergedSummary {
  const legs = inputs.map(legOf).sort(byLeg);
  for (let index = 1; index < legs.length; index += 1) {
    if (legs[index]?.id === legs[index - 1]?.id) {
      const sources = inputs.filter((input) => legOf(input).id === legs[index]?.id).map((input) => input.source);
      throw new ObflowError('ERR_REPORT_INVALID', `two reports for the leg ${legs[index]?.id ?? ''}: ${sources.join(', ')}`, {
        hint: 'Give each leg its own folder (out/<bank>-<profile>-<consent>/reports in the recipes), or merge them separately.',
      });
    }
  }
  const count = (status: LegVerdict) => legs.filter((leg) => leg.status === status).length;
  return {
    version: 1,
    passed: legs.every((leg) => leg.status === 'passed'),
    counts: { legs: legs.length, passed: count('passed'), failed: count('failed'), noReport: count('no-report') },
    steps: stepColumns(legs),
    legs,
  };
}

// ---- what changed since the previous summary

/** "Slower" means: slower by more than every bound given (a share of the previous time, a number of milliseconds). */
export interface SlowerThreshold {
  percent?: number;
  ms?: number;
}

export { DEFAULT_SLOWER_THRESHOLD };

/** `50%`, `500ms`, `2s`, or both comma-separated (`50%,500ms`: slower by more than half and by more than 500 ms). */
export function parseSlowerThreshold(text: string): SlowerThreshold {
  const threshold: SlowerThreshold = {};
  for (const part of text.split(',').map((piece) => piece.trim())) {
    const match = /^(\d+(?:\.\d+)?)\s*(%|ms|s)$/.exec(part);
    if (match === null || (match[2] === '%' ? threshold.percent : threshold.ms) !== undefined) {
      throw new ObflowError('ERR_USAGE', `--slower-threshold ${text}: "${part}" is not a share (50%) or a time (500ms, 2s)`, {
        hint: `Give a share, a time, or one of each comma-separated (default ${DEFAULT_SLOWER_THRESHOLD}).`,
      });
    }
    const value = Number(match[1]);
    if (match[2] === '%') threshold.percent = value;
    else threshold.ms = match[2] === 's' ? value * 1000 : value;
  }
  return threshold;
}

export function isSlower(previousMs: number, ms: number, threshold: SlowerThreshold): boolean {
  if (threshold.percent === undefined && threshold.ms === undefined) return false;
  const byShare = threshold.percent === undefined || ms > previousMs * (1 + threshold.percent / 100);
  const byTime = threshold.ms === undefined || ms - previousMs > threshold.ms;
  return ms > previousMs && byShare && byTime;
}

/** What changed since `previous`: cells that went from passed to failed and back, whole legs that lost or gained their
 *  report, steps slower than the threshold, legs new and gone. */
export function compareSummaries(previous: MergedSummary, current: MergedSummary, threshold: SlowerThreshold): MergeChanges {
  const before = new Map(previous.legs.map((leg) => [leg.id, leg]));
  const now = new Set(current.legs.map((leg) => leg.id));
  const changes: MergeChanges = { newlyFailing: [], newlyPassing: [], slower: [], newLegs: [], goneLegs: [], threshold };
  for (const leg of current.legs) {
    const old = before.get(leg.id);
    if (old === undefined) {
      changes.newLegs.push(leg.id);
      continue;
    }
    // A whole leg: passed and now without a report (or failing with no failed step), or without a report and now passing.
    if (old.status === 'passed' && leg.status !== 'passed' && !leg.steps.some((step) => step.status === 'failed'))
      changes.newlyFailing.push({ leg: leg.id });
    if (old.status === 'no-report' && leg.status === 'passed') changes.newlyPassing.push({ leg: leg.id });
    const previousSteps = stepsByName(old);
    for (const step of leg.steps) {
      const was = previousSteps.get(step.name);
      if (was === undefined) continue;
      if (was.status === 'passed' && step.status === 'failed') changes.newlyFailing.push({ leg: leg.id, step: step.name });
      if (was.status === 'failed' && step.status === 'passed') changes.newlyPassing.push({ leg: leg.id, step: step.name });
      if (was.ms !== undefined && step.ms !== undefined && isSlower(was.ms, step.ms, threshold))
        changes.slower.push({ leg: leg.id, step: step.name, previousMs: was.ms, ms: step.ms });
    }
  }
  for (const leg of previous.legs) if (!now.has(leg.id)) changes.goneLegs.push(leg.id);
  return changes;
}
