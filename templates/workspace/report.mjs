// The HTML run report, shared by `obflow run --reporters html` and the workspace's run.js (copied into every workspace,
// so it needs nothing of obflow: plain ES module, handlebars only). One report model (pure data) → one self-contained
// HTML file (inline CSS, no script, no external resource). Secrets never reach the model unredacted: requests are kept
// as method, origin and path (no query, headers or bodies: a request object or a code travels in those), and every
// text that came from a run (assertion and error messages) is redacted against the secrets the run saw.

import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';

/**
 * @typedef {{ name: string, passed: boolean, message?: string }} ReportAssertion
 * @typedef {{ item: string, method: string, origin: string, path: string, status?: number, ms?: number, error?: string, assertions: ReportAssertion[] }} ReportRequest
 * @typedef {{ name: string, passed: boolean, local?: boolean, requests: ReportRequest[] }} ReportStep
 * @typedef {{ accountId: string, label?: string, balance?: { amount: string, currency: string, creditDebitIndicator: string }, transactions?: number }} ReportAccount
 * @typedef {{ bank: string, profile: string, obflowVersion: string, ranAt: string, runner: string }} ReportMeta
 * @typedef {ReportMeta & { complete?: boolean, order?: string[] }} ReportMetaInput
 * @typedef {ReportMeta & { passed: boolean, steps: ReportStep[], accounts: ReportAccount[], totals: { requests: number, assertions: number, failed: number } }} ReportModel
 */

/** Replaces every secret with `[redacted]`, and runs of ≥ 8 token characters cut from one (chai truncates long values
 *  in its messages, which would still leak a prefix). Same rule as obflow's runner (src/run/redaction.ts). */
export function redact(text, secrets) {
  const ordered = [...secrets].filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of ordered) out = out.split(secret).join('[redacted]');
  return out.replace(/[A-Za-z0-9._~+/=-]{8,}/g, (run) => (ordered.some((secret) => secret.includes(run)) ? '[redacted]' : run));
}

/** Item name → step (folder) name of a whole-flow collection or of step collections: newman's `request` event hands
 *  out the item without its parent. Item names are unique across the flow (setNextRequest relies on it). */
export function itemSteps(steps) {
  const map = new Map();
  const visit = (items, step) => {
    if (!Array.isArray(items)) return;
    for (const item of items) {
      if (typeof item.name === 'string') map.set(item.name, step);
      visit(item.item, step);
    }
  };
  for (const step of steps) visit(step.collection.item, step.name);
  return map;
}

/** The steps of a whole-flow collection (one folder per step), as itemSteps takes them. */
export function foldersOf(collection) {
  return (collection.item ?? []).map((folder) => ({ name: folder.name, collection: folder }));
}

/**
 * Collects a run into the report model. Feed it events (`request`, `assertion`, `step`) from any runner; `learn`
 * adds secrets (values of secret variables) as they appear, and `model()` redacts every text with all of them.
 */
export function createReportCollector(options) {
  const secretKeys = new Set(options.secretKeys);
  const secretPattern =
    /(secret|password|passphrase|private_?key|signing_?key|client_?assertion|basicToken|access_?token|refresh_?token|id_?token|auth_?code|^code$)/i;
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
      if (typeof key === 'string' && typeof value === 'string' && value !== '' && (secretKeys.has(key) || secretPattern.test(key)))
        secrets.add(value);
    },
    secret(value) {
      if (typeof value === 'string' && value !== '') secrets.add(value);
    },
    request(event) {
      const url = safeUrl(event.url);
      const step = stepNamed(event.step);
      if (event.error !== undefined) step.passed = false;
      step.requests.push({
        item: event.item,
        method: event.method,
        origin: url.origin,
        path: url.path,
        ...(event.status !== undefined ? { status: event.status } : {}),
        ...(event.ms !== undefined ? { ms: event.ms } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
        assertions: [],
      });
    },
    assertion(event) {
      const step = stepNamed(event.step);
      const request = [...step.requests].reverse().find((candidate) => candidate.item === event.item);
      if (!event.passed) step.passed = false;
      const assertion = { name: event.name, passed: event.passed, ...(event.message !== undefined ? { message: event.message } : {}) };
      if (request !== undefined) request.assertions.push(assertion);
      else step.requests.push({ item: event.item, method: '', origin: '', path: '', assertions: [assertion] });
    },
    /** A step that ran without newman (browser consent), or the final verdict of one. */
    step(event) {
      const step = stepNamed(event.name);
      if (event.local === true) step.local = true;
      if (event.passed === false) step.passed = false;
    },
    /** @returns {ReportModel} */
    model(meta, accounts) {
      const { complete = true, order = [], ...header } = meta;
      // A runner that redacts for its subscribers (obflow's run events) hands its own redact over.
      const clean = options.redact ?? ((text) => redact(text, secrets));
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
    const item = args?.item?.name ?? '';
    collector.request({
      step: stepOf(item),
      item,
      method: args?.request?.method ?? 'GET',
      url: args?.request?.url?.toString() ?? '',
      ...(args?.response?.code !== undefined ? { status: args.response.code } : {}),
      ...(typeof args?.response?.responseTime === 'number' ? { ms: args.response.responseTime } : {}),
      ...(error ? { error: error.message ?? String(error) } : {}),
    });
  });
  emitter.on('assertion', (error, args) => {
    if (args?.skipped === true) return;
    const item = args?.item?.name ?? '';
    collector.assertion({
      step: stepOf(item),
      item,
      name: args?.assertion ?? '',
      passed: !error,
      ...(error ? { message: error.message ?? '' } : {}),
    });
  });
  emitter.on('script', (error, args) => {
    if (!error) return;
    const item = args?.item?.name ?? '';
    collector.assertion({
      step: stepOf(item),
      item,
      name: `${args?.event?.listen ?? ''} script: ${error.name ?? 'error'}`,
      passed: false,
      message: error.message ?? '',
    });
  });
}

/** The accounts the run read, from the non-secret state variables the steps write (docs/collections.md) and the
 *  accounts list body's nicknames (labels: AccountId → label). */
export function accountsFromEnvironment(values, labels = new Map()) {
  const get = (key) => {
    const entry = values.find((candidate) => candidate.key === key && candidate.type !== 'secret');
    try {
      return entry === undefined || entry.value === '' ? undefined : JSON.parse(entry.value);
    } catch {
      return undefined;
    }
  };
  const ids = get('account_ids');
  const balances = get('interim_balances') ?? {};
  const counts = get('transaction_counts') ?? {};
  return (Array.isArray(ids) ? ids.filter((id) => typeof id === 'string') : []).map((accountId) => {
    const balance = balances[accountId];
    return {
      accountId,
      ...(labels.has(accountId) ? { label: labels.get(accountId) } : {}),
      ...(balance !== undefined && typeof balance.Amount === 'string'
        ? {
            balance: {
              amount: balance.Amount,
              currency: String(balance.Currency ?? ''),
              creditDebitIndicator: String(balance.CreditDebitIndicator ?? ''),
            },
          }
        : {}),
      ...(typeof counts[accountId] === 'number' ? { transactions: counts[accountId] } : {}),
    };
  });
}

let template;

/** The model as one self-contained HTML document (the template sits beside this file). */
export function renderReport(model) {
  template ??= Handlebars.create().compile(readFileSync(new URL('./report.html.hbs', import.meta.url), 'utf8'), { strict: false });
  const view = {
    ...model,
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
