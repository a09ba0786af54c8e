// The HTML page of a run (`obflow run --reporters …,html`, src/run/reporters/html.ts; a workspace's run): the typed
// adapter over templates/workspace/report.mjs, the renderer every workspace ships (so obflow and a workspace's run.js
// write the same report). The report model is pure data; its texts are redacted against every secret the run saw before
// it is rendered.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TEMPLATES_DIR } from '../../generate/files.js';
import type { AccountRow, RunOutcomes } from '../../runner-rules.js';
import type { VersionComparison } from './compare-versions.js';
import type { OutcomeComparison, OutcomeComparisonKind } from './compare-outcomes.js';
import { compileTemplate, type CompiledTemplate, type HandlebarsInstance } from './template-cache.js';

export interface ReportAssertion {
  name: string;
  passed: boolean;
  message?: string;
}

export interface ReportRequest {
  item: string;
  method: string;
  origin: string;
  path: string;
  status?: number;
  ms?: number;
  error?: string;
  assertions: ReportAssertion[];
}

/** A step's verdict on the page: every step of the plan is listed, one the run never reached too. */
export type ReportStepStatus = 'passed' | 'failed' | 'skipped' | 'not-reached';

export interface ReportStep {
  name: string;
  passed: boolean;
  status: ReportStepStatus;
  /** Why a skipped step did not run (its first skipped request's reason). */
  skipReason?: string;
  /** The requests a script skipped, with their reasons. */
  skipped: { item: string; reason: string }[];
  local?: boolean;
  /** The step's wall time when the runner knows it (the timing picture adds up request times otherwise). */
  ms?: number;
  requests: ReportRequest[];
}

/** An account the run read (src/runner-rules.ts reads them, for obflow and every workspace alike). */
export type ReportAccount = AccountRow;

/** Besides the accounts, what the run paid and checked, one entry per family (src/runner-rules.ts RunOutcomes): the
 *  payment (ids, amount, statuses and signature counts, no body), the funds checks, the VRP mandate (a payment made past
 *  a limit fails the page). */
export interface ReportMeta extends RunOutcomes {
  bank: string;
  profile: string;
  obflowVersion: string;
  /** ISO 8601 instant the run started. */
  ranAt: string;
  /** What ran the flow: `obflow run`, `obflow demo`, `workspace run.js`. */
  runner: string;
  /** The balance type the run read, as its API version names it (ITAV on AIS v4.0); absent: InterimAvailable. */
  balanceType?: string;
  /** The API and version the run spoke (`AIS v4.0`), named in the page's title and header; absent where the runner
   *  does not say (a workspace's run). */
  api?: string;
  /** A failed run for people: the plain first sentence, what to do (the CLI's hint, src/run/verdict.ts), the technical
   *  lines folded under them. */
  failure?: { step: string; sentence: string; hint: string; detail: string[] };
}

export interface ReportMetaInput extends ReportMeta {
  /** False when the run stopped before its last step (bail): the report then says failed. */
  complete?: boolean;
  /** The steps' order (a local step reports only when it ends). */
  order?: readonly string[];
}

/** A run over both API versions: the later version's page has them side by side, and links the other's page. */
export interface ReportComparison extends VersionComparison {
  other: { version: string; href: string };
}

/** A run over both versions of a money family: the later leg's page has the two outcomes side by side (the payment, the
 *  VRP mandate's walk), in its family row's words. */
export interface ReportOutcomeComparison extends OutcomeComparison {
  other: { version: string; href: string };
}

/** …as the page draws it: the comparison with its family row's title, anchor and note. */
export type ReportOutcomeSection = ReportOutcomeComparison & Pick<OutcomeComparisonKind, 'title' | 'anchor' | 'note'>;

export interface ReportModel extends ReportMeta {
  passed: boolean;
  /** The "v3.1 beside v4.0" section (src/run/reporters/compare-versions.ts); only in a run over both versions, on the
   *  page of the leg that ran last. */
  comparison?: ReportComparison;
  /** …and on the other leg's page, a link to that section. */
  comparedIn?: { version: string; href: string };
  /** What the money family did on v3.1 beside v4.0 (the payment, the VRP mandate's walk), on its later leg's page. */
  outcomeComparisons?: ReportOutcomeSection[];
  steps: ReportStep[];
  accounts: ReportAccount[];
  /** `assertions`: the checks newman counts (what a workspace counts); `localChecks`: obflow's own (id_token). */
  totals: { steps: number; requests: number; assertions: number; localChecks: number; failed: number; skipped: number };
}

/** What a runner feeds the collector (see report.mjs). */
export interface ReportCollector {
  learn(key: unknown, value: unknown): void;
  secret(value: string): void;
  /** Undefined fields are left out of the model. */
  request(event: {
    step: string;
    item: string;
    method: string;
    url: string;
    status?: number | undefined;
    ms?: number | undefined;
    error?: string | undefined;
  }): void;
  assertion(event: { step: string; item: string; name: string; passed: boolean; message?: string }): void;
  skip(event: { step: string; item: string; reason: string }): void;
  step(event: { name: string; local?: boolean; passed?: boolean; ms?: number }): void;
  model(meta: ReportMetaInput, accounts: readonly ReportAccount[]): ReportModel;
}

interface ReportModule {
  createReportCollector(options: {
    secretKeys: Iterable<string>;
    secrets?: Iterable<string>;
    redact?: (text: string) => string;
  }): ReportCollector;
  renderReport(model: ReportModel, compile?: (handlebars: HandlebarsInstance, source: string, options: object) => CompiledTemplate): string;
}

export function reportModuleDir(templatesDir = DEFAULT_TEMPLATES_DIR): string {
  return join(templatesDir, 'workspace');
}

let loaded: Promise<ReportModule> | undefined;

/** handlebars is loaded with it, so only a run that writes HTML pays for it. */
export function loadReportModule(): Promise<ReportModule> {
  loaded ??= import(pathToFileURL(join(reportModuleDir(), 'report.mjs')).href) as Promise<ReportModule>;
  return loaded;
}

export async function renderHtmlReport(model: ReportModel): Promise<string> {
  return (await loadReportModule()).renderReport(model, compileTemplate);
}

/** obflow's own version (package.json beside templates/). */
export function obflowVersion(templatesDir = DEFAULT_TEMPLATES_DIR): string {
  const json = JSON.parse(readFileSync(join(templatesDir, '..', 'package.json'), 'utf8')) as { version?: unknown };
  return typeof json.version === 'string' ? json.version : 'unknown';
}
