// The emulator's AIS v3.1 resource server end to end: real mutual TLS, real client registration and headless (or
// wire-driven interactive) authorisation, then every consent rule, read, filter, page, refusal and unsupported path,
// with every body checked against both official OpenAPI files (v3.1.1 and v3.1.11).

import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { accountIdOf, holdingsOf, HOLDINGS } from '../../src/sandbox/data/users.js';
import { getTestIdentity } from '../helpers/identity.js';
import { responseProblems, schemaProblems } from '../helpers/obie-schemas.js';
import { BANK_FINANCIAL_ID, mtlsAgent, SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox, WireResponse } from '../helpers/sandbox-client.js';

const SEED = 'ais-integration';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALL_TXN = ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsCredits', 'ReadTransactionsDebits', 'ReadTransactionsDetail'];

type Json = Record<string, unknown>;
interface Txn extends Json {
  TransactionId: string;
  CreditDebitIndicator: string;
  BookingDateTime: string;
  Status: string;
  Balance?: { Amount: { Amount: string }; CreditDebitIndicator: string };
}
interface TxnPage {
  Data: { Transaction: Txn[] };
  Links: { Self: string; First: string; Prev?: string; Next?: string; Last: string };
  Meta: { TotalPages: number; FirstAvailableDateTime?: string; LastAvailableDateTime?: string };
}

let sandbox: TestSandbox;
let tpp: SandboxTpp;
let permissive: SandboxTpp;
/** Added to the real clock by the sandbox's `now` (only moved forward by the expiry tests, at the very end). */
let clockOffset = 0;

const idOf = (key: string): string => accountIdOf(SEED, key);
const aisp = (path: string): string => `${sandbox.urls.aisp_base_url}${path}`;

function expectValid(method: string, template: string, status: number, body: unknown): void {
  expect(responseProblems(method, template, status, body)).toEqual([]);
}

function headers(token: string | undefined, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    accept: 'application/json',
    'x-fapi-financial-id': BANK_FINANCIAL_ID,
    'x-fapi-interaction-id': randomUUID(),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

async function get(
  client: SandboxTpp,
  token: string | undefined,
  pathOrUrl: string,
  extra: Record<string, string | undefined> = {},
): Promise<WireResponse> {
  return client.fetch('GET', pathOrUrl.startsWith('https://') ? pathOrUrl : aisp(pathOrUrl), { headers: headers(token, extra) });
}

async function postConsent(
  client: SandboxTpp,
  token: string,
  body: unknown,
  extra: Record<string, string | undefined> = {},
): Promise<WireResponse> {
  return client.fetch('POST', aisp('/account-access-consents'), {
    headers: headers(token, { 'content-type': 'application/json', ...extra }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Consent with `data` (Permissions and dates) authorised headlessly by `user`; the authorization-code token. */
async function authorised(client: SandboxTpp, user: string, data: Json): Promise<{ consentId: string; token: string }> {
  const created = await postConsent(client, await client.clientCredentials(), { Data: data, Risk: {} });
  expect(created.status, created.text).toBe(201);
  const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
  const authorize = await client.authorize({ consentId, loginHint: user });
  const code = authorize.params.get('code');
  expect(code, authorize.location).toBeTruthy();
  const exchanged = await client.exchangeCode(code ?? '', authorize.redirectUri);
  expect(exchanged.status, exchanged.text).toBe(200);
  return { consentId, token: exchanged.json<{ access_token: string }>().access_token };
}

function expectStandardHeaders(response: WireResponse, interactionId?: string): void {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(typeof response.headers.date).toBe('string');
  const echoed = response.headers['x-fapi-interaction-id'];
  if (interactionId === undefined) expect(echoed).toMatch(UUID);
  else expect(echoed).toBe(interactionId);
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ seed: SEED, now: () => new Date(Date.now() + clockOffset) });
  tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless');
  await tpp.register();
  permissive = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-headless');
  await permissive.register();
});

afterAll(async () => {
  await tpp?.close();
  await permissive?.close();
  await sandbox?.close();
});

describe('account-access-consents', () => {
  it('creates a consent (201, OBReadConsentResponse1, absolute Self link, echoed interaction id)', async () => {
    const interactionId = randomUUID();
    const response = await postConsent(
      tpp,
      await tpp.clientCredentials(),
      {
        Data: {
          Permissions: ALL_TXN,
          ExpirationDateTime: '2099-01-01T00:00:00+00:00',
          TransactionFromDateTime: '2020-01-01T00:00:00+00:00',
        },
        Risk: {},
      },
      { 'x-fapi-interaction-id': interactionId },
    );
    expect(response.status, response.text).toBe(201);
    expectStandardHeaders(response, interactionId);
    const body = response.json<{ Data: Json; Links: { Self: string } }>();
    expectValid('POST', '/account-access-consents', 201, body);
    expect(body.Data).toMatchObject({
      Status: 'AwaitingAuthorisation',
      Permissions: ALL_TXN,
      ExpirationDateTime: '2099-01-01T00:00:00+00:00',
    });
    expect(body.Links.Self).toBe(aisp(`/account-access-consents/${String(body.Data.ConsentId)}`));
  });

  it('gives back the date-times it was sent as the same instants (fractional seconds kept), on create and on read', async () => {
    const cc = await tpp.clientCredentials();
    const sent = {
      ExpirationDateTime: '2099-01-01T10:00:00.415Z',
      TransactionFromDateTime: '2020-01-01T01:00:00.5+01:00',
      TransactionToDateTime: '2098-12-31T23:59:59.999999Z',
    };
    const expected = {
      ExpirationDateTime: '2099-01-01T10:00:00.415+00:00',
      TransactionFromDateTime: '2020-01-01T00:00:00.5+00:00',
      TransactionToDateTime: '2098-12-31T23:59:59.999999+00:00',
    };
    const created = await postConsent(tpp, cc, { Data: { Permissions: ALL_TXN, ...sent }, Risk: {} });
    expect(created.status, created.text).toBe(201);
    const body = created.json<{ Data: Json & { ConsentId: string } }>();
    expectValid('POST', '/account-access-consents', 201, body);
    expect(body.Data).toMatchObject(expected);
    const read = await get(tpp, cc, `/account-access-consents/${body.Data.ConsentId}`);
    expectValid('GET', '/account-access-consents/{ConsentId}', 200, read.json());
    expect(read.json<{ Data: Json }>().Data).toMatchObject(expected);
  });

  const invalid: [string, unknown, string, string][] = [
    ['no Data', { Risk: {} }, 'UK.OBIE.Field.Missing', 'Data'],
    ['no Risk', { Data: { Permissions: ALL_TXN } }, 'UK.OBIE.Field.Missing', 'Risk'],
    ['no Permissions', { Data: {}, Risk: {} }, 'UK.OBIE.Field.Missing', 'Data.Permissions'],
    ['empty Permissions', { Data: { Permissions: [] }, Risk: {} }, 'UK.OBIE.Field.Invalid', 'Data.Permissions'],
    [
      'unknown permission',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadEverything'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions[1]',
    ],
    [
      'Basic without Credits/Debits',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsBasic'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions',
    ],
    [
      'Detail without Credits/Debits',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsDetail'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions',
    ],
    [
      'Credits without Basic/Detail',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsCredits'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions',
    ],
    ['no ReadAccounts*', { Data: { Permissions: ['ReadBalances'] }, Risk: {} }, 'UK.OBIE.Field.Invalid', 'Data.Permissions'],
    [
      'malformed ExpirationDateTime',
      { Data: { Permissions: ALL_TXN, ExpirationDateTime: 'next tuesday' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.ExpirationDateTime',
    ],
    [
      'past ExpirationDateTime',
      { Data: { Permissions: ALL_TXN, ExpirationDateTime: '2001-01-01T00:00:00+00:00' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.ExpirationDateTime',
    ],
    [
      'impossible TransactionFromDateTime',
      { Data: { Permissions: ALL_TXN, TransactionFromDateTime: '2024-02-30T00:00:00+00:00' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.TransactionFromDateTime',
    ],
    [
      'window backwards',
      {
        Data: {
          Permissions: ALL_TXN,
          TransactionFromDateTime: '2025-01-02T00:00:00+00:00',
          TransactionToDateTime: '2025-01-01T00:00:00+00:00',
        },
        Risk: {},
      },
      'UK.OBIE.Field.InvalidDate',
      'Data.TransactionToDateTime',
    ],
    [
      'date-time without offset (strict)',
      { Data: { Permissions: ALL_TXN, TransactionFromDateTime: '2025-01-02T00:00:00' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.TransactionFromDateTime',
    ],
    [
      'unknown Data field (strict)',
      { Data: { Permissions: ALL_TXN, Colour: 'blue' }, Risk: {} },
      'UK.OBIE.Field.Unexpected',
      'Data.Colour',
    ],
    ['body not JSON', '{"Data":', 'UK.OBIE.Resource.InvalidFormat', ''],
    ['body not an object', '[1,2]', 'UK.OBIE.Field.Invalid', '$'],
  ];
  it.each(invalid)('refuses %s with 400 %s at %s', async (_name, body, errorCode, path) => {
    const interactionId = randomUUID();
    const response = await postConsent(tpp, await tpp.clientCredentials(), body, { 'x-fapi-interaction-id': interactionId });
    expect(response.status, response.text).toBe(400);
    expectStandardHeaders(response, interactionId);
    const error = response.json<{ Code: string; Errors: { ErrorCode: string; Path?: string }[] }>();
    expectValid('POST', '/account-access-consents', 400, error);
    expect(error.Errors).toContainEqual(
      expect.objectContaining(path === '' ? { ErrorCode: errorCode } : { ErrorCode: errorCode, Path: path }),
    );
  });

  it('permissive profiles read an offset-less date-time as UTC and ignore unknown fields', async () => {
    const response = await postConsent(
      permissive,
      await permissive.clientCredentials(),
      { Data: { Permissions: ALL_TXN, TransactionFromDateTime: '2025-01-02T00:00:00', Colour: 'blue' }, Risk: {} },
      { 'x-fapi-financial-id': undefined },
    );
    expect(response.status, response.text).toBe(201);
    const body = response.json<{ Data: Json }>();
    expectValid('POST', '/account-access-consents', 201, body);
    expect(body.Data.TransactionFromDateTime).toBe('2025-01-02T00:00:00+00:00');
  });

  it('answers 415 for a body that is not application/json', async () => {
    const interactionId = randomUUID();
    const response = await tpp.fetch('POST', aisp('/account-access-consents'), {
      headers: headers(await tpp.clientCredentials(), { 'content-type': 'text/plain', 'x-fapi-interaction-id': interactionId }),
      body: JSON.stringify({ Data: { Permissions: ALL_TXN }, Risk: {} }),
    });
    expect(response.status).toBe(415);
    expectStandardHeaders(response, interactionId);
    expect(response.text).toBe('');
  });

  it('answers a body over 256 KiB with 413, the interaction id and an OBErrorResponse1 (AIS and registration routes)', async () => {
    const big = JSON.stringify({ Data: { Permissions: ALL_TXN, Padding: 'x'.repeat(300 * 1024) }, Risk: {} });
    const interactionId = randomUUID();
    const consent = await postConsent(tpp, await tpp.clientCredentials(), big, { 'x-fapi-interaction-id': interactionId });
    const registrationId = randomUUID();
    const registration = await tpp.fetch('POST', sandbox.urls.registration_endpoint, {
      headers: { 'content-type': 'application/jwt', 'x-fapi-interaction-id': registrationId },
      body: 'e'.repeat(300 * 1024),
    });
    for (const [response, id] of [
      [consent, interactionId],
      [registration, registrationId],
    ] as const) {
      expect(response.status, response.text).toBe(413);
      expectStandardHeaders(response, id);
      expect(schemaProblems('OBErrorResponse1', response.json())).toEqual([]);
      expect(response.json()).toMatchObject({ Id: id });
    }
    // Every other resource-origin answer carries it too, registration included.
    const registered = await tpp.registerRaw('not-a-jwt');
    expect(registered.status).toBe(400);
    expect(registered.headers['x-fapi-interaction-id']).toMatch(UUID);
  });

  it('walks AwaitingAuthorisation → Authorised → deleted (204; then 400 NotFound, reads 403, no re-authorisation)', async () => {
    const cc = await tpp.clientCredentials();
    const created = await postConsent(tpp, cc, { Data: { Permissions: ALL_TXN }, Risk: {} });
    const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
    const awaiting = await get(tpp, cc, `/account-access-consents/${consentId}`);
    expect(awaiting.status).toBe(200);
    expectValid('GET', '/account-access-consents/{ConsentId}', 200, awaiting.json());
    expect(awaiting.json<{ Data: Json }>().Data.Status).toBe('AwaitingAuthorisation');

    const authorize = await tpp.authorize({ consentId, loginHint: 'alex' });
    const exchanged = await tpp.exchangeCode(authorize.params.get('code') ?? '', authorize.redirectUri);
    const token = exchanged.json<{ access_token: string }>().access_token;
    const authorisedGet = await get(tpp, cc, `/account-access-consents/${consentId}`);
    expectValid('GET', '/account-access-consents/{ConsentId}', 200, authorisedGet.json());
    expect(authorisedGet.json<{ Data: Json }>().Data.Status).toBe('Authorised');
    expect((await get(tpp, token, '/accounts')).status).toBe(200);

    const deleted = await tpp.fetch('DELETE', aisp(`/account-access-consents/${consentId}`), { headers: headers(cc) });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectStandardHeaders(deleted, deleted.headers['x-fapi-interaction-id'] as string);

    const after = await get(tpp, cc, `/account-access-consents/${consentId}`);
    expect(after.status).toBe(400);
    expectValid('GET', '/account-access-consents/{ConsentId}', 400, after.json());
    expect(after.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
    const again = await tpp.fetch('DELETE', aisp(`/account-access-consents/${consentId}`), { headers: headers(cc) });
    expect(again.status).toBe(400);
    expectValid('DELETE', '/account-access-consents/{ConsentId}', 400, again.json());

    const read = await get(tpp, token, '/accounts');
    expect(read.status).toBe(403);
    expect(read.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.InvalidConsentStatus');
    const reauthorise = await tpp.authorize({ consentId, loginHint: 'alex' });
    expect(reauthorise.params.get('code')).toBeNull();
  });

  it('records a PSU cancellation as Rejected, which stays terminal', async () => {
    const interactive = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-interactive');
    try {
      // The sandbox clock is ahead of the real one by now: date the JWTs by it.
      const at = Math.floor((Date.now() + clockOffset) / 1000);
      await interactive.register({ iat: at, exp: at + 600 });
      const cc = await interactive.clientCredentials();
      const created = await postConsent(interactive, cc, { Data: { Permissions: ALL_TXN }, Risk: {} });
      const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
      const cancelled = await interactive.authorizeInteractive({ consentId }, { username: 'sam', password: 'sam-sandbox-2', cancel: true });
      expect(cancelled.params.get('code')).toBeNull();
      const rejected = await get(interactive, cc, `/account-access-consents/${consentId}`);
      expectValid('GET', '/account-access-consents/{ConsentId}', 200, rejected.json());
      expect(rejected.json<{ Data: Json }>().Data.Status).toBe('Rejected');
      const retry = await interactive.authorizeInteractive({ consentId }, { username: 'sam', password: 'sam-sandbox-2' });
      expect(retry.params.get('code')).toBeNull();
      expect((await get(interactive, cc, `/account-access-consents/${consentId}`)).json<{ Data: Json }>().Data.Status).toBe('Rejected');
    } finally {
      await interactive.close();
    }
  });

  it("hides another client's consent (400 NotFound)", async () => {
    const created = await postConsent(tpp, await tpp.clientCredentials(), { Data: { Permissions: ALL_TXN }, Risk: {} });
    const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
    const other = await get(permissive, await permissive.clientCredentials(), `/account-access-consents/${consentId}`);
    expect(other.status).toBe(400);
    expect(other.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
  });
});

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

describe('endpoints of the standard this bank does not implement: 404 (OBIE R/W Data API Profile, "HTTP Status Codes")', () => {
  const bulk = [
    '/transactions',
    '/beneficiaries',
    '/direct-debits',
    '/standing-orders',
    '/products',
    '/offers',
    '/party',
    '/scheduled-payments',
    '/statements',
  ];
  const perAccount = [
    'beneficiaries',
    'direct-debits',
    'standing-orders',
    'product',
    'offers',
    'party',
    'parties',
    'scheduled-payments',
    'statements',
    'statements/S1',
    'statements/S1/file',
    'statements/S1/transactions',
  ];
  let token = '';
  let cc = '';
  beforeAll(async () => {
    token = (await authorised(tpp, 'alex', { Permissions: ALL_TXN })).token;
    cc = await tpp.clientCredentials();
  });

  // "If an ASPSP has not implemented an API endpoint, it must respond with a 404 (Not Found) for requests to that
  // URL": with either kind of token and without one (the answer comes before authentication), no body (the OpenAPI
  // 404Error response defines none), the interaction id echoed as on every answer.
  it.each([...bulk, ...perAccount.map((p) => `/accounts/ACCOUNT/${p}`)])('%s', async (template) => {
    const path = template.replace('ACCOUNT', idOf('alex/personal'));
    for (const bearer of [token, cc, undefined]) {
      const interactionId = randomUUID();
      const response = await get(tpp, bearer, path, { 'x-fapi-interaction-id': interactionId });
      expect(response.status).toBe(404);
      expect(response.text).toBe('');
      expectStandardHeaders(response, interactionId);
    }
    const deleted = await tpp.fetch('DELETE', aisp(path), { headers: headers(token) });
    expect(deleted.status).toBe(404);
    expect(deleted.headers.allow).toBeUndefined();
  });
});

describe('refusals', () => {
  let token = '';
  let cc = '';
  beforeAll(async () => {
    token = (await authorised(tpp, 'alex', { Permissions: ['ReadAccountsBasic'] })).token;
    cc = await tpp.clientCredentials();
  });

  it('401 without a body for a missing, unknown or wrong-kind token', async () => {
    for (const [bearer, path] of [
      [undefined, '/accounts'],
      ['not-a-token', '/accounts'],
      [cc, '/accounts'],
      [cc, '/balances'],
      [token, '/account-access-consents/aac-x'],
    ] as const) {
      const interactionId = randomUUID();
      const response = await get(tpp, bearer, path, { 'x-fapi-interaction-id': interactionId });
      expect(response.status, `${path} ${bearer ?? 'none'}`).toBe(401);
      expect(response.text).toBe('');
      expectStandardHeaders(response, interactionId);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    const post = await postConsent(tpp, token, { Data: { Permissions: ALL_TXN }, Risk: {} });
    expect(post.status).toBe(401);
  });

  it('401 in strict profiles when the token is presented with another certificate (RFC 8705)', async () => {
    const second = await getTestIdentity('second-tpp');
    const thief = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless', mtlsAgent(second));
    try {
      const response = await get(thief, token, '/accounts');
      expect(response.status).toBe(401);
    } finally {
      await thief.close();
    }
  });

  it('403 for a permission the consent lacks', async () => {
    for (const path of ['/balances', `/accounts/${idOf('alex/personal')}/balances`, `/accounts/${idOf('alex/personal')}/transactions`]) {
      const response = await get(tpp, token, path);
      expect(response.status, path).toBe(403);
      expect(response.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.ConsentMismatch');
      expect(schemaProblems('OBErrorResponse1', response.json())).toEqual([]);
    }
    expect((await get(tpp, token, '/accounts')).status).toBe(200);
  });

  it('404 for unknown paths, 405 for other methods, 406 for a non-JSON Accept', async () => {
    for (const path of [
      '/foo',
      '/open-banking/v3.1/aisp/foo',
      '/open-banking/v3.1/aisp/nothing-here',
      '/open-banking/v3.1/aisp/accounts/x/y/z',
      '/open-banking/v3.0/aisp/accounts',
      '/open-banking/v3.1/aisp/accounts/',
    ]) {
      const response = await tpp.fetch('GET', `${sandbox.urls.sandbox_base_url}${path}`, { headers: headers(token) });
      expect(response.status, path).toBe(404);
      expectStandardHeaders(response, response.headers['x-fapi-interaction-id'] as string);
    }
    const post = await tpp.fetch('POST', aisp('/accounts'), {
      headers: headers(token, { 'content-type': 'application/json' }),
      body: '{}',
    });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const deleted = await tpp.fetch('DELETE', aisp('/accounts'), { headers: headers(token) });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.allow).toBe('GET, HEAD');
    const put = await tpp.fetch('PUT', aisp('/account-access-consents/aac-1'), {
      headers: headers(cc, { 'content-type': 'application/json' }),
      body: '{}',
    });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, DELETE');
    const html = await get(tpp, token, '/accounts', { accept: 'text/html' });
    expect(html.status).toBe(406);
    expect((await get(tpp, token, '/accounts', { accept: 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await get(tpp, token, '/accounts', { accept: '*/*' })).status).toBe(200);
  });

  it("HEAD wherever GET is (RFC 9110 §9.3.2): the GET answer's status and headers, no body", async () => {
    const consentId = (await authorised(tpp, 'alex', { Permissions: ['ReadAccountsBasic'] })).consentId;
    for (const [path, bearer] of [
      ['/accounts', token],
      [`/accounts/${idOf('alex/personal')}`, token],
      ['/balances', token],
      [`/account-access-consents/${consentId}`, cc],
    ] as const) {
      const interactionId = randomUUID();
      const viaGet = await get(tpp, bearer, path);
      const head = await tpp.fetch('HEAD', aisp(path), { headers: headers(bearer, { 'x-fapi-interaction-id': interactionId }) });
      expect(head.status, path).toBe(viaGet.status);
      expect(head.text).toBe('');
      expectStandardHeaders(head, interactionId);
    }
    expect(await get(tpp, token, '/balances')).toMatchObject({ status: 403 });
    // Without a token, HEAD is refused like GET.
    expect((await tpp.fetch('HEAD', aisp('/accounts'), { headers: headers(undefined) })).status).toBe(401);
  });

  it('400 for bad query parameters', async () => {
    const { token: txnToken } = await authorised(tpp, 'alex', { Permissions: ALL_TXN });
    const base = `/accounts/${idOf('alex/personal')}/transactions`;
    for (const [query, errorCode, path] of [
      ['?page=0', 'UK.OBIE.Field.Invalid', 'page'],
      ['?page=abc', 'UK.OBIE.Field.Invalid', 'page'],
      ['?fromBookingDateTime=yesterday', 'UK.OBIE.Field.InvalidDate', 'fromBookingDateTime'],
      ['?toBookingDateTime=2024-13-01', 'UK.OBIE.Field.InvalidDate', 'toBookingDateTime'],
    ]) {
      const response = await get(tpp, txnToken, `${base}${query}`);
      expect(response.status, query).toBe(400);
      expectValid('GET', '/accounts/{AccountId}/transactions', 400, response.json());
      expect(response.json<{ Errors: { ErrorCode: string; Path: string }[] }>().Errors[0]).toMatchObject({
        ErrorCode: errorCode,
        Path: path,
      });
    }
    const unknown = await get(tpp, txnToken, '/accounts/0000/transactions');
    expect(unknown.status).toBe(400);
  });

  it('x-fapi-financial-id: required (400 Header.Missing / Header.Invalid) in strict profiles, optional in permissive', async () => {
    const missing = await get(tpp, token, '/accounts', { 'x-fapi-financial-id': undefined });
    expect(missing.status).toBe(400);
    expectValid('GET', '/accounts', 400, missing.json());
    expect(missing.json<{ Errors: { ErrorCode: string; Path: string }[] }>().Errors[0]).toMatchObject({
      ErrorCode: 'UK.OBIE.Header.Missing',
      Path: 'x-fapi-financial-id',
    });
    const wrong = await get(tpp, token, '/accounts', { 'x-fapi-financial-id': 'another-bank' });
    expect(wrong.status).toBe(400);
    expect(wrong.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Header.Invalid');
    const relaxed = await authorised(permissive, 'alex', { Permissions: ['ReadAccountsBasic'] });
    expect((await get(permissive, relaxed.token, '/accounts', { 'x-fapi-financial-id': undefined })).status).toBe(200);
  });

  it('a fresh x-fapi-interaction-id when none is sent', async () => {
    const response = await tpp.fetch('GET', aisp('/accounts'), {
      headers: { authorization: `Bearer ${token}`, 'x-fapi-financial-id': BANK_FINANCIAL_ID },
    });
    expect(response.status).toBe(200);
    expectStandardHeaders(response);
  });

  // Last: moves the sandbox clock forward.
  it('403 once the consent has expired, 401 once the token has', async () => {
    const soon = new Date(Date.now() + clockOffset + 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const expiring = await authorised(tpp, 'alex', { Permissions: ALL_TXN, ExpirationDateTime: soon });
    expect((await get(tpp, expiring.token, '/accounts')).status).toBe(200);
    clockOffset += 20 * 60_000;
    const expired = await get(tpp, expiring.token, '/accounts');
    expect(expired.status).toBe(403);
    expect(expired.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.InvalidConsentStatus');
    clockOffset += 2 * 3_600_000;
    const stale = await get(tpp, expiring.token, '/accounts');
    expect(stale.status).toBe(401);
    expect(stale.text).toBe('');
  });

  // Also moves the clock forward.
  it('Confirm refuses a consent that expired while the PSU was on the pages, and leaves it AwaitingAuthorisation', async () => {
    const interactive = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-interactive');
    try {
      // The sandbox clock is ahead of the real one by now: date the JWTs by it.
      const at = Math.floor((Date.now() + clockOffset) / 1000);
      await interactive.register({ iat: at, exp: at + 600 });
      const cc = await interactive.clientCredentials();
      const soon = new Date(Date.now() + clockOffset + 5 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
      const created = await postConsent(interactive, cc, { Data: { Permissions: ALL_TXN, ExpirationDateTime: soon }, Risk: {} });
      expect(created.status, created.text).toBe(201);
      const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
      const result = await interactive.authorizeInteractive(
        { consentId, responseType: 'code', objectClaims: { iat: at, exp: at + 600 } },
        {
          username: 'alex',
          password: 'alex-sandbox-1',
          beforeConfirm: () => {
            clockOffset += 6 * 60_000;
          },
        },
      );
      expect(result.status).toBe(303);
      expect(result.params.get('error')).toBe('invalid_request');
      expect(result.params.get('error_description')).toContain('expired');
      expect(result.params.get('code')).toBeNull();
      expect(result.params.get('state')).toBe(result.state);
      const after = await get(interactive, cc, `/account-access-consents/${consentId}`);
      expect(after.json<{ Data: { Status: string } }>().Data.Status).toBe('AwaitingAuthorisation');
    } finally {
      await interactive.close();
    }
  });
});
