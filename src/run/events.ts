// The typed events of one run and the subscribers that receive them (STYLE.md: a run is an emitter plus subscribers,
// newman's own design). The runner (src/run/runner.ts) turns newman's untyped events (one adapter:
// src/run/newman-adapter.ts) and the local steps into these; tally, progress lines, JUnit, the summary's bodies and
// every report (JSON, HTML, …) are subscribers in their own files. A new reporter is a new file and one row of the
// table in src/run/reporters/index.ts.
//
// Secrets: the RUNNER redacts every event before any subscriber sees it, and hands reporters a live `redact` for the
// text they write later. Why there, not in a redaction subscriber: secrets are learned during the run (tokens and
// codes land in the environment in the middle of an item), so redaction must see the item's environment updates
// BEFORE the item's events go out. The runner holds newman's events of an item until the item ends (its scripts
// have run, the secrets they set are known), then delivers them redacted, in order. One place redacts; a subscriber
// cannot forget to, and none ever holds an unredacted value. A secret first seen after an event was delivered (e.g.
// a value that becomes secret in a later step) is caught by `ReporterContext.redact` at write time: every reporter
// that writes a file or prints after the fact passes its text through it once more.
//
// Shape stability: other rooms build on these types (HTML report, workspace). Change them additively only.

import type { ReportComparison, ReportOutcomeComparison } from './reporters/page.js';
import type { RunResult, StepResult, TransportFailure } from './result.js';

export type { ExecutionRecord, RunResult, StepFailure, StepResult, TransportFailure } from './result.js';

/** A step is a collection newman runs, or a local action (e.g. browser consent) between them. */
export type StepKind = 'collection' | 'local';

/** Who the run talks to, when the caller knows (the pipeline does: its target). */
export interface RunTargetInfo {
  /** `sandbox` or the configured bank's name. */
  name: string;
  /** The sandbox client profile (strict-headless, …), or the bank's environment (sandbox/production). */
  profile?: string;
  /** How the PSU consents in this run (headless, browser, manual): a CI leg is bank × profile × consent mode. */
  consent?: string;
  /** The Account and Transaction API version the run spoke (3.1, 4.0): a CI matrix may have a version axis. */
  apiVersion?: string;
  /** The API families the run covered (src/api-families.ts: accounts): a later matrix may have a family axis. */
  families?: string[];
  /** The FAPI profile the run followed (flow.fapi: 1-advanced, 2.0). */
  fapi?: string;
}

/** The run begins: what it plans to do. Sent once, before anything else. */
export interface RunStartEvent {
  type: 'start';
  /** ISO 8601 (UTC). */
  startedAt: string;
  /** Every step of the plan, in order (a step after a failure may never begin: bail). */
  steps: { name: string; kind: StepKind }[];
  /** The bank origins (`https://host:port`) the transport certificate is presented to. */
  origins: string[];
  target?: RunTargetInfo;
}

/** A step begins (its first request is about to go, or its local action starts). */
export interface StepBeginEvent {
  type: 'step';
  phase: 'begin';
  step: string;
  kind: StepKind;
  /** ISO 8601 (UTC). */
  at: string;
}

/** A step ended, with its result (failures redacted; `reports` names the files of the newman.run the step ran in,
 *  e.g. its JUnit file, written and redacted when that run ends, after this event). */
export interface StepEndEvent {
  type: 'step';
  phase: 'end';
  step: string;
  kind: StepKind;
  /** ISO 8601 (UTC). */
  at: string;
  result: StepResult;
}

export type StepEvent = StepBeginEvent | StepEndEvent;

/** One HTTP request of a collection step, after its answer (or after it got none). No headers, no raw bodies. */
export interface RequestEvent {
  type: 'request';
  step: string;
  /** The Postman item's name (unique across the flow). */
  item: string;
  method: string;
  /** The resolved URL with its query (redacted: a query may carry a secret). */
  url: string;
  /** The HTTP status; absent when no answer came (see `failure`). */
  status?: number;
  /** Reason phrase as the server sent it (`OK`, `Unauthorized`, …), when there was an answer. */
  statusText?: string;
  /** Milliseconds from sending to the complete response (newman's responseTime); absent without an answer. */
  responseTime?: number;
  /** Bytes of the response body; absent without an answer. */
  responseSize?: number;
  /** Why no answer came (unreachable or TLS); absent when the bank answered. */
  failure?: TransportFailure;
  /** The parsed JSON body, only for GETs a subscriber reads (GET …/aisp/accounts: the summary names the accounts;
   *  balances and transaction counts are in `done`'s environment: interim_balances, transaction_counts). */
  json?: unknown;
  /** ISO 8601 (UTC), when the answer (or the failure) came. */
  at: string;
}

/** One `pm.test` of a request's scripts. */
export interface AssertionEvent {
  type: 'assertion';
  step: string;
  item: string;
  /** The test's name as the script gave it. */
  name: string;
  /** `skipped`: `pm.test.skip` (not counted in the step's assertions). */
  status: 'passed' | 'failed' | 'skipped';
  /** The failure message (chai's), redacted; only when failed. */
  message?: string;
}

/** A request of a collection step that did not go out: its pre-request script skipped it (`pm.execution.skipRequest`,
 *  e.g. the refresh without a refresh token), with the reason the script gave. Neither passed nor failed: skipped. */
export interface SkipEvent {
  type: 'skip';
  step: string;
  item: string;
  /** Why it did not run, and what would make it run (the script's `skipped: …` console line). */
  reason: string;
}

/** A script that threw outside `pm.test` (e.g. JSON.parse of a non-JSON body): a failure of its step. */
export interface ScriptErrorEvent {
  type: 'script';
  step: string;
  item: string;
  /** `prerequest` or `test`. */
  listen: string;
  /** The error's name (TypeError, SyntaxError, …). */
  name: string;
  message: string;
}

/** The run is over. `result.environment` is a redacted copy (every secret value `[redacted]`); the caller of the
 *  runner gets the real one. Sent once, last; subscribers' finish() follows. */
export interface RunDoneEvent {
  type: 'done';
  /** ISO 8601 (UTC). */
  finishedAt: string;
  result: RunResult;
}

export type RunEvent = RunStartEvent | StepEvent | RequestEvent | AssertionEvent | SkipEvent | ScriptErrorEvent | RunDoneEvent;

export type RunEventType = RunEvent['type'];

/**
 * Receives a run's events, in order, already redacted. `onEvent` may return a promise: the runner queues events per
 * subscriber (newman is never blocked) and awaits the queue before `finish()`; a subscriber's error fails the run
 * after newman ends (ERR_WRITE_FAILED and the like, from the subscriber).
 */
export interface RunSubscriber {
  onEvent(event: RunEvent): void | Promise<void>;
  /** After `done`: write what the subscriber produces; returns the files it wrote. Not called when the run throws
   *  before `done` (a reporter never leaves a half-written file). */
  finish?(): Promise<readonly string[]>;
  /** Only for a report newman writes itself (JUnit): its reporter options per newman.run, and the file afterwards. */
  newmanReport?: NewmanReportHook;
}

/** A report newman writes during one newman.run over a batch of consecutive collection steps. */
export interface NewmanReportHook {
  /** newman's reporter name, its options, and the file it will write, for a batch of steps. */
  open(steps: readonly string[]): { reporter: string; options: Record<string, unknown>; file: string };
  /** After that newman.run. `completed` false: newman failed, the file is removed (it was never redacted). */
  close(file: string, completed: boolean): Promise<void>;
}

/** What a reporter is built with (src/run/reporters/index.ts). */
export interface ReporterContext {
  /** The run's working directory (the state folder's run/). */
  cwd: string;
  /** Where report files go. */
  reportDir: string;
  /** Where lines for people go (the CLI's output; silent under --quiet/--json). */
  log: (line: string) => void;
  /** Every request and check on the terminal (`--verbose`), not only a line per step. */
  verbose?: boolean;
  /** Redacts every secret the run has seen so far: call it when writing, not when building the reporter. */
  redact: (text: string) => string;
  /** A leg of a run over several API versions (`--api-version 3.1,4.0`): what its page says of the comparison. */
  versionPage?: VersionPage;
}

/** A leg's page in a run over several API versions (src/pipeline/legs.ts decides; the html reporter draws). */
export interface VersionPage {
  /** The leg whose page holds the comparison: given this run's result when it ends, the stage's comparison of it with
   *  the other version's run (computed once, by the stage: src/run/reporters/compare-versions.ts). */
  comparison?: (result: RunResult) => ReportComparison | undefined;
  /** The later leg of a money family's page: what it did on v3.1 beside v4.0 (the payment, the VRP mandate's walk:
   *  src/run/reporters/compare-outcomes.ts). */
  outcomeComparison?: (result: RunResult) => ReportOutcomeComparison | undefined;
  /** A leg whose page does not hold it: the page that does (its version, and the address from this page). */
  comparedIn?: { version: string; href: string };
}

export type ReporterFactory = (context: ReporterContext) => RunSubscriber;
