// The HTML run report, shared by `obflow run --reporters html` and the workspace's run.js (copied into every workspace,
// so it needs nothing of obflow: plain ES module, handlebars only). One report model (pure data) → one self-contained
// HTML file (inline CSS, no script, no external resource). Secrets never reach the model unredacted: requests are kept
// as method, origin and path (no query, headers or bodies: a request object or a code travels in those), and every
// text that came from a run (assertion and error messages) is redacted against the secrets the run saw.

import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { timingPicture } from './timing.mjs';
// What obflow's own runner does the same way (redaction, secret keys, item → step, accounts and labels, newman's
// assertion and script events) comes from one typed source: rules.mjs, generated from obflow's src/runner-rules.ts.
import {
  assertionRecord,
  createSkipWatch,
  outcomesBroken,
  redactSecrets,
  requestRecord,
  scriptErrorRecord,
  SECRET_KEY_PATTERN,
  vrpLimitText,
} from './rules.mjs';

export {
  ACCOUNTS_LIST,
  accountLabels,
  accountsFromValues,
  foldersOf,
  fundsFromValues,
  itemSteps,
  outcomesFromValues,
  paymentFromValues,
  vrpMandateLines,
} from './rules.mjs';

/**
 * @typedef {{ name: string, passed: boolean, message?: string }} ReportAssertion
 * @typedef {{ item: string, method: string, origin: string, path: string, status?: number, ms?: number, error?: string, assertions: ReportAssertion[] }} ReportRequest
 * @typedef {'passed' | 'failed' | 'skipped' | 'not-reached'} ReportStepStatus
 * @typedef {{ name: string, passed: boolean, status: ReportStepStatus, skipReason?: string, local?: boolean, ms?: number, requests: ReportRequest[], skipped: { item: string, reason: string }[] }} ReportStep
 * @typedef {{ accountId: string, label?: string, balance?: { amount: string, currency: string, creditDebitIndicator: string }, transactions?: number, transactionsPartial?: boolean }} ReportAccount
 * @typedef {{ step: string, sentence: string, hint: string, detail: string[] }} ReportFailure
 * @typedef {{ bank: string, profile: string, obflowVersion: string, ranAt: string, runner: string, failure?: ReportFailure }} ReportMeta
 * @typedef {ReportMeta & { complete?: boolean, order?: string[] }} ReportMetaInput
 * @typedef {ReportMeta & { passed: boolean, steps: ReportStep[], accounts: ReportAccount[], totals: { steps: number, requests: number, assertions: number, localChecks: number, failed: number, skipped: number } }} ReportModel
 */

/** A step's verdict: failed, skipped (it checked nothing: each request skipped, or answered that the bank does not offer
 *  it, with its reason), passed. */
function statusOf(step) {
  if (!step.passed) return 'failed';
  const checked = step.requests.some((request) => request.assertions.length > 0);
  return step.skipped.length > 0 && !checked ? 'skipped' : 'passed';
}

/**
 * Collects a run into the report model. Feed it events (`request`, `assertion`, `step`) from any runner; `learn`
 * adds secrets (values of secret variables) as they appear, and `model()` redacts every text with all of them.
 */
export function createReportCollector(options) {
  const secretKeys = new Set(options.secretKeys);
  const secrets = new Set(options.secrets ?? []);
  /** @type {ReportStep[]} */
  const steps = [];
  const stepNamed = (name) => {
    let step = steps.find((candidate) => candidate.name === name);
    if (step === undefined) {
      step = { name, passed: true, requests: [], skipped: [] };
      steps.push(step);
    }
    return step;
  };
  return {
    /** A variable a script set: a secret when its key is one by contract or by name. */
    learn(key, value) {
      if (typeof key === 'string' && typeof value === 'string' && value !== '' && (secretKeys.has(key) || SECRET_KEY_PATTERN.test(key)))
        secrets.add(value);
    },
    secret(value) {
      if (typeof value === 'string' && value !== '') secrets.add(value);
    },
    request(event) {
      const { origin, path } = safeUrl(event.url);
      const step = stepNamed(event.step);
      if (event.error !== undefined) step.passed = false;
      // The model holds no undefined field (a runner may hand them over): the JSON of a report stays the same.
      const answer = Object.fromEntries(
        ['status', 'ms', 'error'].filter((key) => event[key] !== undefined).map((key) => [key, event[key]]),
      );
      step.requests.push({ item: event.item, method: event.method, origin, path, ...answer, assertions: [] });
    },
    assertion(event) {
      const step = stepNamed(event.step);
      const request = [...step.requests].reverse().find((candidate) => candidate.item === event.item);
      if (!event.passed) step.passed = false;
      const assertion = { name: event.name, passed: event.passed, ...(event.message !== undefined ? { message: event.message } : {}) };
      if (request !== undefined) request.assertions.push(assertion);
      else step.requests.push({ item: event.item, method: '', origin: '', path: '', assertions: [assertion] });
    },
    /** A request a script skipped (pm.execution.skipRequest), with the reason it gave: skipped, neither passed nor failed. */
    skip(event) {
      stepNamed(event.step).skipped.push({ item: event.item, reason: event.reason });
    },
    /** A step that ran without newman (browser consent), or the final verdict of one; `ms` its wall time when the
     *  runner knows it (else the timing picture adds up its requests' times). */
    step(event) {
      const step = stepNamed(event.name);
      if (event.local === true) step.local = true;
      if (event.passed === false) step.passed = false;
      if (typeof event.ms === 'number') step.ms = event.ms;
    },
    /** @returns {ReportModel} */
    model(meta, accounts) {
      const { complete = true, order = [], ...header } = meta;
      // A runner that redacts for its subscribers (obflow's run events) hands its own redact over.
      const clean = options.redact ?? ((text) => redactSecrets(text, secrets));
      const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length);
      // Every step of the plan is listed: one the run never reached says so (it stopped at an earlier failure).
      const reached = new Set(steps.map((step) => step.name));
      const unreached = order
        .filter((name) => !reached.has(name))
        .map((name) => ({ name, passed: false, requests: [], skipped: [], unreached: true }));
      const ordered = [...steps, ...unreached].sort((a, b) => rank(a.name) - rank(b.name));
      const cleanSteps = ordered.map(({ unreached: notReached, ...step }) => ({
        ...step,
        status: notReached === true ? 'not-reached' : statusOf(step),
        ...(step.skipped.length > 0 ? { skipReason: clean(step.skipped[0].reason) } : {}),
        skipped: step.skipped.map((skip) => ({ item: clean(skip.item), reason: clean(skip.reason) })),
        requests: step.requests.map((request) => ({
          ...request,
          item: clean(request.item),
          path: clean(request.path),
          ...(request.error !== undefined ? { error: clean(request.error) } : {}),
          assertions: request.assertions.map((assertion) => ({
            ...assertion,
            name: clean(assertion.name),
            ...(assertion.message !== undefined ? { message: clean(assertion.message) } : {}),
          })),
        })),
      }));
      const all = cleanSteps.flatMap((step) => step.requests);
      const assertions = all.flatMap((request) => request.assertions);
      // Checks are counted as newman counts them (its assertions: what a workspace's guide counts too); obflow's own
      // local checks (the id_token verification) are counted apart.
      const local = cleanSteps
        .filter((step) => step.local === true)
        .flatMap((step) => step.requests.flatMap((request) => request.assertions));
      const skippedSteps = cleanSteps.filter((step) => step.status === 'skipped');
      return {
        ...header,
        ...(header.failure !== undefined
          ? {
              failure: {
                step: header.failure.step,
                sentence: clean(header.failure.sentence),
                hint: clean(header.failure.hint),
                detail: header.failure.detail.map(clean),
              },
            }
          : {}),
        // A payment made past a VRP limit fails the page whatever the checks said (rules.mjs outcomesBroken).
        passed: cleanSteps.every((step) => step.status !== 'failed') && (complete || unreached.length === 0) && !outcomesBroken(header),
        steps: cleanSteps,
        accounts,
        totals: {
          steps: cleanSteps.length,
          requests: all.filter((request) => request.method !== '').length,
          assertions: assertions.length - local.length,
          localChecks: local.length,
          failed: assertions.filter((assertion) => !assertion.passed).length,
          skipped: skippedSteps.length,
        },
      };
    },
  };
}

/** Origin and path only: the query of a consent URL carries the request object; a path never carries a secret. */
function safeUrl(raw) {
  try {
    const url = new URL(raw);
    return { origin: url.origin, path: url.pathname };
  } catch {
    return { origin: '', path: String(raw).replace(/[?#].*$/, '') };
  }
}

/** Subscribes a collector to one `newman.run` emitter. `stepOf` maps an item name to its step. */
export function attachNewman(emitter, collector, stepOf) {
  // newman shows a skipped request only as an item that ended without one (rules.mjs createSkipWatch).
  const skips = createSkipWatch();
  emitter.on('beforeItem', (_error, args) => skips.begin(args?.item?.name ?? ''));
  emitter.on('console', (_error, args) => skips.console(args?.messages ?? []));
  emitter.on('item', () => {
    const skipped = skips.end();
    if (skipped !== undefined) collector.skip({ step: stepOf(skipped.item), ...skipped });
  });
  const learnScope = (_error, args) => {
    for (const execution of args?.executions ?? []) {
      const values = execution.result?.environment?.values;
      const visit = (entry) => collector.learn(entry.key, entry.value);
      if (Array.isArray(values)) values.forEach(visit);
      else if (typeof values?.each === 'function') values.each(visit);
    }
  };
  emitter.on('prerequest', learnScope);
  emitter.on('test', learnScope);
  emitter.on('request', (error, args) => {
    skips.request();
    const record = requestRecord(error, args ?? {});
    collector.request({ ...record, step: stepOf(record.item), error: record.error?.message });
  });
  emitter.on('assertion', (error, args) => {
    skips.asserted();
    if (error !== null && error !== undefined) skips.failed();
    const { item, name, status, message } = assertionRecord(error, args ?? {});
    if (status === 'skipped') return;
    collector.assertion({ step: stepOf(item), item, name, passed: status === 'passed', ...(message !== undefined ? { message } : {}) });
  });
  emitter.on('script', (error, args) => {
    if (error !== null && error !== undefined) skips.failed();
    const record = scriptErrorRecord(error, args ?? {});
    if (record === undefined) return;
    collector.assertion({
      step: stepOf(record.item),
      item: record.item,
      name: `${record.listen} script: ${record.name}`,
      passed: false,
      message: record.message,
    });
  });
}

/** A step's time: its wall time when the runner gave it, else the sum of its requests' times. */
export function stepMs(step) {
  return step.ms ?? step.requests.reduce((sum, request) => sum + (request.ms ?? 0), 0);
}

/** A Handlebars instance with the timing picture's partials (timing.svg.hbs, timing.css beside this file). */
export function handlebarsWithTiming() {
  const handlebars = Handlebars.create();
  handlebars.registerPartial('timing', readFileSync(new URL('./timing.svg.hbs', import.meta.url), 'utf8'));
  handlebars.registerPartial('timingCss', readFileSync(new URL('./timing.css', import.meta.url), 'utf8'));
  return handlebars;
}

let template;

const STATUS_TEXT = { passed: 'passed', failed: 'failed', skipped: 'skipped', 'not-reached': 'not reached' };
const STATUS_PILL = { passed: 'ok', failed: 'bad', skipped: 'idle', 'not-reached': 'idle' };

/** `2026-11-25 19:14 UTC`: what the page says until the reader's browser puts the time in their own zone (and what it
 *  keeps saying without script). */
export function utcText(iso) {
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return String(iso);
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Handlebars' own compile: the template from its source. */
function compileFromSource(handlebars, source, options) {
  return handlebars.compile(source, options);
}

/** The model as one self-contained HTML document (the template sits beside this file). `compile` makes the template
 *  from the Handlebars instance (partials registered), the source and the options, once per process: from source here,
 *  and obflow passes one that keeps the compiled template between runs (its src/run/reporters/template-cache.ts). */
export function renderReport(model, compile = compileFromSource) {
  template ??= compile(handlebarsWithTiming(), readFileSync(new URL('./report.html.hbs', import.meta.url), 'utf8'), { strict: false });
  const count = (status) => model.steps.filter((step) => step.status === status).length;
  const view = {
    ...model,
    ranAtText: utcText(model.ranAt),
    counts: { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), notReached: count('not-reached') },
    timing: timingPicture(
      [
        {
          label: '',
          segments: model.steps.map((step) => ({ step: step.name, ms: stepMs(step), status: step.status })),
        },
      ],
      { steps: model.steps.map((step) => step.name), title: 'How long each step of the run took' },
    ),
    steps: model.steps.map((step, index) => ({
      ...step,
      number: index + 1,
      statusText: STATUS_TEXT[step.status] ?? step.status,
      pill: STATUS_PILL[step.status] ?? 'idle',
      open: step.status === 'failed',
      notReached: step.status === 'not-reached',
      failedAssertions: step.requests.reduce((sum, request) => sum + request.assertions.filter((assertion) => !assertion.passed).length, 0),
      requests: step.requests.map((request) => ({
        ...request,
        ok: request.error === undefined && request.assertions.every((assertion) => assertion.passed),
      })),
    })),
    ...(model.payment !== undefined ? { payment: { ...model.payment, fundsKnown: model.payment.fundsAvailable !== undefined } } : {}),
    // The mandate as a person reads it: each limit, what the run used of it, which payment hit it (rules.mjs).
    ...(model.vrp !== undefined
      ? {
          vrp: {
            ...model.vrp,
            limits: model.vrp.limits.map((limit) => ({ ...limit, use: vrpLimitText(limit), broken: limit.madePast.length > 0 })),
          },
        }
      : {}),
    ...(model.outcomeComparisons !== undefined
      ? {
          outcomeComparisons: model.outcomeComparisons.map((comparison) => ({
            ...comparison,
            rows: comparison.rows.map((row) => ({
              ...row,
              different: row.verdict === 'different',
              explained: row.verdict === 'explained',
            })),
          })),
        }
      : {}),
    accounts: model.accounts.map((account) => ({
      ...account,
      amount:
        account.balance === undefined
          ? 'n/a'
          : `${account.balance.creditDebitIndicator === 'Debit' ? '−' : ''}${account.balance.amount} ${account.balance.currency}`,
      count:
        account.transactions === undefined
          ? 'n/a'
          : account.transactionsPartial === true
            ? `${account.transactions} (read before the run stopped: not all)`
            : String(account.transactions),
    })),
  };
  return template(view);
}
