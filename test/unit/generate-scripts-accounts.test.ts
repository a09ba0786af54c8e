// The accounts scripts, run as rendered in a vm with the pm double (test/helpers/script-double.ts): balances
// (InterimAvailable only), transactions paging through Links.Next (foreign page links fail), and AIS v4.0's ITAV
// balances and error answers by the code set.

import { describe, expect, it } from 'vitest';
import { buildCollections, FLOW_FILE_NAME } from '../../src/generate/collections.js';
import { loadTemplates } from '../../src/generate/templates.js';
import type { PmItem, Run } from '../helpers/script-double.js';
import { script, SENT_ID, run, BANK } from '../helpers/script-double.js';

describe('balances: InterimAvailable only', () => {
  const balance = (type: string, accountId = 'acc-1') => ({
    AccountId: accountId,
    Amount: { Amount: '10.00', Currency: 'GBP' },
    CreditDebitIndicator: 'Credit',
    Type: type,
    DateTime: '2026-11-22T00:00:00+00:00',
  });
  const env = { ...BANK, account_ids: '["acc-1","acc-2"]', account_index: '0', account_id: 'acc-1' };
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const body = (balances: unknown[]) => ({
    Data: { Balance: balances },
    Links: { Self: 'https://rs.example:8443/open-banking/v3.1/aisp/accounts/acc-1/balances' },
    Meta: { TotalPages: 1 },
  });
  const test = script('account-balances: GET /accounts/{AccountId}/balances', 'test');

  it('passes InterimAvailable, records it and loops to the next account', () => {
    const result = run(test, { env, response: { code: 200, headers, body: body([balance('InterimAvailable')]) } });
    expect(result.failed()).toEqual([]);
    expect(JSON.parse(result.env.get('interim_balances') ?? '{}')).toEqual({
      'acc-1': { Amount: '10.00', Currency: 'GBP', CreditDebitIndicator: 'Credit' },
    });
    expect(result.next).toBe('account-balances: GET /accounts/{AccountId}/balances');
    expect(result.env.get('account_index')).toBe('1');
    const last = run(test, {
      env: { ...env, account_index: '1', account_id: 'acc-2' },
      response: { code: 200, headers, body: body([balance('InterimAvailable', 'acc-2')]) },
    });
    expect(last.next).toBeUndefined();
    expect(last.env.get('account_index')).toBe('');
  });

  it('fails a balance of another type or of another account', () => {
    expect(
      run(test, { env, response: { code: 200, headers, body: body([balance('InterimAvailable'), balance('ClosingBooked')]) } }).failed(),
    ).toEqual(['every balance is InterimAvailable']);
    expect(run(test, { env, response: { code: 200, headers, body: body([balance('InterimAvailable', 'acc-2')]) } }).failed()).toEqual([
      'every balance belongs to the account asked for',
    ]);
  });

  it('GET /balances: fails a missing account or a disagreeing amount', () => {
    const all = script('all-balances: GET /balances', 'test');
    const recorded = JSON.stringify({ 'acc-1': { Amount: '10.00', Currency: 'GBP', CreditDebitIndicator: 'Credit' } });
    const ok = run(all, {
      env: { ...env, interim_balances: recorded },
      response: { code: 200, headers, body: body([balance('InterimAvailable'), balance('InterimAvailable', 'acc-2')]) },
    });
    expect(ok.failed()).toEqual([]);
    expect(
      run(all, {
        env: { ...env, interim_balances: recorded },
        response: { code: 200, headers, body: body([balance('InterimAvailable')]) },
      }).failed(),
    ).toEqual(['balances cover exactly the consented accounts']);
    const other = { ...balance('InterimAvailable'), Amount: { Amount: '11.00', Currency: 'GBP' } };
    expect(
      run(all, {
        env: { ...env, interim_balances: recorded },
        response: { code: 200, headers, body: body([other, balance('InterimAvailable', 'acc-2')]) },
      }).failed(),
    ).toEqual(["each balance equals the account's own balances read"]);
  });
});

describe('transactions: paging through Links.Next', () => {
  const item = 'transactions: GET /accounts/{AccountId}/transactions';
  const pre = script(item, 'prerequest');
  const test = script(item, 'test');
  const base = 'https://rs.example:8443/open-banking/v3.1/aisp/accounts/acc-1/transactions';
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const txn = (i: number, accountId = 'acc-1') => ({
    AccountId: accountId,
    TransactionId: `t${i}`,
    Amount: { Amount: '1.00', Currency: 'GBP' },
    CreditDebitIndicator: 'Debit',
    Status: 'Booked',
    BookingDateTime: '2026-11-01T10:00:00+00:00',
  });
  const page = (n: number, total: number, count = 100, links: Record<string, string | undefined> = {}) => ({
    Data: { Transaction: Array.from({ length: count }, (_, i) => txn(n * 1000 + i)) },
    Links: JSON.parse(
      JSON.stringify({
        Self: `${base}?page=${n}`,
        First: `${base}?page=1`,
        Last: `${base}?page=${total}`,
        ...(n < total ? { Next: `${base}?page=${n + 1}` } : {}),
        ...(n > 1 ? { Prev: `${base}?page=${n - 1}` } : {}),
        ...links,
      }),
    ) as Record<string, string>,
    Meta: { TotalPages: total },
  });
  const start = {
    ...BANK,
    account_ids: '["acc-1","acc-2"]',
    account_index: '',
    account_id: '',
    transaction_counts: '',
  };

  /** Runs pre-request then test for each page the fake bank serves, following setNextRequest like newman. */
  function walk(
    serve: (requestUrl: string, env: Map<string, string>) => unknown,
    env: Record<string, string> = start,
    limit = 50,
  ): { runs: Run[]; env: Map<string, string> } {
    let state = { ...env };
    const runs: Run[] = [];
    for (let i = 0; i < limit; i += 1) {
      const before = run(pre, { env: state, requestUrl: `{{rs}}/open-banking/v3.1/aisp/accounts/${'{{account_id}}'}/transactions` });
      const accountId = before.env.get('account_id') ?? '';
      const requested = before.requestUrl.includes('{{')
        ? `https://rs.example:8443/open-banking/v3.1/aisp/accounts/${accountId}/transactions`
        : before.requestUrl;
      const echo = { ...headers, 'x-fapi-interaction-id': SENT_ID };
      const after = run(test, {
        env: Object.fromEntries(before.env),
        requestUrl: requested,
        response: { code: 200, headers: echo, body: serve(requested, before.env) },
      });
      runs.push(after);
      state = Object.fromEntries(after.env);
      if (after.next !== item) break;
    }
    return { runs, env: new Map(Object.entries(state)) };
  }
  const pageOf = (requested: string): number => Number(new URL(requested).searchParams.get('page') ?? '1');
  const forAccount = (requested: string): string => requested.split('/accounts/')[1]?.split('/')[0] ?? '';
  const serveOf =
    (totals: Record<string, number>, tweak: (p: ReturnType<typeof page>, n: number) => unknown = (p) => p) =>
    (requested: string) => {
      const account = forAccount(requested);
      const n = pageOf(requested);
      const body = page(n, totals[account] ?? 1, n === totals[account] ? 7 : 100);
      const localised = JSON.parse(
        JSON.stringify(body).replaceAll('/acc-1/', `/${account}/`).replaceAll('"acc-1"', `"${account}"`),
      ) as ReturnType<typeof page>;
      return tweak(localised, n);
    };

  it('reads every page of every account, then stops; counts transactions; leaves no loop state', () => {
    const { runs, env } = walk(serveOf({ 'acc-1': 3, 'acc-2': 1 }));
    expect(runs).toHaveLength(4);
    expect(runs.flatMap((r) => r.failed())).toEqual([]);
    expect(JSON.parse(env.get('transaction_counts') ?? '{}')).toEqual({ 'acc-1': 207, 'acc-2': 7 });
    for (const key of ['transactions_next_url', 'transactions_seen_urls', 'transactions_page', 'account_index', 'account_id'])
      expect(env.get(key), key).toBe('');
    expect(runs[1]?.requestUrl).toBe(`${base}?page=2`);
  });

  it('fails a page link to another origin or path', () => {
    const { runs } = walk(
      serveOf({ 'acc-1': 2, 'acc-2': 1 }, (p, n) =>
        n === 1
          ? { ...p, Links: { ...p.Links, Next: 'https://elsewhere.example/open-banking/v3.1/aisp/accounts/acc-1/transactions?page=2' } }
          : p,
      ),
    );
    expect(runs[0]?.failed()).toEqual(["page 1: links are absolute, on the first page's origin and path"]);
    // …and the token is not sent there: the loop moves on to the next account instead of following it.
    expect(runs[1]?.requestUrl).toBe('https://rs.example:8443/open-banking/v3.1/aisp/accounts/acc-2/transactions');
    const relative = walk(
      serveOf({ 'acc-1': 1, 'acc-2': 1 }, (p) => ({
        ...p,
        Links: { ...p.Links, Self: '/open-banking/v3.1/aisp/accounts/acc-1/transactions' },
      })),
    );
    // A relative link also breaks the schema (Links.Self is format uri): both fail.
    expect(relative.runs[0]?.failed()).toContain("page 1: links are absolute, on the first page's origin and path");
  });

  it('fails a Next that repeats a page, and does not loop on it', () => {
    const { runs } = walk(
      serveOf({ 'acc-1': 3, 'acc-2': 1 }, (p, n) => (n === 2 ? { ...p, Links: { ...p.Links, Next: `${base}?page=1` } } : p)),
    );
    expect(runs[1]?.failed()).toContain('page 2: Links.Next is not a page already read');
    expect(runs).toHaveLength(3); // page 1, page 2 (repeat detected → next account), acc-2
  });

  it('fails a last page that still has Next, and a page that lacks it too early', () => {
    const extra = walk(
      serveOf({ 'acc-1': 1, 'acc-2': 1 }, (p) => ({ ...p, Links: { ...p.Links, Next: `${base}?page=2` } })),
      start,
      2,
    );
    expect(extra.runs[0]?.failed()).toEqual(['page 1: Links.Next is present exactly when pages remain (Meta.TotalPages 1)']);
    const early = walk(serveOf({ 'acc-1': 3, 'acc-2': 1 }, (p) => ({ ...p, Links: { ...p.Links, Next: undefined } })));
    expect(early.runs[0]?.failed()).toEqual(['page 1: Links.Next is present exactly when pages remain (Meta.TotalPages 3)']);
  });

  it('fails more than 100 transactions on a page and a transaction of another account', () => {
    const big = walk(
      serveOf({ 'acc-1': 1, 'acc-2': 1 }, (p) => ({ ...p, Data: { Transaction: Array.from({ length: 101 }, (_, i) => txn(i)) } })),
    );
    expect(big.runs[0]?.failed()).toContain('page 1 of acc-1: at most 100 transactions');
    const foreign = walk(serveOf({ 'acc-1': 1, 'acc-2': 1 }, (p) => ({ ...p, Data: { Transaction: [txn(1, 'acc-9')] } })));
    expect(foreign.runs[0]?.failed()).toEqual(['page 1: every transaction belongs to the account']);
  });

  it('stops at max_pages with a failed assertion instead of paging forever', () => {
    const { runs } = walk(serveOf({ 'acc-1': 10, 'acc-2': 1 }), { ...start, max_pages: '2' });
    expect(runs).toHaveLength(3);
    expect(runs[1]?.failed()).toEqual(['paging ends within max_pages (2)']);
  });
});

describe('AIS v4.0: ITAV balances, error answers by the code set', () => {
  const v4Flow = JSON.parse(
    buildCollections({ templates: loadTemplates(), apiVersion: '4.0' }).find((f) => f.fileName === FLOW_FILE_NAME)?.json ?? '{}',
  ) as { item: PmItem[] };
  const v4Items = v4Flow.item.flatMap((folder) => folder.item ?? []);
  const v4Script = (name: string): string =>
    v4Items
      .find((item) => item.name === name)
      ?.event?.find((e) => e.listen === 'test')
      ?.script.exec.join('\n') ?? '';
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const env = { ...BANK, account_ids: '["acc-1"]', account_index: '0', account_id: 'acc-1' };
  const refusal = (...codes: string[]) => ({
    Code: 'x',
    Id: 'i',
    Message: 'm',
    Errors: codes.map((ErrorCode) => ({ ErrorCode, Message: 'm' })),
  });
  const failedOf = (status: number, body?: unknown) =>
    run(v4Script('accounts: GET /accounts'), { env, response: { code: status, headers, ...(body === undefined ? {} : { body }) } })
      .failed()
      .filter((name) => !name.startsWith('status is'));

  it('passes a 400 U002, a 403 U028, a 500 U000 and a bare 401 or 404', () => {
    expect(failedOf(400, refusal('U002', 'U011'))).toEqual([]);
    expect(failedOf(403, refusal('U028'))).toEqual([]);
    expect(failedOf(500, refusal('U000'))).toEqual([]);
    expect(failedOf(401)).toEqual([]);
    expect(failedOf(404)).toEqual([]);
  });

  it("fails a code of another category than the status, a code outside the code set's error codes, a 401 with a body", () => {
    expect(failedOf(403, refusal('U009'))).toEqual(['error answer 403: every ErrorCode is a code set code of its HTTP category']);
    expect(failedOf(400, refusal('U028'))).toEqual(['error answer 400: every ErrorCode is a code set code of its HTTP category']);
    expect(failedOf(400, refusal('UK.OBIE.Field.Invalid'))).toContain(
      'error answer 400: every ErrorCode is a code set code of its HTTP category',
    );
    expect(failedOf(400, refusal('AC01'))).toEqual(['error answer 400: every ErrorCode is a code set code of its HTTP category']);
    expect(failedOf(401, refusal('U028'))).toEqual(['error answer 401 has no body (OBL AIS v4.0)']);
  });

  it('reads ITAV balances: an InterimAvailable name fails', () => {
    const test = v4Script('account-balances: GET /accounts/{AccountId}/balances');
    const body = (type: string) => ({
      Data: {
        Balance: [
          {
            AccountId: 'acc-1',
            Amount: { Amount: '10.00', Currency: 'GBP' },
            CreditDebitIndicator: 'Credit',
            Type: type,
            DateTime: '2026-11-22T00:00:00+00:00',
          },
        ],
      },
      Links: { Self: 'https://rs.example:8443/open-banking/v4.0/aisp/accounts/acc-1/balances' },
      Meta: { TotalPages: 1 },
    });
    expect(run(test, { env, response: { code: 200, headers, body: body('ITAV') } }).failed()).toEqual([]);
    expect(run(test, { env, response: { code: 200, headers, body: body('InterimAvailable') } }).failed()).toEqual(
      expect.arrayContaining(['every balance is ITAV']),
    );
  });
});
