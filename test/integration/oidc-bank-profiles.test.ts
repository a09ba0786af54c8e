// The oidc-provider test bank on its own (docs/notes.md, "proven against oidc-provider"): what its glue refuses, and
// its strict profile (FAPI 1 Advanced: private_key_jwt, PS256 request objects, cert-bound tokens) working end to end
// with a client built here with jose — the path obflow's matrix rows take (oidc-bank.test.ts).

import { randomUUID } from 'node:crypto';
import { createPrivateKey } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_REDIRECT_URIS } from '../../src/pki/issue.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import type { OidcBank, OidcBankProfile } from '../oidc-bank/index.js';
import { startBankFor } from '../oidc-bank/target.js';

let identity: TestIdentity;
let agent: Agent;
const banks: Partial<Record<OidcBankProfile, OidcBank>> = {};
const REDIRECT = DEFAULT_REDIRECT_URIS[0] ?? '';

beforeAll(async () => {
  identity = await getTestIdentity();
  agent = new Agent({
    connect: { cert: identity.pem.transportCert, key: identity.pem.transportKey, ca: [identity.pem.rootCa, identity.pem.issuingCa] },
  });
  for (const profile of ['sandbox', 'strict'] as const) {
    banks[profile] = await startBankFor(identity, { profile });
  }
});
afterAll(async () => {
  await agent?.close();
  for (const bank of Object.values(banks)) await bank.close();
});

const bankOf = (profile: OidcBankProfile): OidcBank => banks[profile] ?? (undefined as never);
const sign = (claims: Record<string, unknown>, typ = 'JWT') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'PS256', kid: identity.manifest.kid, typ }).sign(createPrivateKey(identity.pem.signingKey));

async function call(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}) {
  const response = await request(url, {
    dispatcher: agent,
    method: init.method ?? 'GET',
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** A DCR v3.2 registration (docs/bank-interface.md §2.1) with the method and request-object alg under test. */
async function register(profile: OidcBankProfile, method: string, requestObjectAlg: string) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = await sign({
    iss: identity.manifest.software_id,
    aud: bankOf(profile).url,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
    software_statement: identity.softwareStatement,
    redirect_uris: DEFAULT_REDIRECT_URIS,
    grant_types: ['authorization_code', 'client_credentials', 'refresh_token'],
    response_types: ['code', 'code id_token'],
    scope: 'openid accounts',
    token_endpoint_auth_method: method,
    token_endpoint_auth_signing_alg: 'PS256',
    id_token_signed_response_alg: 'PS256',
    request_object_signing_alg: requestObjectAlg,
    subject_type: 'public',
    application_type: 'web',
  });
  const url = `${bankOf(profile).url}/dynamic-client-registration/v3.2/register`;
  return call(url, { method: 'POST', headers: { 'content-type': 'application/jwt' }, body: jwt });
}

describe('the glue refuses', () => {
  it('a registration that is not a JWT signed by a statement of the directory', async () => {
    const url = `${bankOf('sandbox').url}/dynamic-client-registration/v3.2/register`;
    const json = await call(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":[]}' });
    expect([json.status, json.json().error]).toEqual([400, 'invalid_request']);
    const unsigned = await call(url, { method: 'POST', headers: { 'content-type': 'application/jwt' }, body: 'e30.e30.' });
    expect([unsigned.status, unsigned.json().error]).toEqual([400, 'invalid_software_statement']);
  });

  it('request_object_signing_alg none in the strict profile, and oidc-provider refuses client_secret_basic there', async () => {
    const none = await register('strict', 'private_key_jwt', 'none');
    expect([none.status, none.json().error]).toEqual([400, 'invalid_client_metadata']);
    const basic = await register('strict', 'client_secret_basic', 'PS256');
    expect([basic.status, basic.json().error]).toEqual([400, 'invalid_client_metadata']);
  });
});

describe('the strict profile (FAPI 1 Advanced) with private_key_jwt and PS256 request objects', () => {
  it('registers, creates a consent, authorises it headlessly, exchanges the code and reads accounts', async () => {
    const bank = bankOf('strict');
    const registered = await register('strict', 'private_key_jwt', 'PS256');
    expect(registered.status, registered.text).toBe(201);
    const clientId = String(registered.json().client_id);
    const assertion = async () => {
      const now = Math.floor(Date.now() / 1000);
      return sign({ iss: clientId, sub: clientId, aud: `${bank.url}/token`, iat: now, exp: now + 300, jti: randomUUID() });
    };
    const token = async (form: Record<string, string>) => {
      const body = new URLSearchParams({
        ...form,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(),
      });
      return call(`${bank.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
    };
    const credentials = await token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(credentials.status, credentials.text).toBe(200);
    const consent = await call(`${bank.url}/open-banking/v3.1/aisp/account-access-consents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${String(credentials.json().access_token)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ Data: { Permissions: ['ReadAccountsDetail'] }, Risk: {} }),
    });
    expect(consent.status, consent.text).toBe(201);
    const consentId = String((consent.json().Data as { ConsentId: string }).ConsentId);

    const authorize = async (responseType: string, extra: Record<string, unknown> = {}, alg: 'PS256' | 'none' = 'PS256') => {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: clientId,
        aud: bank.url,
        iat: now,
        nbf: now,
        exp: now + 300,
        jti: randomUUID(),
        client_id: clientId,
        response_type: responseType,
        redirect_uri: REDIRECT,
        scope: 'openid accounts',
        state: 'state-1',
        nonce: 'nonce-1',
        claims: { id_token: { openbanking_intent_id: { value: consentId, essential: true }, acr: { essential: true } } },
        ...extra,
      };
      const requestObject =
        alg === 'PS256'
          ? await sign(claims, 'oauth-authz-req+jwt')
          : `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
      const query = new URLSearchParams({
        client_id: clientId,
        response_type: responseType,
        scope: 'openid accounts',
        redirect_uri: REDIRECT,
        request: requestObject,
      });
      const response = await call(`${bank.url}/auth?${query.toString()}`);
      const location = new URL(String(response.headers.location ?? 'about:blank'));
      return { status: response.status, params: new URLSearchParams(location.hash.slice(1) || location.search.slice(1)) };
    };
    // What oidc-provider itself refuses in FAPI 1.0 Final mode: an unsigned request object (requireSignedRequestObject),
    // `code` without JARM (FAPI 1 Advanced §5.2.2-2), a request object without nbf (§5.2.2-17).
    expect((await authorize('code id_token', {}, 'none')).params.get('error')).toBe('invalid_request_object');
    const plainCode = await authorize('code');
    expect(plainCode.params.get('error_description')).toBe('requested response_mode is not allowed for this client or request');
    expect((await authorize('code id_token', { nbf: undefined })).params.get('error')).toBe('invalid_request_object');

    const granted = await authorize('code id_token');
    expect(granted.status).toBe(303);
    expect(granted.params.get('error_description')).toBeNull();
    const frontChannel = decodeJwt(granted.params.get('id_token') ?? '');
    expect(frontChannel).toMatchObject({ openbanking_intent_id: consentId, acr: 'urn:openbanking:psd2:sca', s_hash: expect.any(String) });

    const exchanged = await token({ grant_type: 'authorization_code', code: granted.params.get('code') ?? '', redirect_uri: REDIRECT });
    expect(exchanged.status, exchanged.text).toBe(200);
    const bearer = { authorization: `Bearer ${String(exchanged.json().access_token)}` };
    const accounts = await call(`${bank.url}/open-banking/v3.1/aisp/accounts`, { headers: bearer });
    expect(accounts.status, accounts.text).toBe(200);
    expect(decodeJwt(String(exchanged.json().id_token))).toMatchObject({ openbanking_intent_id: consentId });
    // RFC 8705 §3: the token is bound to this transport certificate; another TPP's connection cannot use it.
    const other = await getTestIdentity('second-tpp');
    const otherAgent = new Agent({
      connect: { cert: other.pem.transportCert, key: other.pem.transportKey, ca: [identity.pem.rootCa, identity.pem.issuingCa] },
    });
    const stolen = await request(`${bank.url}/open-banking/v3.1/aisp/accounts`, { dispatcher: otherAgent, headers: bearer });
    await stolen.body.text();
    await otherAgent.close();
    expect(stolen.statusCode).toBe(401);
  });
});
