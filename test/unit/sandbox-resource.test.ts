// The AIS resource server's pure parts (routes, negotiation, consent validation, paging) and its handler driven
// in process: a real consent store in a temp folder, an in-process TokenVerifier double, no sockets.

import { rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

import { afterAll, describe, expect, it } from 'vitest';

import { BANK_FINANCIAL_ID } from '../../src/sandbox/contracts.js';
import type { AccessTokenInfo, ConsentRecord, RequestContext, SandboxClient, SandboxHandler } from '../../src/sandbox/contracts.js';
import { createBank, startOfUtcDay } from '../../src/sandbox/data/bank.js';
import { accountIdOf } from '../../src/sandbox/data/users.js';
import { validateConsentRequest } from '../../src/sandbox/resource/consent-request.js';
import { acceptsJson, isJsonContentType, requestOrigin } from '../../src/sandbox/resource/http.js';
import { isWireError } from '../../src/sandbox/http/errors.js';
import { createResourceHandler } from '../../src/sandbox/resource/index.js';
import { answerWireError } from '../../src/sandbox/serve.js';
import { pageLinks, parseBookingFilter, selectTransactions } from '../../src/sandbox/resource/paging.js';
import { matchRoute } from '../../src/sandbox/resource/routes.js';
import { CONSENT_COLLECTION, openConsentStore } from '../../src/sandbox/store/consents.js';
import { IdempotencyKeys } from '../../src/sandbox/idempotency.js';
import { PAYMENT_ORDER_COLLECTION } from '../../src/sandbox/store/payment-orders.js';
import { Postings } from '../../src/sandbox/store/postings.js';
import { VrpPayments } from '../../src/sandbox/store/vrp-payments.js';
import { SandboxDb } from '../../src/sandbox/store/db.js';
import { responseProblems, schemaProblems } from '../helpers/obie-schemas.js';
import { tempDirSync } from '../helpers/temp.js';
import type { ResourceDeps } from '../../src/sandbox/resource/deps.js';

const BASE = '/open-banking/v3.1/aisp';
const NOW = new Date('2026-05-01T10:00:00Z');
const SEED = 'unit-resource';

function fakeRequest(method: string, url: string, headers: Record<string, string>, body = ''): IncomingMessage {
  const req = Readable.from(body === '' ? [] : [Buffer.from(body)]) as unknown as IncomingMessage & { socket: unknown };
  Object.assign(req, { method, url, headers, socket: { localAddress: '127.0.0.1', localPort: 4443 } });
  return req;
}

interface Captured {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function fakeResponse(): { res: ServerResponse; captured: Captured } {
  const captured: Captured = { status: 200, headers: {}, body: '' };
  const res = {
    set statusCode(value: number) {
      captured.status = value;
    },
    get statusCode() {
      return captured.status;
    },
    setHeader(name: string, value: string) {
      captured.headers[name.toLowerCase()] = value;
    },
    end(text?: string) {
      captured.body = text ?? '';
    },
    headersSent: false,
  };
  return { res: res as unknown as ServerResponse, captured };
}

const dataDir = tempDirSync('obflow-resource-unit-');
const db = SandboxDb.open(dataDir);
afterAll(() => {
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const tokens = new Map<string, AccessTokenInfo>();
const client = (clientId: string): SandboxClient => ({
  clientId,
  profile: 'strict-headless',
  softwareId: 's',
  orgId: 'o',
  redirectUris: [],
  certificateThumbprints: [],
  signingKeys: { keys: [] },
});
const consents = openConsentStore(db);
let ids = 0;
const deps: ResourceDeps = {
  consents,
  tokens: { verify: async (token) => tokens.get(token) },
  clients: { get: async (clientId) => (clientId.startsWith('client-') ? client(clientId) : undefined) },
  bank: createBank(SEED, startOfUtcDay(NOW)),
  now: () => NOW,
  newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
  apiVersions: ['3.1'],
  apis: ['accounts'],
  records: {
    transaction: (work) => db.transaction(work),
    consents,
    idempotency: new IdempotencyKeys(db),
    postings: new Postings(db),
    paymentOrders: db.collection(PAYMENT_ORDER_COLLECTION),
    vrpPayments: new VrpPayments(db),
  },
  messageSigner: () => Promise.reject(new TypeError('no signed API is served here')),
};
const handler = createResourceHandler(deps);

async function call(
  method: string,
  path: string,
  options: {
    token?: string;
    headers?: Record<string, string>;
    body?: string;
    thumbprint?: string;
    /** Another handler than the module's (its own deps), and the emulator's clock it runs on. */
    via?: { handler: SandboxHandler; deps: ResourceDeps };
  } = {},
): Promise<Captured & { json: () => Record<string, unknown> }> {
  const { handler: serve, deps: served } = options.via ?? { handler, deps };
  const headers: Record<string, string> = {
    host: 'bank.example:8443',
    'x-fapi-financial-id': BANK_FINANCIAL_ID,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...options.headers,
  };
  const { res, captured } = fakeResponse();
  const ctx: RequestContext = {
    peerCertificate: undefined,
    peerAuthorized: true,
    peerThumbprint: options.thumbprint ?? 'thumb-1',
    interactionId: 'interaction-1',
    url: new URL(path, 'https://resource.invalid'),
    clientId: undefined,
    now: served.now,
  };
  // A refusal is thrown and answered by the server's one mapping (serve.ts), as startSandbox does.
  await serve(fakeRequest(method, path, headers, options.body ?? ''), res, ctx).catch((error: unknown) => {
    if (!isWireError(error)) throw error;
    answerWireError(res, ctx, error, served.newId);
  });
  return { ...captured, json: () => JSON.parse(captured.body) as Record<string, unknown> };
}

function token(name: string, info: Partial<AccessTokenInfo>): string {
  tokens.set(name, {
    clientId: 'client-a',
    profile: 'strict-headless',
    grant: 'client_credentials',
    scopes: ['accounts'],
    certificateThumbprint: 'thumb-1',
    expiresAt: new Date(NOW.getTime() + 3_600_000),
    ...info,
  });
  return name;
}

describe('matchRoute', () => {
  it.each([
    ['POST', `${BASE}/account-access-consents`, 'route'],
    ['GET', `${BASE}/account-access-consents`, 'method-not-allowed'],
    ['GET', `${BASE}/account-access-consents/aac-1`, 'route'],
    ['PATCH', `${BASE}/account-access-consents/aac-1`, 'method-not-allowed'],
    ['GET', `${BASE}/accounts`, 'route'],
    ['GET', `${BASE}/accounts/123/transactions`, 'route'],
    ['HEAD', `${BASE}/accounts/123/transactions`, 'route'],
    ['HEAD', `${BASE}/account-access-consents/aac-1`, 'route'],
    ['HEAD', `${BASE}/account-access-consents`, 'method-not-allowed'],
    ['POST', `${BASE}/accounts/123/transactions`, 'method-not-allowed'],
    ['GET', `${BASE}/transactions`, 'not-implemented'],
    ['GET', `${BASE}/accounts/123/statements/abc/file`, 'not-implemented'],
    ['GET', `${BASE}/accounts/123/product`, 'not-implemented'],
    ['GET', `${BASE}/accounts/123/parties`, 'not-implemented'],
    ['DELETE', `${BASE}/beneficiaries`, 'not-implemented'],
    ['HEAD', `${BASE}/accounts/123/statements`, 'not-implemented'],
    // Not paths of the standard at all (v3.1 has /accounts/{AccountId}/product, /products, no bulk statement file).
    ['GET', `${BASE}/statements/abc/file`, 'not-found'],
    ['GET', `${BASE}/accounts/123/products`, 'not-found'],
    ['GET', `${BASE}/accounts/123/statements/abc/file/more`, 'not-found'],
    ['GET', `${BASE}/accounts/123/transactions/1`, 'not-found'],
    ['GET', `${BASE}/accounts/`, 'not-found'],
    ['GET', `${BASE}`, 'not-found'],
    ['GET', '/elsewhere', 'not-found'],
  ])('%s %s → %s', (method, path, outcome) => {
    expect(matchRoute(method, path).outcome).toBe(outcome);
  });
});

describe('negotiation', () => {
  const req = (headers: Record<string, string>): IncomingMessage => fakeRequest('GET', '/', headers);
  it('accepts JSON, wildcards and no Accept; refuses other types, other charsets, q=0', () => {
    for (const accept of ['application/json', 'application/json; charset=utf-8', '*/*', 'text/html, application/*;q=0.5', ''])
      expect(acceptsJson(req({ accept })), accept).toBe(true);
    for (const accept of ['text/html', 'application/xml', 'application/json; charset=iso-8859-1', 'application/json;q=0'])
      expect(acceptsJson(req({ accept })), accept).toBe(false);
  });
  it('takes JSON bodies in UTF-8 only', () => {
    expect(isJsonContentType(req({ 'content-type': 'application/json' }))).toBe(true);
    expect(isJsonContentType(req({ 'content-type': 'Application/JSON; charset=UTF-8' }))).toBe(true);
    expect(isJsonContentType(req({ 'content-type': 'application/json; charset=latin1' }))).toBe(false);
    expect(isJsonContentType(req({ 'content-type': 'text/plain' }))).toBe(false);
    expect(isJsonContentType(req({}))).toBe(false);
  });
  it('builds Links on the Host the client used, falling back to the socket for a bad Host', () => {
    expect(requestOrigin(req({ host: 'localhost:8443' }))).toBe('https://localhost:8443');
    expect(requestOrigin(req({ host: '[::1]:8443' }))).toBe('https://[::1]:8443');
    expect(requestOrigin(req({ host: 'evil.example/path?x' }))).toBe('https://127.0.0.1:4443');
  });
});

describe('validateConsentRequest', () => {
  const ok = { Data: { Permissions: ['ReadAccountsBasic', 'ReadAccountsBasic', 'ReadBalances'] }, Risk: {} };
  it('deduplicates permissions and normalises dates to +00:00', () => {
    const result = validateConsentRequest(
      { ...ok, Data: { ...ok.Data, ExpirationDateTime: '2026-06-01T12:00:00+01:00' } },
      NOW,
      'strict-headless',
    );
    expect(result).toEqual({
      ok: true,
      request: { Permissions: ['ReadAccountsBasic', 'ReadBalances'], ExpirationDateTime: '2026-06-01T11:00:00+00:00' },
    });
  });
  it('echoes each date-time the TPP sent as the same instant in UTC, fractional seconds as sent', () => {
    const cases: [string, string][] = [
      ['2026-06-01T10:00:00.415Z', '2026-06-01T10:00:00.415+00:00'],
      ['2026-06-01T11:00:00.415+01:00', '2026-06-01T10:00:00.415+00:00'],
      ['2026-06-01T10:00:00.5Z', '2026-06-01T10:00:00.5+00:00'],
      ['2026-06-01T10:00:00.000+00:00', '2026-06-01T10:00:00.000+00:00'],
      ['2026-06-01T10:00:00.123456789-02:30', '2026-06-01T12:30:00.123456789+00:00'],
      ['2026-06-01T00:00:00.25+01:00', '2026-05-31T23:00:00.25+00:00'],
      ['2026-06-01T10:00:00Z', '2026-06-01T10:00:00+00:00'],
    ];
    for (const [sent, expected] of cases) {
      const result = validateConsentRequest(
        { ...ok, Data: { ...ok.Data, ExpirationDateTime: sent, TransactionFromDateTime: sent, TransactionToDateTime: sent } },
        NOW,
        'strict-headless',
      );
      expect(result, sent).toEqual({
        ok: true,
        request: {
          Permissions: ['ReadAccountsBasic', 'ReadBalances'],
          ExpirationDateTime: expected,
          TransactionFromDateTime: expected,
          TransactionToDateTime: expected,
        },
      });
      expect(Date.parse(expected), sent).toBe(Date.parse(sent));
    }
    // Permissive: an offset-less date-time is UTC, its fraction kept.
    expect(
      validateConsentRequest({ ...ok, Data: { ...ok.Data, TransactionToDateTime: '2026-01-01T00:00:00.07' } }, NOW, 'permissive-headless'),
    ).toMatchObject({ ok: true, request: { TransactionToDateTime: '2026-01-01T00:00:00.07+00:00' } });
  });
  it('is stricter in strict profiles (unknown fields, offset-less dates)', () => {
    const body = { Data: { ...ok.Data, TransactionFromDateTime: '2026-01-01T00:00:00', Extra: 1 }, Risk: { Channel: 'web' } };
    const strict = validateConsentRequest(body, NOW, 'strict-headless');
    expect(strict.ok).toBe(false);
    if (!strict.ok)
      expect(strict.errors.map((error) => `${error.ErrorCode} ${error.Path ?? ''}`).sort()).toEqual([
        'UK.OBIE.Field.InvalidDate Data.TransactionFromDateTime',
        'UK.OBIE.Field.Unexpected Data.Extra',
        'UK.OBIE.Field.Unexpected Risk.Channel',
      ]);
    expect(validateConsentRequest(body, NOW, 'permissive-headless')).toEqual({
      ok: true,
      request: { Permissions: ['ReadAccountsBasic', 'ReadBalances'], TransactionFromDateTime: '2026-01-01T00:00:00+00:00' },
    });
  });
});

describe('paging', () => {
  const bank = createBank(SEED, new Date('2026-05-01T00:00:00Z'));
  const ledger = bank.ledger(accountIdOf(SEED, 'jo/business-current'));
  it('selects by booking window and direction, newest first, as a brute-force filter would', () => {
    const from = ledger.transactions[2000]?.time ?? 0;
    const to = ledger.transactions[2600]?.time ?? 0;
    for (const [credits, debits] of [
      [true, true],
      [true, false],
      [false, true],
    ] as const) {
      const selection = selectTransactions(ledger, from, to, credits, debits);
      const expected = ledger.transactions.filter((t) => t.time >= from && t.time <= to && (t.credit ? credits : debits)).reverse();
      expect(selection.count).toBe(expected.length);
      expect(Array.from({ length: selection.count }, (_, k) => selection.entry(k))).toEqual(expected);
    }
    expect(selectTransactions(ledger, to, from, true, true).count).toBe(0);
    expect(selectTransactions(ledger, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, true, true).count).toBe(10_250);
  });
  it('reads booking filters as UTC, ignoring any zone; refuses impossible dates', () => {
    expect(parseBookingFilter('2026-04-01')).toBe(Date.parse('2026-04-01T00:00:00Z'));
    expect(parseBookingFilter('2026-04-01T10:20')).toBe(Date.parse('2026-04-01T10:20:00Z'));
    expect(parseBookingFilter('2026-04-01T10:20:30+05:00')).toBe(Date.parse('2026-04-01T10:20:30Z'));
    for (const bad of ['2026-02-30', '2026-04-01T24:00:00', 'April 1st', '']) expect(parseBookingFilter(bad), bad).toBeUndefined();
  });
  it('links every page on the same base with the filters kept, no Prev on the first, no Next on the last', () => {
    const base = 'https://bank.example/open-banking/v3.1/aisp/accounts/1/transactions';
    const first = pageLinks(base, [['fromBookingDateTime', '2026-01-01']], 1, 3);
    expect(first).toEqual({
      Self: `${base}?fromBookingDateTime=2026-01-01&page=1`,
      First: `${base}?fromBookingDateTime=2026-01-01&page=1`,
      Next: `${base}?fromBookingDateTime=2026-01-01&page=2`,
      Last: `${base}?fromBookingDateTime=2026-01-01&page=3`,
    });
    expect(pageLinks(base, [], 3, 3)).toEqual({
      Self: `${base}?page=3`,
      First: `${base}?page=1`,
      Prev: `${base}?page=2`,
      Last: `${base}?page=3`,
    });
  });
});

describe('createResourceHandler (in process)', () => {
  const consent = async (): Promise<string> => {
    const created = await call('POST', `${BASE}/account-access-consents`, {
      token: token('cc-a', {}),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Data: { Permissions: ['ReadAccountsBasic', 'ReadBalances'] }, Risk: {} }),
    });
    expect(created.status, created.body).toBe(201);
    return String((created.json().Data as Record<string, unknown>).ConsentId);
  };

  it('creates a consent on the Host origin with the common headers', async () => {
    const created = await call('POST', `${BASE}/account-access-consents`, {
      token: token('cc-a', {}),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Data: { Permissions: ['ReadAccountsBasic'] }, Risk: {} }),
    });
    expect(created.status).toBe(201);
    expect(created.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', date: NOW.toUTCString() });
    const body = created.json();
    expect(responseProblems('POST', '/account-access-consents', 201, body)).toEqual([]);
    expect(body.Links).toEqual({
      Self: `https://bank.example:8443${BASE}/account-access-consents/aac-00000000-0000-4000-8000-${String(ids).padStart(12, '0')}`,
    });
    expect(body.Data).toMatchObject({ CreationDateTime: '2026-05-01T10:00:00+00:00', Status: 'AwaitingAuthorisation' });
  });

  it('reads with an authorization-code token of an Authorised consent; refuses every other state and kind', async () => {
    const consentId = await consent();
    const read = token('code-a', { grant: 'authorization_code', consentId });
    expect((await call('GET', `${BASE}/accounts`, { token: read })).status).toBe(403);
    await consents.authorise(consentId, 'psu-jo', [accountIdOf(SEED, 'jo/business-current'), accountIdOf(SEED, 'alex/personal')], NOW);
    const accounts = await call('GET', `${BASE}/accounts`, { token: read });
    expect(accounts.status).toBe(200);
    expect(responseProblems('GET', '/accounts', 200, accounts.json())).toEqual([]);
    // Only accounts the consent's PSU holds, even if the record lists another.
    expect((accounts.json().Data as { Account: { AccountId: string }[] }).Account.map((a) => a.AccountId)).toEqual([
      accountIdOf(SEED, 'jo/business-current'),
    ]);
    expect((await call('GET', `${BASE}/accounts/${accountIdOf(SEED, 'alex/personal')}`, { token: read })).status).toBe(400);
    expect((await call('GET', `${BASE}/accounts`, { token: token('cc-b', {}) })).status).toBe(401);
    expect((await call('GET', `${BASE}/accounts`, { token: read, thumbprint: 'thumb-2' })).status).toBe(401);
    const relaxed = token('code-p', { grant: 'authorization_code', consentId, profile: 'permissive-headless' });
    expect(
      (await call('GET', `${BASE}/accounts`, { token: relaxed, thumbprint: 'thumb-2', headers: { 'x-fapi-financial-id': '' } })).status,
    ).toBe(200);
    expect(
      (await call('GET', `${BASE}/accounts`, { token: token('code-x', { grant: 'authorization_code', consentId, clientId: 'client-b' }) }))
        .status,
    ).toBe(403);
    expect(
      (
        await call('GET', `${BASE}/accounts`, {
          token: token('code-gone', { grant: 'authorization_code', consentId, clientId: 'deleted' }),
        })
      ).status,
    ).toBe(401);
    expect(
      (await call('GET', `${BASE}/accounts`, { token: token('code-s', { grant: 'authorization_code', consentId, scopes: ['openid'] }) }))
        .status,
    ).toBe(403);
    await consents.revoke(consentId, NOW);
    expect((await call('GET', `${BASE}/accounts`, { token: read })).status).toBe(403);
  });

  it('answers endpoints it does not implement 404 with no body, before authentication, as paths of no standard', async () => {
    // OBIE R/W Data API Profile, "HTTP Status Codes": an endpoint the ASPSP has not implemented answers 404.
    const paths = [
      `${BASE}/accounts/1/statements/2/file`,
      `${BASE}/beneficiaries`,
      `${BASE}/nothing`,
      `${BASE}/statements/${'x'.repeat(2000)}`,
    ];
    for (const path of paths) {
      for (const options of [{ token: token('cc-a', {}) }, { token: token('code-a', { grant: 'authorization_code' }) }, {}]) {
        const answer = await call('GET', path, options);
        expect(answer.status, path).toBe(404);
        expect(answer.body, path).toBe('');
      }
    }
    // An unimplemented path takes no method at all: 404 whatever the method, never 405.
    expect((await call('DELETE', `${BASE}/beneficiaries`, { token: 'cc-a' })).status).toBe(404);
  });

  it('never answers 500 to malformed input', async () => {
    const cc = token('cc-a', {});
    const cases: [string, string, Record<string, string>, string][] = [
      ['POST', `${BASE}/account-access-consents`, { 'content-type': 'application/json' }, '\u0000'],
      ['POST', `${BASE}/account-access-consents`, { 'content-type': 'application/json' }, 'null'],
      [
        'POST',
        `${BASE}/account-access-consents`,
        { 'content-type': 'application/json' },
        JSON.stringify({ Data: { Permissions: [{}, null, 7] }, Risk: [] }),
      ],
      ['GET', `${BASE}/account-access-consents/%E0%A4%A`, {}, ''],
      ['GET', `${BASE}/accounts/%zz/transactions?page=99999999999`, {}, ''],
    ];
    for (const [method, path, headers, body] of cases) {
      const answer = await call(method, path, { token: cc, headers, body });
      expect(answer.status, `${method} ${path}`).toBeLessThan(500);
      if (answer.body !== '') expect(schemaProblems('OBErrorResponse1', answer.json())).toEqual([]);
    }
  });
});

describe('the kept bodies of GET /accounts: never an answer the request would not get without them', () => {
  // One handler serving both versions on a clock the test moves, as the emulator's clock (time.ts) moves.
  let clock = NOW.getTime();
  const keptDeps: ResourceDeps = { ...deps, now: () => new Date(clock), apiVersions: ['3.1', '4.0'] };
  const via = { handler: createResourceHandler(keptDeps), deps: keptDeps };
  const jo = accountIdOf(SEED, 'jo/business-current');
  const joSavings = accountIdOf(SEED, 'jo/business-savings');
  const ids = (answer: { json: () => Record<string, unknown> }): string[] =>
    (answer.json().Data as { Account: { AccountId: string }[] }).Account.map((account) => account.AccountId);

  async function authorised(name: string, extra: Partial<ConsentRecord> = {}): Promise<{ consentId: string; read: string }> {
    clock = NOW.getTime();
    const created = await call('POST', `${BASE}/account-access-consents`, {
      token: token('cc-a', {}),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Data: { Permissions: ['ReadAccountsBasic', 'ReadBalances'] }, Risk: {} }),
      via,
    });
    const consentId = String((created.json().Data as Record<string, unknown>).ConsentId);
    await consents.authorise(consentId, 'psu-jo', [jo], NOW);
    if (Object.keys(extra).length > 0) {
      const stored = db.collection(CONSENT_COLLECTION);
      stored.set(consentId, { ...(stored.get(consentId) as ConsentRecord), ...extra });
    }
    return { consentId, read: token(name, { grant: 'authorization_code', consentId }) };
  }

  it("sees another process's commit to the consent (data_version)", async () => {
    const { consentId, read } = await authorised('kept-dv');
    expect(ids(await call('GET', `${BASE}/accounts`, { token: read, via }))).toEqual([jo]);
    expect(ids(await call('GET', `${BASE}/accounts`, { token: read, via }))).toEqual([jo]);
    // A second connection to the same database, as a second process on the data folder: it adds an account and the
    // Detail permission.
    const second = SandboxDb.open(dataDir);
    try {
      const stored = second.collection(CONSENT_COLLECTION);
      const record = stored.get(consentId) as ConsentRecord;
      stored.set(consentId, { ...record, accountIds: [jo, joSavings], Permissions: [...record.Permissions, 'ReadAccountsDetail'] });
    } finally {
      second.close();
    }
    const after = await call('GET', `${BASE}/accounts`, { token: read, via });
    expect(ids(after)).toEqual([jo, joSavings]);
    expect((after.json().Data as { Account: Record<string, unknown>[] }).Account[0]).toHaveProperty('Account');
  });

  it('refuses a consent revoked after its list was kept, by this process or another', async () => {
    const mine = await authorised('kept-revoked');
    expect((await call('GET', `${BASE}/accounts`, { token: mine.read, via })).status).toBe(200);
    await consents.revoke(mine.consentId, NOW);
    expect((await call('GET', `${BASE}/accounts`, { token: mine.read, via })).status).toBe(403);

    const theirs = await authorised('kept-revoked-elsewhere');
    expect((await call('GET', `${BASE}/accounts`, { token: theirs.read, via })).status).toBe(200);
    const second = SandboxDb.open(dataDir);
    try {
      await openConsentStore(second).revoke(theirs.consentId, NOW);
    } finally {
      second.close();
    }
    expect((await call('GET', `${BASE}/accounts`, { token: theirs.read, via })).status).toBe(403);
  });

  it("refuses a token, and a consent, expired by the emulator's clock after the list was kept", async () => {
    const { read } = await authorised('kept-token-clock');
    expect((await call('GET', `${BASE}/accounts`, { token: read, via })).status).toBe(200);
    clock = NOW.getTime() + 3_600_000; // the token's expiresAt
    expect((await call('GET', `${BASE}/accounts`, { token: read, via })).status).toBe(401);

    const expiring = await authorised('kept-consent-clock', { ExpirationDateTime: '2026-05-01T10:30:00+00:00' });
    expect((await call('GET', `${BASE}/accounts`, { token: expiring.read, via })).status).toBe(200);
    clock = NOW.getTime() + 30 * 60_000;
    expect((await call('GET', `${BASE}/accounts`, { token: expiring.read, via })).status).toBe(403);
  });

  it("keeps one body per path (so per version) and origin; a profile's tolerance is checked on every read", async () => {
    const { consentId, read } = await authorised('kept-keys');
    const v31 = await call('GET', `${BASE}/accounts`, { token: read, via });
    const v40 = await call('GET', `/open-banking/v4.0/aisp/accounts`, { token: read, via });
    expect(v40.status).toBe(200);
    expect(v40.body).not.toBe(v31.body);
    expect((v40.json().Links as { Self: string }).Self).toBe('https://bank.example:8443/open-banking/v4.0/aisp/accounts');
    // The same list on v3.1 again, and one account under its own path and Self link.
    expect((await call('GET', `${BASE}/accounts`, { token: read, via })).body).toBe(v31.body);
    const one = await call('GET', `${BASE}/accounts/${jo}`, { token: read, via });
    expect((one.json().Links as { Self: string }).Self).toBe(`https://bank.example:8443${BASE}/accounts/${jo}`);
    const elsewhere = await call('GET', `${BASE}/accounts`, { token: read, via, headers: { host: 'other.example' } });
    expect((elsewhere.json().Links as { Self: string }).Self).toBe(`https://other.example${BASE}/accounts`);
    // The profile: a v4.0 consent on v3.1 is refused unless the token's profile tolerates consent-newer-version
    // (policy.ts), whatever a more tolerant token's read left kept.
    const v4 = await authorised('kept-v4-strict', { apiVersion: '4.0' });
    const tolerant = token('kept-v4-tolerant', { grant: 'authorization_code', consentId: v4.consentId, profile: 'permissive-headless' });
    expect((await call('GET', `${BASE}/accounts`, { token: tolerant, via, thumbprint: 'thumb-1' })).status).toBe(200);
    expect((await call('GET', `${BASE}/accounts`, { token: v4.read, via })).status).toBe(403);
    expect(consentId).not.toBe(v4.consentId);
  });
});
