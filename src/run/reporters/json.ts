// The `json` reporter: one JSON file per run (`<reports>/obflow-run.json`) for machines and people's tools — the
// target, every step with its requests (status, timing, size, transport failure) and each request's assertions, and
// the verdict. No headers, no bodies, no state or nonce of the consent URL. Built from redacted events, then passed
// through the run's redaction once more when written (a secret first seen after an event went out: src/run/events.ts).

import { join } from 'node:path';
import { writeFileAtomic } from '../../fs.js';
import { REDACTED } from '../redaction.js';
import type { AssertionEvent, ReporterFactory, RequestEvent, RunEvent, RunStartEvent, RunTargetInfo, StepKind } from '../events.js';
import { skipReasonOf, stepStatus } from '../result.js';
import { failureSummary } from '../verdict.js';
import { buildRunSummary, outcomesOf } from '../summary.js';
import type { RunOutcomes } from '../../runner-rules.js';

export const JSON_REPORT_FILE = 'obflow-run.json';

/** A request as the report keeps it: the event without its type, step and body, with its assertions. */
export type JsonReportRequest = Omit<RequestEvent, 'type' | 'step' | 'json'> & {
  assertions: { name: string; status: AssertionEvent['status']; message?: string }[];
};

export interface JsonReportStep {
  name: string;
  kind: StepKind;
  /** The step's verdict: passed, failed, skipped (none of its requests went out: `skipReason` says why) or not-reached
   *  (the run stopped at an earlier failure). A skipped step has no `passed`. Always written; absent in reports of
   *  obflow before 2026-11 (read `passed` there: undefined meant not reached). */
  status?: 'passed' | 'failed' | 'skipped' | 'not-reached';
  skipReason?: string;
  startedAt?: string;
  finishedAt?: string;
  passed?: boolean;
  assertions?: { total: number; failed: number };
  requests: JsonReportRequest[];
  /** Assertions of an item before its request went (pre-request tests). */
  preRequestAssertions: { item: string; name: string; status: AssertionEvent['status']; message?: string }[];
  /** Scripts that threw outside pm.test. */
  scriptErrors: { item: string; listen: string; name: string; message: string }[];
  /** Requests a script skipped, with the reason it gave (absent when none was). */
  skipped?: { item: string; reason: string }[];
}

/** The file's shape (`version` moves when a field changes meaning; new fields are added without it). */
/** Besides the steps: what the run paid and checked, one entry per family (src/runner-rules.ts RunOutcomes): `payment`
 *  (ids, amount, payee, statuses, signatures made and verified), `funds` (each amount and whether the bank said it was
 *  available), `vrp` (the mandate: each limit, what the run used of it, the payments refused or made past it). */
export interface JsonReport extends RunOutcomes {
  version: 1;
  startedAt: string;
  finishedAt?: string;
  target?: RunTargetInfo;
  origins: string[];
  passed?: boolean;
  failedStep?: string;
  /** A failed run for people, as the CLI says it (src/run/verdict.ts): where it stopped and whose side, and what to do. */
  failure?: { step: string; sentence: string; hint: string };
  steps: JsonReportStep[];
}

/** The consent URL's parameters that bind the response to this request (OAuth 2.0 §10.12 state, OIDC Core §3.1.2.1
 *  nonce) and the request object carrying both: a report that outlives the run keeps their names, not their values. */
const CONSENT_BINDINGS = ['state', 'nonce', 'request'] as const;

/** `url` with the values of CONSENT_BINDINGS in its query replaced by `[redacted]` (anything else as it was). */
export function withoutConsentBindings(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (!CONSENT_BINDINGS.some((name) => parsed.searchParams.has(name))) return url;
  for (const name of CONSENT_BINDINGS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, REDACTED);
  return parsed.href;
}

/** The report built from a run's events (pure: events in, report out). */
export function buildJsonReport(events: readonly RunEvent[]): JsonReport {
  const start = events.find((event): event is RunStartEvent => event.type === 'start');
  const report: JsonReport = {
    version: 1,
    startedAt: start?.startedAt ?? '',
    ...(start?.target !== undefined ? { target: start.target } : {}),
    origins: start?.origins ?? [],
    steps: (start?.steps ?? []).map((step) => ({
      name: step.name,
      kind: step.kind,
      status: 'not-reached' as const,
      requests: [],
      preRequestAssertions: [],
      scriptErrors: [],
    })),
  };
  const stepOf = (name: string): JsonReportStep => {
    let step = report.steps.find((candidate) => candidate.name === name);
    if (step === undefined) {
      step = { name, kind: 'collection', status: 'not-reached', requests: [], preRequestAssertions: [], scriptErrors: [] };
      report.steps.push(step);
    }
    return step;
  };
  for (const event of events) {
    switch (event.type) {
      case 'step': {
        const step = stepOf(event.step);
        if (event.phase === 'begin') step.startedAt = event.at;
        else {
          const status = stepStatus(event.result);
          Object.assign(step, {
            status,
            ...(status === 'skipped' ? { skipReason: skipReasonOf(event.result) } : { passed: event.result.passed }),
            finishedAt: event.at,
            assertions: event.result.assertions,
          });
        }
        break;
      }
      case 'skip': {
        const step = stepOf(event.step);
        step.skipped = [...(step.skipped ?? []), { item: event.item, reason: event.reason }];
        break;
      }
      case 'request': {
        const { type: _type, step, json: _json, ...request } = event;
        stepOf(step).requests.push({ ...request, url: withoutConsentBindings(request.url), assertions: [] });
        break;
      }
      case 'assertion': {
        // An item's tests run after its request: they belong to the latest request of that item.
        const request = stepOf(event.step).requests.findLast((candidate) => candidate.item === event.item);
        const assertion = { name: event.name, status: event.status, ...(event.message !== undefined ? { message: event.message } : {}) };
        if (request !== undefined) request.assertions.push(assertion);
        else stepOf(event.step).preRequestAssertions.push({ item: event.item, ...assertion });
        break;
      }
      case 'script':
        stepOf(event.step).scriptErrors.push({ item: event.item, listen: event.listen, name: event.name, message: event.message });
        break;
      case 'done': {
        const failure = failureSummary(event.result, 'the failed step in this run’s report');
        const summary = buildRunSummary({
          environment: event.result.environment,
          steps: event.result.steps,
          ...(event.result.planned !== undefined ? { planned: event.result.planned } : {}),
        });
        Object.assign(report, {
          ...outcomesOf(summary),
          finishedAt: event.finishedAt,
          passed: event.result.passed,
          ...(event.result.failedStep !== undefined ? { failedStep: event.result.failedStep } : {}),
          ...(failure !== undefined ? { failure: { step: failure.step, sentence: failure.sentence, hint: failure.hint } } : {}),
        });
        break;
      }
      default:
    }
  }
  return report;
}

export const createJsonReporter: ReporterFactory = (context) => {
  const events: RunEvent[] = [];
  return {
    onEvent(event) {
      events.push(event);
    },
    async finish() {
      const file = join(context.reportDir, JSON_REPORT_FILE);
      await writeFileAtomic(file, context.redact(`${JSON.stringify(buildJsonReport(events), null, 2)}\n`), { secret: true });
      return [file];
    },
  };
};
