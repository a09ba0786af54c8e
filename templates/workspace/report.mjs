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
import { assertionRecord, redactSecrets, requestRecord, scriptErrorRecord, SECRET_KEY_PATTERN } from './rules.mjs';

export { ACCOUNTS_LIST, accountLabels, accountsFromValues, foldersOf, itemSteps } from './rules.mjs';

/**
 * @typedef {{ name: string, passed: boolean, message?: string }} ReportAssertion
 * @typedef {{ item: string, method: string, origin: string, path: string, status?: number, ms?: number, error?: string, assertions: ReportAssertion[] }} ReportRequest
 * @typedef {{ name: string, passed: boolean, local?: boolean, ms?: number, requests: ReportRequest[] }} ReportStep
 * @typedef {{ accountId: string, label?: string, balance?: { amount: string, currency: string, creditDebitIndicator: string }, transactions?: number }} ReportAccount
 * @typedef {{ bank: string, profile: string, obflowVersion: string, ranAt: string, runner: string }} ReportMeta
 * @typedef {ReportMeta & { complete?: boolean, order?: string[] }} ReportMetaInput
 * @typedef {ReportMeta & { passed: boolean, steps: ReportStep[], accounts: ReportAccount[], totals: { requests: number, assertions: number, failed: number } }} ReportModel
 */

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
      step = { name, passed: true, requests: [] };
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
      const ordered = [...steps].sort((a, b) => rank(a.name) - rank(b.name));
      const cleanSteps = ordered.map((step) => ({
        ...step,
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
      return {
        ...header,
        passed: cleanSteps.every((step) => step.passed) && complete,
        steps: cleanSteps,
        accounts,
        totals: {
          requests: all.filter((request) => request.method !== '').length,
          assertions: assertions.length,
          failed: assertions.filter((assertion) => !assertion.passed).length,
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
    const record = requestRecord(error, args ?? {});
    collector.request({ ...record, step: stepOf(record.item), error: record.error?.message });
  });
  emitter.on('assertion', (error, args) => {
    const { item, name, status, message } = assertionRecord(error, args ?? {});
    if (status === 'skipped') return;
    collector.assertion({ step: stepOf(item), item, name, passed: status === 'passed', ...(message !== undefined ? { message } : {}) });
  });
  emitter.on('script', (error, args) => {
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

/** The model as one self-contained HTML document (the template sits beside this file). */
export function renderReport(model) {
  template ??= handlebarsWithTiming().compile(readFileSync(new URL('./report.html.hbs', import.meta.url), 'utf8'), { strict: false });
  const view = {
    ...model,
    timing: timingPicture(
      [
        {
          label: '',
          segments: model.steps.map((step) => ({ step: step.name, ms: stepMs(step), status: step.passed ? 'passed' : 'failed' })),
        },
      ],
      { steps: model.steps.map((step) => step.name), title: 'How long each step of the run took' },
    ),
    steps: model.steps.map((step, index) => ({
      ...step,
      number: index + 1,
      failedAssertions: step.requests.reduce((sum, request) => sum + request.assertions.filter((assertion) => !assertion.passed).length, 0),
      requests: step.requests.map((request) => ({
        ...request,
        ok: request.error === undefined && request.assertions.every((assertion) => assertion.passed),
      })),
    })),
    accounts: model.accounts.map((account) => ({
      ...account,
      amount:
        account.balance === undefined
          ? 'n/a'
          : `${account.balance.creditDebitIndicator === 'Debit' ? '−' : ''}${account.balance.amount} ${account.balance.currency}`,
      count: account.transactions === undefined ? 'n/a' : String(account.transactions),
    })),
  };
  return template(view);
}
