// The emulator's AIS v3.1 reads end to end: per test user, then permissions and filters (dates, pages), over real
// mutual TLS; bodies checked against both official OpenAPI files (v3.1.1 and v3.1.11). The emulator and wire helpers:
// sandbox-ais-fixture.ts.

import { describe, expect, it } from 'vitest';

import { holdingsOf, HOLDINGS } from '../../src/sandbox/data/users.js';
import { SandboxTpp } from '../helpers/sandbox-client.js';
import type { Json, TxnPage } from './sandbox-ais-fixture.js';
import {
  aisp,
  ALL_TXN,
  authorised,
  expectStandardHeaders,
  expectValid,
  get,
  idOf,
  postConsent,
  sandbox,
  tpp,
  useAisSandbox,
} from './sandbox-ais-fixture.js';

useAisSandbox();

describe('reads per test user', () => {
  const users = ['alex', 'sam', 'jo'] as const;
  it.each(users)('%s sees exactly their accounts, and every body validates against both specs', async (user) => {
    const { token } = await authorised(tpp, user, { Permissions: ALL_TXN });
    const psuId = `psu-${user}`;
    const expected = holdingsOf(psuId).map((holding) => idOf(holding.key));

    const accounts = await get(tpp, token, '/accounts');
    expect(accounts.status).toBe(200);
    expectStandardHeaders(accounts, accounts.headers['x-fapi-interaction-id'] as string);
    const accountBody = accounts.json<{ Data: { Account: Json[] }; Links: { Self: string } }>();
    expectValid('GET', '/accounts', 200, accountBody);
    expect(accountBody.Data.Account.map((account) => account.AccountId)).toEqual(expected);
    expect(accountBody.Links.Self).toBe(aisp('/accounts'));
    for (const account of accountBody.Data.Account) {
      expect(account.Account).toEqual([
        expect.objectContaining({ SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: expect.stringMatching(/^\d{14}$/) }),
      ]);
    }

    const balances = await get(tpp, token, '/balances');
    expectValid('GET', '/balances', 200, balances.json());
    const balanceList = balances.json<{ Data: { Balance: { AccountId: string; Type: string }[] } }>().Data.Balance;
    expect(balanceList.map((balance) => balance.AccountId)).toEqual(expected);
    expect(new Set(balanceList.map((balance) => balance.Type))).toEqual(new Set(['InterimAvailable']));

    for (const accountId of expected) {
      const one = await get(tpp, token, `/accounts/${accountId}`);
      expectValid('GET', '/accounts/{AccountId}', 200, one.json());
      const balance = await get(tpp, token, `/accounts/${accountId}/balances`);
      expectValid('GET', '/accounts/{AccountId}/balances', 200, balance.json());
      const txns = await get(tpp, token, `/accounts/${accountId}/transactions`);
      expect(txns.status).toBe(200);
      const page = txns.json<TxnPage>();
      expectValid('GET', '/accounts/{AccountId}/transactions', 200, page);
      expect(page.Data.Transaction.length).toBeGreaterThan(0);
      // The newest entry's running balance is the InterimAvailable balance.
      const newest = page.Data.Transaction[0];
      const interim = balance.json<{ Data: { Balance: { Amount: { Amount: string }; CreditDebitIndicator: string }[] } }>().Data.Balance[0];
      expect(newest?.Balance?.Amount.Amount).toBe(interim?.Amount.Amount);
      expect(newest?.Balance?.CreditDebitIndicator).toBe(interim?.CreditDebitIndicator);
    }

    // Accounts of the bank this user does not hold are "not found" for this consent.
    for (const holding of HOLDINGS.filter((h) => !h.holders.includes(psuId))) {
      for (const path of [
        `/accounts/${idOf(holding.key)}`,
        `/accounts/${idOf(holding.key)}/balances`,
        `/accounts/${idOf(holding.key)}/transactions`,
      ]) {
        const refused = await get(tpp, token, path);
        expect(refused.status, path).toBe(400);
        expectValid(
          'GET',
          path.endsWith('/balances')
            ? '/accounts/{AccountId}/balances'
            : path.endsWith('/transactions')
              ? '/accounts/{AccountId}/transactions'
              : '/accounts/{AccountId}',
          400,
          refused.json(),
        );
        expect(refused.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
      }
    }
  });

  it("shows a joint account to both holders, and never one holder's sole account to the other", async () => {
    const alex = await authorised(tpp, 'alex', { Permissions: ALL_TXN });
    const sam = await authorised(tpp, 'sam', { Permissions: ALL_TXN });
    const ids = async (token: string): Promise<string[]> =>
      (await get(tpp, token, '/accounts')).json<{ Data: { Account: { AccountId: string }[] } }>().Data.Account.map((a) => a.AccountId);
    const alexIds = await ids(alex.token);
    const samIds = await ids(sam.token);
    expect(alexIds).toContain(idOf('alex-sam/joint'));
    expect(samIds).toContain(idOf('alex-sam/joint'));
    expect(samIds).toContain(idOf('alex-sam/joint-savings'));
    expect(samIds).not.toContain(idOf('alex/personal'));
    expect(alexIds).not.toContain(idOf('sam/personal'));
    const jointForSam = await get(tpp, sam.token, `/accounts/${idOf('alex-sam/joint')}/transactions`);
    const jointForAlex = await get(tpp, alex.token, `/accounts/${idOf('alex-sam/joint')}/transactions`);
    expect(jointForSam.json<TxnPage>().Data.Transaction).toEqual(jointForAlex.json<TxnPage>().Data.Transaction);
  });

  it('limits reads to the accounts the PSU selected (interactive consent page)', async () => {
    const interactive = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-interactive');
    try {
      await interactive.register();
      const created = await postConsent(interactive, await interactive.clientCredentials(), { Data: { Permissions: ALL_TXN }, Risk: {} });
      const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
      const result = await interactive.authorizeInteractive({ consentId }, { username: 'sam', password: 'sam-sandbox-2', accounts: [0] });
      const exchanged = await interactive.exchangeCode(result.params.get('code') ?? '', result.redirectUri);
      expect(exchanged.status, exchanged.text).toBe(200);
      const token = exchanged.json<{ access_token: string }>().access_token;
      const accounts = (await get(interactive, token, '/accounts'))
        .json<{ Data: { Account: { AccountId: string }[] } }>()
        .Data.Account.map((a) => a.AccountId);
      expect(accounts).toHaveLength(1);
      const unselected = holdingsOf('psu-sam')
        .map((h) => idOf(h.key))
        .filter((id) => !accounts.includes(id));
      expect(unselected.length).toBeGreaterThan(0);
      for (const accountId of unselected) {
        const refused = await get(interactive, token, `/accounts/${accountId}/balances`);
        expect(refused.status).toBe(400);
        expect(refused.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
      }
    } finally {
      await interactive.close();
    }
  });
});

describe('permissions and filters', () => {
  const DETAIL_ONLY = [
    'TransactionInformation',
    'Balance',
    'MerchantDetails',
    'CreditorAccount',
    'DebtorAccount',
    'CreditorAgent',
    'DebtorAgent',
  ];

  it('Basic consents get the Basic field sets, Detail consents the Detail ones', async () => {
    const basic = await authorised(tpp, 'alex', {
      Permissions: ['ReadAccountsBasic', 'ReadTransactionsBasic', 'ReadTransactionsCredits', 'ReadTransactionsDebits'],
    });
    const accounts = (await get(tpp, basic.token, '/accounts')).json<{ Data: { Account: Json[] } }>();
    expectValid('GET', '/accounts', 200, accounts);
    for (const account of accounts.Data.Account) expect(account).not.toHaveProperty('Account');
    const page = (await get(tpp, basic.token, `/accounts/${idOf('alex/personal')}/transactions`)).json<TxnPage>();
    expectValid('GET', '/accounts/{AccountId}/transactions', 200, page);
    for (const txn of page.Data.Transaction) for (const field of DETAIL_ONLY) expect(txn).not.toHaveProperty(field);

    const detail = await authorised(tpp, 'alex', { Permissions: ALL_TXN });
    const detailPage = (await get(tpp, detail.token, `/accounts/${idOf('alex/personal')}/transactions`)).json<TxnPage>();
    for (const txn of detailPage.Data.Transaction) {
      expect(txn).toHaveProperty('TransactionInformation');
      expect(txn).toHaveProperty('Balance');
    }
    expect(detailPage.Data.Transaction.some((txn) => 'MerchantDetails' in txn)).toBe(true);
    expect(detailPage.Data.Transaction.map((txn) => txn.TransactionId)).toEqual(page.Data.Transaction.map((txn) => txn.TransactionId));
  });

  it('a Credits-only consent shows no debits, a Debits-only consent no credits', async () => {
    const accountId = idOf('alex/personal');
    for (const [permission, indicator] of [
      ['ReadTransactionsCredits', 'Credit'],
      ['ReadTransactionsDebits', 'Debit'],
    ] as const) {
      const { token } = await authorised(tpp, 'alex', { Permissions: ['ReadAccountsBasic', 'ReadTransactionsDetail', permission] });
      let url: string | undefined = aisp(`/accounts/${accountId}/transactions`);
      let seen = 0;
      while (url) {
        const page: TxnPage = (await get(tpp, token, url)).json<TxnPage>();
        expectValid('GET', '/accounts/{AccountId}/transactions', 200, page);
        for (const txn of page.Data.Transaction) expect(txn.CreditDebitIndicator).toBe(indicator);
        seen += page.Data.Transaction.length;
        url = page.Links.Next;
      }
      expect(seen).toBeGreaterThan(0);
    }
  });

  it('keeps reads inside the consent window and the booking-date filters (zone ignored), Meta within the window', async () => {
    const accountId = idOf('jo/business-current');
    const all = await authorised(tpp, 'jo', { Permissions: ALL_TXN });
    const meta = (await get(tpp, all.token, `/accounts/${accountId}/transactions`)).json<TxnPage>().Meta;
    const last = Date.parse(meta.LastAvailableDateTime ?? '');
    const from = new Date(last - 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const to = new Date(last - 10 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const windowed = await authorised(tpp, 'jo', { Permissions: ALL_TXN, TransactionFromDateTime: from, TransactionToDateTime: to });
    let url: string | undefined = aisp(`/accounts/${accountId}/transactions`);
    let count = 0;
    let firstMeta: TxnPage['Meta'] | undefined;
    while (url) {
      const page: TxnPage = (await get(tpp, windowed.token, url)).json<TxnPage>();
      firstMeta ??= page.Meta;
      for (const txn of page.Data.Transaction) {
        expect(Date.parse(txn.BookingDateTime)).toBeGreaterThanOrEqual(Date.parse(from));
        expect(Date.parse(txn.BookingDateTime)).toBeLessThanOrEqual(Date.parse(to));
      }
      count += page.Data.Transaction.length;
      url = page.Links.Next;
    }
    expect(count).toBeGreaterThan(100);
    expect(Date.parse(firstMeta?.FirstAvailableDateTime ?? '')).toBeGreaterThanOrEqual(Date.parse(from));
    expect(Date.parse(firstMeta?.LastAvailableDateTime ?? '')).toBeLessThanOrEqual(Date.parse(to));

    // Query filters narrow further; a time zone on them is ignored (AIS v3.1 parameter description).
    const day = from.slice(0, 10);
    const next = new Date(Date.parse(from) + 2 * 86_400_000).toISOString().slice(0, 10);
    const filtered = await get(
      tpp,
      windowed.token,
      `/accounts/${accountId}/transactions?fromBookingDateTime=${day}T00:00:00&toBookingDateTime=${encodeURIComponent(`${next}T00:00:00+05:00`)}`,
    );
    expect(filtered.status, filtered.text).toBe(200);
    const filteredPage = filtered.json<TxnPage>();
    expectValid('GET', '/accounts/{AccountId}/transactions', 200, filteredPage);
    expect(filteredPage.Data.Transaction.length).toBeGreaterThan(0);
    for (const txn of filteredPage.Data.Transaction) {
      expect(Date.parse(txn.BookingDateTime)).toBeGreaterThanOrEqual(Math.max(Date.parse(`${day}T00:00:00Z`), Date.parse(from)));
      expect(Date.parse(txn.BookingDateTime)).toBeLessThanOrEqual(Date.parse(`${next}T00:00:00Z`));
    }
    expect(filteredPage.Links.Self).toContain(`fromBookingDateTime=${encodeURIComponent(`${day}T00:00:00`)}`);
  });

  it('pages through all 10,250 transactions: ≤ 100 a page, no gap, no duplicate, stable absolute links', async () => {
    const accountId = idOf('jo/business-current');
    const { token } = await authorised(tpp, 'jo', { Permissions: ALL_TXN });
    const base = aisp(`/accounts/${accountId}/transactions`);
    const seen = new Set<string>();
    let previousTime = Number.POSITIVE_INFINITY;
    let url: string | undefined = base;
    let pageNumber = 0;
    let total = 0;
    let lastSelf = '';
    while (url) {
      pageNumber += 1;
      const response = await get(tpp, token, url);
      expect(response.status).toBe(200);
      const page: TxnPage = response.json<TxnPage>();
      expectValid('GET', '/accounts/{AccountId}/transactions', 200, page);
      if (pageNumber === 1) total = page.Meta.TotalPages;
      expect(page.Meta.TotalPages).toBe(total);
      expect(page.Data.Transaction.length).toBeLessThanOrEqual(100);
      expect(page.Links.Self).toBe(`${base}?page=${pageNumber}`);
      expect(page.Links.First).toBe(`${base}?page=1`);
      expect(page.Links.Last).toBe(`${base}?page=${total}`);
      if (pageNumber > 1) expect(page.Links.Prev).toBe(lastSelf);
      else expect(page.Links).not.toHaveProperty('Prev');
      for (const txn of page.Data.Transaction) {
        expect(seen.has(txn.TransactionId)).toBe(false);
        seen.add(txn.TransactionId);
        expect(Date.parse(txn.BookingDateTime)).toBeLessThanOrEqual(previousTime);
        previousTime = Date.parse(txn.BookingDateTime);
      }
      lastSelf = page.Links.Self;
      url = page.Links.Next;
    }
    expect(pageNumber).toBe(total);
    expect(total).toBe(Math.ceil(10_250 / 100));
    expect(seen.size).toBe(10_250);
    expect(HOLDINGS.find((h) => h.key === 'jo/business-current')?.transactionCount).toBe(10_250);
    const again = (await get(tpp, token, `${base}?page=42`)).json<TxnPage>();
    expect((await get(tpp, token, again.Links.Self)).json<TxnPage>()).toEqual(again);
    const past = await get(tpp, token, `${base}?page=${total + 1}`);
    expect(past.status).toBe(400);
    expectValid('GET', '/accounts/{AccountId}/transactions', 400, past.json());
  });
});
