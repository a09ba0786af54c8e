// The emulator's AIS v3.1 refusals end to end: the endpoints of the standard it does not implement (404) and every
// refusal of a request, over real mutual TLS; bodies checked against both official OpenAPI files (v3.1.1 and v3.1.11).
// The emulator and wire helpers: sandbox-ais-fixture.ts.

import { randomUUID } from 'node:crypto';

import { beforeAll, describe, expect, it } from 'vitest';

import { getTestIdentity } from '../helpers/identity.js';
import { schemaProblems } from '../helpers/obie-schemas.js';
import { mtlsAgent, SandboxTpp, BANK_FINANCIAL_ID } from '../helpers/sandbox-client.js';
import {
  aisp,
  ALL_TXN,
  authorised,
  clock,
  expectStandardHeaders,
  expectValid,
  get,
  headers,
  idOf,
  permissive,
  postConsent,
  sandbox,
  tpp,
  useAisSandbox,
} from './sandbox-ais-fixture.js';

useAisSandbox();

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
    const soon = new Date(Date.now() + clock.offset + 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const expiring = await authorised(tpp, 'alex', { Permissions: ALL_TXN, ExpirationDateTime: soon });
    expect((await get(tpp, expiring.token, '/accounts')).status).toBe(200);
    clock.offset += 20 * 60_000;
    const expired = await get(tpp, expiring.token, '/accounts');
    expect(expired.status).toBe(403);
    expect(expired.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.InvalidConsentStatus');
    clock.offset += 2 * 3_600_000;
    const stale = await get(tpp, expiring.token, '/accounts');
    expect(stale.status).toBe(401);
    expect(stale.text).toBe('');
  });

  // Also moves the clock forward.
  it('Confirm refuses a consent that expired while the PSU was on the pages, and leaves it AwaitingAuthorisation', async () => {
    const interactive = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-interactive');
    try {
      // The sandbox clock is ahead of the real one by now: date the JWTs by it.
      const at = Math.floor((Date.now() + clock.offset) / 1000);
      await interactive.register({ iat: at, exp: at + 600 });
      const cc = await interactive.clientCredentials();
      const soon = new Date(Date.now() + clock.offset + 5 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
      const created = await postConsent(interactive, cc, { Data: { Permissions: ALL_TXN, ExpirationDateTime: soon }, Risk: {} });
      expect(created.status, created.text).toBe(201);
      const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
      const result = await interactive.authorizeInteractive(
        { consentId, responseType: 'code', objectClaims: { iat: at, exp: at + 600 } },
        {
          username: 'alex',
          password: 'alex-sandbox-1',
          beforeConfirm: () => {
            clock.offset += 6 * 60_000;
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
