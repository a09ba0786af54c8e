// The v3.1 / v4.0 comparison (src/run/reporters/compare-versions.ts): what the code mapping explains is no
// difference; anything else is a failed check naming the field and both values. Its mapping tables are the twins of
// the emulator's (src/sandbox/resource/v4-codes.ts).

import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import type { CommandState } from '../../src/cli/context.js';
import { createOutput } from '../../src/cli/output.js';
import { renderVerdict } from '../../src/cli/report.js';
import { API_FAMILIES } from '../../src/api-families.js';
import { isObflowError } from '../../src/errors.js';
import type { ApiVersion } from '../../src/generate/api-versions.js';
import { legsVerdict, summaryOf } from '../../src/pipeline/verdict.js';
import type { RunResult } from '../../src/run/result.js';

import {
  compareVersions,
  formatComparison,
  legOfRun,
  transactionSums,
  V4_FIELD_NAMES,
  V4_VALUES,
  type VersionLeg,
} from '../../src/run/reporters/compare-versions.js';
import { ACCOUNT_CATEGORY, ACCOUNT_TYPE_CODE, BALANCE_TYPE } from '../../src/sandbox/resource/v4-codes.js';
import { accountV4 } from '../../src/sandbox/resource/render-v4.js';

const account = { AccountId: 'a1', Currency: 'GBP', AccountType: 'Personal', AccountSubType: 'CurrentAccount', Nickname: 'Everyday' };
const v31: VersionLeg = {
  version: '3.1',
  accounts: { a1: account },
  balances: { a1: { Amount: '10.00', Currency: 'GBP', CreditDebitIndicator: 'Credit' } },
  transactions: { a1: 240 },
  sums: { a1: '-12.5 GBP' },
};
const v40: VersionLeg = {
  version: '4.0',
  accounts: { a1: accountV4(account) },
  balances: { a1: { Amount: '10.00', Currency: 'GBP', CreditDebitIndicator: 'Credit' } },
  transactions: { a1: 240 },
  sums: { a1: '-12.5 GBP' },
};

describe('compareVersions', () => {
  it('the same bank in both versions: only differences the code mapping explains', () => {
    const comparison = compareVersions(v31, v40);
    expect(comparison.differences).toEqual([]);
    expect(comparison.explained.map((difference) => difference.field)).toEqual(['AccountSubType/AccountTypeCode', 'Balance.Type']);
    expect(comparison.accounts).toEqual([
      {
        account: 'a1',
        balance: { v31: '10.00 GBP (InterimAvailable)', v40: '10.00 GBP (ITAV)' },
        transactions: { v31: '240', v40: '240' },
        sums: { v31: '-12.5 GBP', v40: '-12.5 GBP' },
        oneSided: { v31: [], v40: [] },
      },
    ]);
    expect(formatComparison(comparison)).toContain('✓ no unexplained difference');
  });

  it('a difference the mapping does not explain is a failed check naming the field and both values', () => {
    const drift = { ...v40, balances: { a1: { Amount: '10.01', Currency: 'GBP', CreditDebitIndicator: 'Credit' } } };
    expect(compareVersions(v31, drift).differences).toEqual([{ account: 'a1', field: 'Balance.Amount', v31: '10.00', v40: '10.01' }]);
    const renamed = { ...v40, accounts: { a1: { ...accountV4(account), Nickname: 'Daily' } } };
    expect(formatComparison(compareVersions(v31, renamed))).toContain(
      '✗ a1 Nickname: v3.1 Everyday, v4.0 Daily (not explained by the code mapping)',
    );
    const wrongCode = { ...v40, accounts: { a1: { ...accountV4(account), AccountTypeCode: 'SVGS' } } };
    expect(compareVersions(v31, wrongCode).differences).toEqual([
      { account: 'a1', field: 'AccountSubType/AccountTypeCode', v31: 'CurrentAccount', v40: 'SVGS' },
    ]);
  });

  it('fields and accounts on one side only, and transaction counts, are differences', () => {
    const extra = {
      ...v40,
      accounts: { a1: { ...accountV4(account), OpeningDate: '2020-01-01' }, a2: { AccountId: 'a2' } },
      transactions: { a1: 239 },
    };
    expect(compareVersions(v31, extra).differences).toEqual([
      { account: 'a1', field: 'OpeningDate', v31: '(absent)', v40: '2020-01-01' },
      { account: 'a1', field: 'transactions', v31: '240', v40: '239' },
      { account: 'a2', field: 'account', v31: '(absent)', v40: 'present' },
    ]);
    expect(compareVersions(v31, extra).accounts[0]?.oneSided).toEqual({ v31: [], v40: ['OpeningDate'] });
    const { Nickname: _nickname, ...without } = accountV4(account);
    expect(compareVersions(v31, { ...v40, accounts: { a1: without } }).accounts[0]?.oneSided).toEqual({ v31: ['Nickname'], v40: [] });
  });
});

describe('transactionSums', () => {
  const page = (url: string, transactions: Record<string, unknown>[], status = 200) => ({
    url,
    method: 'GET',
    status,
    json: { Data: { Transaction: transactions } },
  });
  const t = (id: string, amount: string, indicator: string, account = 'a1', currency = 'GBP') => ({
    AccountId: account,
    TransactionId: id,
    CreditDebitIndicator: indicator,
    Amount: { Amount: amount, Currency: currency },
  });
  it("adds each account's pages signed (Debit −), per currency, a transaction read twice once, other answers left out", () => {
    const base = 'https://rs/open-banking/v3.1/aisp/accounts';
    expect(
      transactionSums([
        page(`${base}/a1/transactions`, [t('1', '10.00', 'Credit'), t('2', '0.5', 'Debit')]),
        page(`${base}/a1/transactions?page=2`, [t('3', '0.00001', 'Credit'), t('2', '0.5', 'Debit'), t('4', '3', 'Credit', 'a1', 'EUR')]),
        page(`${base}/a2/transactions`, [t('9', '1.25', 'Debit', 'a2')]),
        // Not transaction pages, or not a 200: not added.
        page(`${base}/a2/transactions`, [t('8', '100.00', 'Credit', 'a2')], 400),
        page('https://rs/open-banking/v3.1/aisp/transactions', [t('7', '100.00', 'Credit', 'a2')]),
        page(`${base}/a2/transactions/x`, [t('6', '100.00', 'Credit', 'a2')]),
      ]),
    ).toEqual({ a1: '3.00 EUR; 9.50001 GBP', a2: '-1.25 GBP' });
  });
  it('a different sum on v4.0 is a failed check naming transactions.sum and both sums', () => {
    expect(compareVersions(v31, { ...v40, sums: { a1: '-12.6 GBP' } }).differences).toEqual([
      { account: 'a1', field: 'transactions.sum', v31: '-12.5 GBP', v40: '-12.6 GBP' },
    ]);
  });
});

it("its mapping tables are the emulator's (twins: the two rooms meet only on the wire)", () => {
  expect(V4_VALUES.AccountType).toEqual(ACCOUNT_CATEGORY);
  expect(V4_VALUES.AccountSubType).toEqual(ACCOUNT_TYPE_CODE);
  expect(V4_VALUES['Balance.Type']?.InterimAvailable).toBe(BALANCE_TYPE.InterimAvailable);
  const renamed = accountV4({ AccountId: 'x', Currency: 'GBP', AccountType: 'Personal', AccountSubType: 'Savings' });
  for (const [from, to] of Object.entries(V4_FIELD_NAMES)) {
    expect(renamed).toHaveProperty(to);
    expect(renamed).not.toHaveProperty(from);
  }
});

/** What the legs stage returns for two finished legs (src/pipeline/legs.ts: compared once, then the verdict), rendered
 *  as the CLI renders it. */
function reportVersionRuns(
  state: CommandState,
  legs: readonly { version: ApiVersion; result: RunResult }[],
  extra: Record<string, unknown> = {},
  options: { allowSkips?: boolean } = {},
): Promise<void> {
  const [a, b] = legs;
  const comparison =
    a !== undefined && b !== undefined ? compareVersions(legOfRun(a.version, a.result), legOfRun(b.version, b.result)) : undefined;
  const outcomes = legs.map(({ version, result }) => ({
    version,
    family: API_FAMILIES.accounts,
    label: `AIS v${version}`,
    result,
    summary: summaryOf(result),
  }));
  return Promise.resolve().then(() => renderVerdict(state, legsVerdict(outcomes, { comparison, ...options }), extra));
}

describe('the verdict of a run over v3.1 and v4.0 (demo/run --api-version 3.1,4.0), as the CLI renders it', () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: '/work' };
  const state: CommandState = { io, output: createOutput(io, { json: false, quiet: true }) };
  const runOf = (leg: VersionLeg, base: string): RunResult => ({
    passed: true,
    steps: [],
    executions: [
      {
        step: 'accounts',
        item: 'accounts: GET /accounts',
        method: 'GET',
        url: `${base}/accounts`,
        status: 200,
        json: { Data: { Account: Object.values(leg.accounts) } },
      },
    ],
    environment: {
      name: 'e',
      values: [
        { key: 'interim_balances', value: JSON.stringify(leg.balances), type: 'default', enabled: true },
        { key: 'transaction_counts', value: JSON.stringify(leg.transactions), type: 'default', enabled: true },
      ],
    } as unknown as RunResult['environment'],
  });

  it('passes the same bank, and ends with ERR_VERSIONS_DIFFER naming the field and both values otherwise', async () => {
    const legs = (other: VersionLeg) => [
      { version: '3.1' as const, result: runOf(v31, 'https://rs/open-banking/v3.1/aisp') },
      { version: '4.0' as const, result: runOf(other, 'https://rs/open-banking/v4.0/aisp') },
    ];
    await expect(reportVersionRuns(state, legs(v40), {})).resolves.toBeUndefined();
    const drift = { ...v40, balances: { a1: { Amount: '10.01', Currency: 'GBP', CreditDebitIndicator: 'Credit' } } };
    const caught: unknown = await reportVersionRuns(state, legs(drift), {}).catch((error: unknown) => error);
    expect(isObflowError(caught) && caught.code).toBe('ERR_VERSIONS_DIFFER');
    expect((caught as Error).message).toContain('account a1 Balance.Amount is 10.00 on v3.1, 10.01 on v4.0');
  });

  it('--json says "passed": false whenever the verdict is a failure: versions that differ, a refused skip', async () => {
    const stdout = new PassThrough();
    const json = { ...io, stdout };
    const machine: CommandState = { io: json, output: createOutput(json, { json: true, quiet: false }) };
    const lastResult = (): { passed?: unknown; comparison?: { differences: unknown[] } } =>
      JSON.parse(
        String(stdout.read() ?? '')
          .trim()
          .split('\n')
          .pop() ?? '{}',
      ) as { passed?: unknown };
    const drift = { ...v40, balances: { a1: { Amount: '10.01', Currency: 'GBP', CreditDebitIndicator: 'Credit' } } };
    const legs = [
      { version: '3.1' as const, result: runOf(v31, 'https://rs/open-banking/v3.1/aisp') },
      { version: '4.0' as const, result: runOf(drift, 'https://rs/open-banking/v4.0/aisp') },
    ];
    const caught: unknown = await reportVersionRuns(machine, legs).catch((error: unknown) => error);
    expect(isObflowError(caught) && caught.code).toBe('ERR_VERSIONS_DIFFER');
    const outcome = lastResult();
    expect(outcome.comparison?.differences).toHaveLength(1);
    expect(outcome.passed).toBe(false);
    await reportVersionRuns(machine, [
      legs[0] as (typeof legs)[number],
      { version: '4.0', result: runOf(v40, 'https://rs/open-banking/v4.0/aisp') },
    ]);
    expect(lastResult().passed).toBe(true);
  });

  it('--no-skips: a step skipped on one version fails the run as ERR_RUN_SKIPPED naming the version; without it, passes', async () => {
    const refresh = {
      name: 'refresh',
      passed: true,
      requests: 0,
      skipped: [{ item: 'refresh: POST token endpoint', reason: 'the bank issued no refresh token' }],
      assertions: { total: 0, failed: 0 },
      failures: [],
      reports: [],
    };
    const legs = [
      { version: '3.1' as const, result: runOf(v31, 'https://rs/open-banking/v3.1/aisp') },
      { version: '4.0' as const, result: { ...runOf(v40, 'https://rs/open-banking/v4.0/aisp'), steps: [refresh] } as RunResult },
    ];
    await expect(reportVersionRuns(state, legs, {}, { allowSkips: true })).resolves.toBeUndefined();
    const caught: unknown = await reportVersionRuns(state, legs, {}, { allowSkips: false }).catch((error: unknown) => error);
    expect(isObflowError(caught) && caught.code).toBe('ERR_RUN_SKIPPED');
    expect((caught as Error).message).toBe('AIS v4.0: step refresh did not run: the bank issued no refresh token');
  });
});
