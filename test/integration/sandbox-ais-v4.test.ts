// The emulator's AIS v4.0 resource server end to end over real mutual TLS: every implemented path, success
// and error, each answer judged by the official v4.0 OpenAPI file and the OB Internal code set (test/helpers/obie-v4.ts:
// the documented schema, no body where v4.0 defines none, each ErrorCode an OBExternalStatusReason1Code value of the
// status's HTTP category); the same bank as v3.1 in v4.0 codes; consents across versions (docs/sandbox-ais.md); and
// `apiVersions: ['3.1']` serving exactly v3.1.

import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { accountIdOf } from '../../src/sandbox/data/users.js';
import { v4Problems } from '../helpers/obie-v4.js';
import { BANK_FINANCIAL_ID, mtlsAgent, SandboxTpp, startTestSandbox, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';

const SEED = 'ais-v4-integration';
const ALL = ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsCredits', 'ReadTransactionsDebits', 'ReadTransactionsDetail'];

type Json = Record<string, unknown>;

let tpp: SandboxTpp;
let clockOffset = 0;

const v4 = (path: string): string => `${sandbox.urls.sandbox_base_url}/open-banking/v4.0/aisp${path}`;
const v31 = (path: string): string => `${sandbox.urls.aisp_base_url}${path}`;
const currentAccount = (): string => accountIdOf(SEED, 'alex/personal');

interface Call {
  token?: string | undefined;
  headers?: Record<string, string | undefined>;
  body?: string;
  client?: SandboxTpp;
}

/** One v4.0 request; its answer must satisfy the v4.0 file and code set for (method, template, status). */
async function v4Call(method: 'GET' | 'POST' | 'DELETE', template: string, path: string, call: Call = {}): Promise<WireResponse> {
  const all: Record<string, string | undefined> = {
    accept: 'application/json',
    'x-fapi-interaction-id': randomUUID(),
    ...(call.token === undefined ? {} : { authorization: `Bearer ${call.token}` }),
    ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...call.headers,
  };
  const headers = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const response = await (call.client ?? tpp).fetch(method, v4(path), { headers, ...(call.body === undefined ? {} : { body: call.body }) });
  expect(v4Problems(method, template, response.status, response.text), `${method} ${path}: ${response.text}`).toEqual([]);
  return response;
}

const consentBody = (data: Json): string => JSON.stringify({ Data: data, Risk: {} });

/** A v4.0 consent with `data`, authorised headlessly by alex; its id and the authorization-code token. */
async function authorisedV4(data: Json = { Permissions: ALL }): Promise<{ consentId: string; token: string }> {
  const created = await v4Call('POST', '/account-access-consents', '/account-access-consents', {
    token: await tpp.clientCredentials(),
    body: consentBody(data),
  });
  expect(created.status, created.text).toBe(201);
  const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
  const authorize = await tpp.authorize({ consentId, loginHint: 'alex' });
  const exchanged = await tpp.exchangeCode(authorize.params.get('code') ?? '', authorize.redirectUri);
  expect(exchanged.status, exchanged.text).toBe(200);
  return { consentId, token: exchanged.json<{ access_token: string }>().access_token };
}

const sandbox = useTestSandbox({ seed: SEED, now: () => new Date(Date.now() + clockOffset) });

beforeAll(async () => {
  tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless');
  await tpp.register();
});

afterAll(async () => {
  await tpp?.close();
});

describe('AIS v4.0: account-access-consents', () => {
  it('creates (201), reads AWAU with a StatusReason from the code set, then AUTH, and deletes (204)', async () => {
    const cc = await tpp.clientCredentials();
    const created = await v4Call('POST', '/account-access-consents', '/account-access-consents', {
      token: cc,
      body: consentBody({ Permissions: ALL, ExpirationDateTime: '2099-01-01T00:00:00+00:00' }),
    });
    expect(created.status).toBe(201);
    const data = created.json<{ Data: Json; Links: { Self: string } }>();
    expect(data.Data).toMatchObject({ Status: 'AWAU', StatusReason: [{ StatusReasonCode: 'U036' }], Permissions: ALL });
    const consentId = String(data.Data.ConsentId);
    expect(data.Links.Self).toBe(v4(`/account-access-consents/${consentId}`));

    const read = await v4Call('GET', '/account-access-consents/{ConsentId}', `/account-access-consents/${consentId}`, { token: cc });
    expect(read.json<{ Data: Json }>().Data.Status).toBe('AWAU');
    const authorize = await tpp.authorize({ consentId, loginHint: 'alex' });
    expect(authorize.params.get('code')).toBeTruthy();
    const after = await v4Call('GET', '/account-access-consents/{ConsentId}', `/account-access-consents/${consentId}`, { token: cc });
    expect(after.json<{ Data: Json }>().Data).toMatchObject({ Status: 'AUTH' });
    expect(after.json<{ Data: Json }>().Data.StatusReason).toBeUndefined();

    const deleted = await v4Call('DELETE', '/account-access-consents/{ConsentId}', `/account-access-consents/${consentId}`, { token: cc });
    expect(deleted.status).toBe(204);
    const gone = await v4Call('GET', '/account-access-consents/{ConsentId}', `/account-access-consents/${consentId}`, { token: cc });
    expect(gone.status).toBe(400);
    expect(gone.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('U011');
  });

  it('refuses bad consent requests with U0xx codes of the 400 category (U002, U003, U004, U005, U010), 415 and 401 bare', async () => {
    const cc = await tpp.clientCredentials();
    const cases: [string, string][] = [
      [consentBody({ Permissions: ['ReadEverything'] }), 'U002'],
      [consentBody({ Permissions: ALL, ExpirationDateTime: '2001-01-01T00:00:00+00:00' }), 'U003'],
      [JSON.stringify({ Risk: {} }), 'U004'],
      [JSON.stringify({ Data: { Permissions: ALL }, Risk: {}, Colour: 'blue' }), 'U005'],
      ['{not json', 'U010'],
    ];
    for (const [body, code] of cases) {
      const response = await v4Call('POST', '/account-access-consents', '/account-access-consents', { token: cc, body });
      expect(response.status, body).toBe(400);
      expect(
        response.json<{ Errors: { ErrorCode: string }[] }>().Errors.map((error) => error.ErrorCode),
        body,
      ).toContain(code);
    }
    const wrongType = await v4Call('POST', '/account-access-consents', '/account-access-consents', {
      token: cc,
      body: consentBody({ Permissions: ALL }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    // v4.0 documents no 413: a body over the limit is 400 U010 (and the connection closes).
    const huge = await v4Call('POST', '/account-access-consents', '/account-access-consents', {
      token: cc,
      body: consentBody({ Permissions: ALL, Filler: 'x'.repeat(300 * 1024) }),
    });
    expect([huge.status, huge.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([400, 'U010']);
    const noToken = await v4Call('POST', '/account-access-consents', '/account-access-consents', {
      body: consentBody({ Permissions: ALL }),
    });
    expect(noToken.status).toBe(401);
    expect(noToken.text).toBe('');
  });
});

describe('AIS v4.0: reads over the same bank as v3.1', () => {
  it('accounts, balances and transactions in v4.0 codes, with the v3.1 values (InterimAvailable ↔ ITAV)', async () => {
    const { token } = await authorisedV4();
    const accountId = currentAccount();
    const accounts = await v4Call('GET', '/accounts', '/accounts', { token });
    expect(accounts.status).toBe(200);
    const account = accounts.json<{ Data: { Account: Json[] } }>().Data.Account.find((item) => item.AccountId === accountId);
    expect(account).toMatchObject({ AccountCategory: 'Personal', AccountTypeCode: 'CACC' });
    expect(account).not.toHaveProperty('AccountType');
    const one = await v4Call('GET', '/accounts/{AccountId}', `/accounts/${accountId}`, { token });
    expect(one.json<{ Data: { Account: Json[] } }>().Data.Account).toEqual([account]);

    const balances = await v4Call('GET', '/balances', '/balances', { token });
    expect(balances.status).toBe(200);
    const balance = await v4Call('GET', '/accounts/{AccountId}/balances', `/accounts/${accountId}/balances`, { token });
    const [itav] = balance.json<{ Data: { Balance: Json[] } }>().Data.Balance;
    expect(itav).toMatchObject({ AccountId: accountId, Type: 'ITAV' });

    const transactions = await v4Call('GET', '/accounts/{AccountId}/transactions', `/accounts/${accountId}/transactions`, { token });
    const page = transactions.json<{ Data: { Transaction: Json[] }; Links: { Next?: string } }>();
    expect(page.Data.Transaction.length).toBeGreaterThan(0);
    for (const transaction of page.Data.Transaction) expect(['BOOK', 'PDNG']).toContain(transaction.Status);
    if (page.Links.Next !== undefined) {
      const next = new URL(page.Links.Next);
      expect(next.pathname).toBe(new URL(v4(`/accounts/${accountId}/transactions`)).pathname);
      await v4Call('GET', '/accounts/{AccountId}/transactions', `${next.pathname.replace(/^.*\/aisp/, '')}${next.search}`, { token });
    }

    // The same consent's data on v3.1 (a v4.0 consent does not serve v3.1: a v3.1 consent of the same user does).
    const flow = await tpp.headlessFlow({ loginHint: 'alex' });
    const h = { authorization: `Bearer ${flow.accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID };
    const old = (await tpp.fetch('GET', v31(`/accounts/${accountId}/balances`), { headers: h })).json<{ Data: { Balance: Json[] } }>();
    const [interim] = old.Data.Balance;
    expect(interim).toMatchObject({ Type: 'InterimAvailable' });
    expect(itav?.Amount).toEqual(interim?.Amount);
    expect(itav?.CreditDebitIndicator).toEqual(interim?.CreditDebitIndicator);
  });

  it('refusals: 400 U011 (unknown account), U003 (bad filter), U002 (bad page), 401 bare, 403 U028 (no permission: the one 403 code), 406 bare', async () => {
    const { token } = await authorisedV4({ Permissions: ['ReadAccountsBasic'] });
    const unknown = await v4Call('GET', '/accounts/{AccountId}', '/accounts/nope', { token });
    expect([unknown.status, unknown.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([400, 'U011']);
    const balances = await v4Call('GET', '/balances', '/balances', { token });
    expect([balances.status, balances.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([403, 'U028']);
    const full = await authorisedV4();
    const accountId = currentAccount();
    const badDate = await v4Call(
      'GET',
      '/accounts/{AccountId}/transactions',
      `/accounts/${accountId}/transactions?fromBookingDateTime=soon`,
      {
        token: full.token,
      },
    );
    expect([badDate.status, badDate.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([400, 'U003']);
    const badPage = await v4Call('GET', '/accounts/{AccountId}/transactions', `/accounts/${accountId}/transactions?page=0`, {
      token: full.token,
    });
    expect([badPage.status, badPage.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([400, 'U002']);
    const noToken = await v4Call('GET', '/accounts', '/accounts');
    expect([noToken.status, noToken.text]).toEqual([401, '']);
    const ccToken = await v4Call('GET', '/accounts', '/accounts', { token: await tpp.clientCredentials() });
    expect([ccToken.status, ccToken.text]).toEqual([401, '']);
    const xml = await v4Call('GET', '/accounts', '/accounts', { token: full.token, headers: { accept: 'application/xml' } });
    expect([xml.status, xml.text]).toEqual([406, '']);
    const badAuthDate = await v4Call('GET', '/accounts', '/accounts', { token: full.token, headers: { 'x-fapi-auth-date': 'yesterday' } });
    expect([badAuthDate.status, badAuthDate.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([400, 'U006']);
    // v4.0 has no x-fapi-financial-id: a read without one is answered.
    expect((await v4Call('GET', '/accounts', '/accounts', { token: full.token })).status).toBe(200);
  });

  it('a revoked consent is 400 U009 (the code set: not in a status that allows the request)', async () => {
    const { consentId, token } = await authorisedV4();
    const cc = await tpp.clientCredentials();
    await v4Call('DELETE', '/account-access-consents/{ConsentId}', `/account-access-consents/${consentId}`, { token: cc });
    const read = await v4Call('GET', '/accounts', '/accounts', { token });
    expect([read.status, read.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([400, 'U009']);
  });

  it('without a client certificate: 401 with no body; unimplemented paths and other methods: 404 and 405 with none', async () => {
    const bare = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless', mtlsAgent(sandbox.identity, false));
    try {
      const response = await v4Call('GET', '/accounts', '/accounts', { client: bare });
      expect([response.status, response.text]).toEqual([401, '']);
    } finally {
      await bare.close();
    }
    const { token } = await authorisedV4();
    const missing = await v4Call('GET', '/balances', '/standing-orders', { token });
    expect([missing.status, missing.text]).toEqual([404, '']);
    const put = await tpp.fetch('PUT', v4('/accounts'), { headers: { authorization: `Bearer ${token}` } });
    expect(v4Problems('GET', '/accounts', put.status, put.text)).toEqual([]);
    expect([put.status, put.text]).toEqual([405, '']);
  });
});

describe('consents across versions (docs/sandbox-ais.md, "Consents across versions")', () => {
  it('a v3.1 consent serves v4.0 (read in v4.0 shape, its token reads v4.0 accounts)', async () => {
    const flow = await tpp.headlessFlow({ loginHint: 'alex' });
    const cc = await tpp.clientCredentials();
    const read = await v4Call('GET', '/account-access-consents/{ConsentId}', `/account-access-consents/${flow.consentId}`, { token: cc });
    expect(read.json<{ Data: Json }>().Data).toMatchObject({ ConsentId: flow.consentId, Status: 'AUTH' });
    const accounts = await v4Call('GET', '/accounts', '/accounts', { token: flow.accessToken });
    expect(accounts.status).toBe(200);
  });

  it('a v4.0 consent does not serve v3.1 in a strict profile (403 on reads, 400 NotFound on the consent)', async () => {
    const { consentId, token } = await authorisedV4();
    const h = { accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID };
    const read = await tpp.fetch('GET', v31('/accounts'), { headers: { ...h, authorization: `Bearer ${token}` } });
    expect(read.status).toBe(403);
    const cc = await tpp.clientCredentials();
    const consent = await tpp.fetch('GET', v31(`/account-access-consents/${consentId}`), {
      headers: { ...h, authorization: `Bearer ${cc}` },
    });
    expect(consent.status).toBe(400);
    expect(consent.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
  });

  // Last: moves the sandbox clock forward.
  it('an expired consent reads EXPD, and a read under it is 403 U028 (the PSU must re-authenticate)', async () => {
    const soon = new Date(Date.now() + clockOffset + 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const { consentId, token } = await authorisedV4({ Permissions: ALL, ExpirationDateTime: soon });
    clockOffset += 20 * 60_000;
    const read = await v4Call('GET', '/accounts', '/accounts', { token });
    expect([read.status, read.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode]).toEqual([403, 'U028']);
    const consent = await v4Call('GET', '/account-access-consents/{ConsentId}', `/account-access-consents/${consentId}`, {
      token: await tpp.clientCredentials(),
    });
    expect(consent.json<{ Data: Json }>().Data.Status).toBe('EXPD');
  });
});

describe('apiVersions: 3.1 only', () => {
  it('serves exactly v3.1: the v4.0 paths answer 404 with no body, as any path the bank does not implement', async () => {
    const only = await startTestSandbox({ seed: SEED, apiVersions: ['3.1'] });
    const client = new SandboxTpp(only.urls, only.identity, 'strict-headless');
    try {
      await client.register();
      const flow = await client.headlessFlow();
      const h = { authorization: `Bearer ${flow.accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID };
      const old = await client.fetch('GET', `${only.urls.aisp_base_url}/accounts`, { headers: h });
      expect(old.status).toBe(200);
      for (const path of ['/accounts', '/balances', '/account-access-consents']) {
        const response = await client.fetch('GET', `${only.urls.sandbox_base_url}/open-banking/v4.0/aisp${path}`, { headers: h });
        expect([response.status, response.text], path).toEqual([404, '']);
      }
      const cc = await client.clientCredentials();
      const create = await client.createConsentRaw(cc, ALL, '4.0');
      expect([create.status, create.text]).toEqual([404, '']);
    } finally {
      await client.close();
      await only.close();
    }
  });
});
