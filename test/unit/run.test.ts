// Pure parts of the run: the plan (step order, browser consent slot), the batch collection, the environment coming
// back from newman (secrets stay secret, sorted), and the demo summary (no secrets, InterimAvailable and counts).

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { mergeEnvironment } from '../../src/environment/index.js';
import { isObflowError } from '../../src/errors.js';
import { STEP_NAMES } from '../../src/generate/step-names.js';
import {
  batchCollection,
  buildRunPlan,
  buildRunSummary,
  environmentFromNewman,
  formatRunSummary,
  redactSecrets,
  type RunStep,
  type StepResult,
} from '../../src/run/index.js';
import { removePreviousReports } from '../../src/run/reporters/index.js';
import { tempDirSync } from '../helpers/temp.js';

const collection = (name: string): object => ({
  info: { name },
  item: [{ name: `${name}: GET`, request: { method: 'GET', url: { raw: '{{rs}}/x' } } }],
});
const names = ['discovery', 'psu-consent', 'code-exchange'];
const collections = Object.fromEntries(names.map((name) => [name, collection(name)]));

describe('buildRunPlan', () => {
  it('keeps flow order and slots the consent step after psu-consent', () => {
    const consentStep: RunStep = { name: 'psu-consent-browser', local: async () => ({}) };
    expect(buildRunPlan({ stepNames: names, collections }).map((step) => step.name)).toEqual(names);
    expect(buildRunPlan({ stepNames: names, collections, consentStep }).map((step) => step.name)).toEqual([
      'discovery',
      'psu-consent',
      'psu-consent-browser',
      'code-exchange',
    ]);
    expect(buildRunPlan({ stepNames: names, collections, select: 'code-exchange' }).map((step) => step.name)).toEqual(['code-exchange']);
  });
  it('refuses an unknown step (ERR_STEP_UNKNOWN) and a missing collection (ERR_COLLECTION_INVALID)', () => {
    const code = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return isObflowError(error) ? error.code : 'other';
      }
      return undefined;
    };
    expect(code(() => buildRunPlan({ stepNames: names, collections, select: 'nope' }))).toBe('ERR_STEP_UNKNOWN');
    expect(code(() => buildRunPlan({ stepNames: [...names, 'accounts'], collections }))).toBe('ERR_COLLECTION_INVALID');
  });
});

describe('batchCollection', () => {
  it('puts each step in a folder named after it, items unchanged', () => {
    const batch = batchCollection([
      { name: 'discovery', collection: collections.discovery as object },
      { name: 'psu-consent', collection: collections['psu-consent'] as object },
    ]) as { item: { name: string; item: { name: string }[] }[] };
    expect(batch.item.map((folder) => folder.name)).toEqual(['discovery', 'psu-consent']);
    expect(batch.item[1]?.item[0]?.name).toBe('psu-consent: GET');
  });

  it('carries the collection variables of every step (their JSON schemas), each key once, the first copy kept', () => {
    const step = (key: string, value: string) => ({ item: [], variable: [{ key, value, type: 'string' }] });
    const batch = batchCollection([
      { name: 'accounts', collection: step('schema:obie-accounts', 'a') },
      { name: 'unsupported', collection: { item: [] } },
      {
        name: 'transactions',
        collection: {
          item: [],
          variable: [...step('schema:obie-account-transactions', 't').variable, ...step('schema:obie-accounts', 'b').variable],
        },
      },
    ]) as { variable: unknown[] };
    expect(batch.variable).toEqual([
      { key: 'schema:obie-accounts', value: 'a', type: 'string' },
      { key: 'schema:obie-account-transactions', value: 't', type: 'string' },
    ]);
  });
});

describe('environmentFromNewman', () => {
  const before = mergeEnvironment({
    name: 'n',
    flow: { basicToken: 'abc', rs: 'https://h:1', consent_id: '' },
    secretKeys: ['basicToken'],
  });
  it('keeps secrets secret, types new secret keys by contract or name, drops disabled, sorts, stringifies', () => {
    const after = environmentFromNewman(
      {
        values: [
          { key: 'rs', value: 'https://h:1', type: 'any' },
          { key: 'basicToken', value: 'abc', type: 'any' },
          { key: 'consent_id', value: 'c-1', type: 'any' },
          { key: 'client_credentials_token', value: 'tok', type: 'any' },
          { key: 'access_token', value: 'at', type: 'any' },
          { key: 'transaction_counts', value: { a: 1 }, type: 'any' },
          { key: 'gone', value: 'x', disabled: true },
        ],
      },
      before,
      new Set(['client_credentials_token']),
    );
    expect(after.id).toBe(before.id);
    expect(after.values).toEqual([
      { key: 'access_token', value: 'at', type: 'secret', enabled: true },
      { key: 'basicToken', value: 'abc', type: 'secret', enabled: true },
      { key: 'client_credentials_token', value: 'tok', type: 'secret', enabled: true },
      { key: 'consent_id', value: 'c-1', type: 'default', enabled: true },
      { key: 'rs', value: 'https://h:1', type: 'default', enabled: true },
      { key: 'transaction_counts', value: '{"a":1}', type: 'default', enabled: true },
    ]);
  });
});

describe('buildRunSummary', () => {
  const steps: StepResult[] = ['accounts', 'transactions'].map((name) => ({
    name,
    passed: true,
    requests: 1,
    assertions: { total: 3, failed: 0 },
    failures: [],
    reports: [],
  }));
  const environment = mergeEnvironment({
    name: 'n',
    flow: {
      account_ids: '["111","222"]',
      interim_balances:
        '{"111":{"Amount":"10.50","Currency":"GBP","CreditDebitIndicator":"Credit"},"222":{"Amount":"3.00","Currency":"GBP","CreditDebitIndicator":"Debit"}}',
      transaction_counts: '{"111":240,"222":36}',
      access_token: 'very-secret-token',
    },
  });
  const executions = [
    {
      step: 'accounts',
      item: 'accounts: GET',
      method: 'GET',
      url: 'https://h/open-banking/v3.1/aisp/accounts',
      status: 200,
      json: {
        Data: {
          Account: [
            { AccountId: '111', Nickname: 'Bills' },
            { AccountId: '222', AccountSubType: 'Savings' },
          ],
        },
      },
    },
  ];

  it('lists accounts with InterimAvailable balance, transaction count and label; counts steps', () => {
    // The plan: ten collection steps (not the balances step: the balances are read from this run's state) and one
    // local step of obflow (the token endpoint's id_token check).
    const planned = [...STEP_NAMES.filter((name) => name !== 'account-balances' && name !== 'refresh'), 'id-token-token'];
    const summary = buildRunSummary({ environment, steps, executions, planned });
    expect(summary).toEqual({
      accounts: [
        {
          accountId: '111',
          label: 'Bills',
          balance: { amount: '10.50', currency: 'GBP', creditDebitIndicator: 'Credit' },
          transactions: 240,
        },
        {
          accountId: '222',
          label: 'Savings',
          balance: { amount: '3.00', currency: 'GBP', creditDebitIndicator: 'Debit' },
          transactions: 36,
        },
      ],
      steps: { passed: 2, skipped: 0, total: 11 },
      counted: { collection: 10, local: ['id-token-token'] },
      skips: [],
    });
    const lines = formatRunSummary(summary);
    expect(lines).toEqual([
      '111 Bills: 10.50 GBP (InterimAvailable), 240 transactions',
      '222 Savings: -3.00 GBP (InterimAvailable), 36 transactions',
      'steps passed: 2/11 (10 collection steps + 1 local step of obflow: id-token-token), 0 skipped',
    ]);
    expect(lines.join('\n')).not.toContain('very-secret-token');
    // AIS v4.0 names the same balance by its ISO 20022 code.
    expect(formatRunSummary(summary, '4.0').slice(0, 2)).toEqual([
      '111 Bills: 10.50 GBP (ITAV), 240 transactions',
      '222 Savings: -3.00 GBP (ITAV), 36 transactions',
    ]);
  });

  it('names the failed step and survives missing state', () => {
    const failed = [...steps.slice(0, 1), { ...(steps[1] as StepResult), passed: false }];
    const summary = buildRunSummary({ environment: mergeEnvironment({ name: 'n' }), steps: failed });
    expect(summary).toEqual({
      accounts: [],
      steps: { passed: 1, skipped: 0, total: 2, failed: 'transactions' },
      counted: { collection: 2, local: [] },
      skips: [],
    });
    expect(formatRunSummary(summary)).toEqual(['steps passed: 1/2 (2 collection steps, no local steps), 0 skipped (failed: transactions)']);
  });

  it("a run that stopped before the accounts step lists no accounts: an earlier run's state is not this run's", () => {
    const environment = mergeEnvironment({ name: 'n', flow: { account_ids: '["111"]' } });
    const planned = ['discovery', 'accounts', 'transactions'];
    const discovery = { ...(steps[0] as StepResult), name: 'discovery' };
    expect(buildRunSummary({ environment, steps: [discovery], planned }).accounts).toEqual([]);
    expect(buildRunSummary({ environment, steps: [discovery], planned }).steps.total).toBe(3);
    // A single later step reads the saved state on purpose (`run transactions`).
    expect(buildRunSummary({ environment, steps: [steps[1] as StepResult], planned: ['transactions'] }).accounts).toHaveLength(1);
  });

  it("a run that stopped in the transactions step says its counts are partial; one that never reached a step shows none of an earlier run's values", () => {
    const environment = mergeEnvironment({
      name: 'n',
      flow: {
        account_ids: '["111"]',
        interim_balances: JSON.stringify({ '111': { Amount: '10.50', Currency: 'GBP', CreditDebitIndicator: 'Credit' } }),
        transaction_counts: JSON.stringify({ '111': 300 }),
      },
    });
    const step = (name: string, passed = true): StepResult => ({ ...(steps[0] as StepResult), name, passed });
    const planned = ['accounts', 'account-balances', 'transactions', 'unsupported'];
    // The transactions step began and failed (a page refused, the paging guard, a stop): 300 read, not the account's all.
    const stopped = buildRunSummary({
      environment,
      steps: [step('accounts'), step('account-balances'), step('transactions', false)],
      planned,
    });
    expect(stopped.accounts).toEqual([
      {
        accountId: '111',
        balance: { amount: '10.50', currency: 'GBP', creditDebitIndicator: 'Credit' },
        transactions: 300,
        transactionsPartial: true,
      },
    ]);
    expect(formatRunSummary(stopped)[0]).toBe(
      '111: 10.50 GBP (InterimAvailable), 300 transactions read before the run stopped (not all of them)',
    );
    // Stopped before the balances and transactions steps: their values in the saved environment are an earlier run's.
    const early = buildRunSummary({ environment, steps: [step('accounts', false)], planned });
    expect(early.accounts).toEqual([{ accountId: '111' }]);
    expect(formatRunSummary(early)[0]).toBe('111: balance n/a, transactions n/a');
    // A whole run: the count as read.
    const whole = buildRunSummary({ environment, steps: planned.map((name) => step(name)), planned });
    expect(formatRunSummary(whole)[0]).toBe('111: 10.50 GBP (InterimAvailable), 300 transactions');
  });

  it('counts a step none of whose requests went out as skipped, with its reason, never as passed', () => {
    const skipped: StepResult = {
      ...(steps[1] as StepResult),
      name: 'refresh',
      requests: 0,
      assertions: { total: 0, failed: 0 },
      skipped: [{ item: 'refresh: POST token', reason: 'the bank issued no refresh token' }],
    };
    const summary = buildRunSummary({ environment: mergeEnvironment({ name: 'n' }), steps: [steps[0] as StepResult, skipped] });
    expect(summary.steps).toEqual({ passed: 1, skipped: 1, total: 2 });
    expect(summary.skips).toEqual([{ step: 'refresh', reason: 'the bank issued no refresh token' }]);
    expect(formatRunSummary(summary)).toEqual(['steps passed: 1/2 (2 collection steps, no local steps), 1 skipped (refresh)']);
  });

  it('never reads a value typed secret', () => {
    const secretIds = mergeEnvironment({ name: 'n', flow: { account_ids: '["111"]' }, secretKeys: ['account_ids'] });
    expect(buildRunSummary({ environment: secretIds, steps }).accounts).toEqual([]);
  });
});

describe('redactSecrets', () => {
  const secret = 'eyJhbGciOiJQUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.sig-nature_1';
  it('removes whole values and truncated fragments, and leaves ordinary text', () => {
    expect(redactSecrets(`token ${secret} here`, [secret])).toBe('token [redacted] here');
    expect(redactSecrets(`expected '${secret.slice(0, 24)}…' to deeply equal 'nope'`, [secret])).toBe(
      "expected '[redacted]…' to deeply equal 'nope'",
    );
    expect(redactSecrets('status is 200: transactions page 2', [secret])).toBe('status is 200: transactions page 2');
  });

  it('removes a short secret too (under 8 characters: no fragments of it, the whole value)', () => {
    expect(redactSecrets('pin 1234 goes, as does pw7', ['1234', 'pw7'])).toBe('pin [redacted] goes, as does [redacted]');
  });

  it('redacts a short secret where it stands alone, not inside other tokens (a status, a path, an id keep their digits)', () => {
    expect(redactSecrets('200 GET /accounts/7020 with pin 0 and "0"', ['0'])).toBe(
      '200 GET /accounts/7020 with pin [redacted] and "[redacted]"',
    );
  });
});

describe("removePreviousReports: an earlier run's reports go before a run", () => {
  it("removes obflow's report files of these steps that are there, and nothing else", async () => {
    const dir = tempDirSync('obflow-reports-');
    const ours = ['report.html', 'obflow-run.json', 'discovery.xml', 'discovery--code-exchange.xml', 'psu-consent--code-exchange.xml'];
    const theirs = ['notes.txt', 'accounts.xml', 'discovery--accounts.xml'];
    for (const name of [...ours, ...theirs]) writeFileSync(join(dir, name), name);
    await removePreviousReports(dir, names);
    expect(readdirSync(dir).sort()).toEqual([...theirs].sort());
    await expect(removePreviousReports(join(dir, 'missing'), names)).resolves.toBeUndefined();
  });
});
