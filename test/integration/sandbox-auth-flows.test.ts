// The authorisation flows of all four profiles over real mutual TLS: consent (created through the resource API),
// authorise (headless: one GET; interactive: the bank's pages over the wire), code exchange, ID tokens and their
// hashes, code reuse, refresh, and the rules only strict profiles enforce next to what permissive ones tolerate.

import { createHash, randomUUID } from 'node:crypto';

import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';

import type { ProfileName } from '../../src/sandbox/contracts.js';
import { PROFILE_NAMES } from '../../src/sandbox/contracts.js';
import { accountIdOf, holdingsOf, userByUsername } from '../../src/sandbox/data/users.js';
import { getTestIdentity } from '../helpers/identity.js';
import type { TestIdentity } from '../helpers/identity.js';
import { BANK_FINANCIAL_ID, SandboxTpp, useTestSandbox } from '../helpers/sandbox-client.js';
import type { AuthorizeOptions, AuthorizeResult } from '../helpers/sandbox-client.js';

const SEED = 'flows-test-seed';
let second: TestIdentity;
const tpps = new Map<ProfileName, SandboxTpp>();

const sandbox = useTestSandbox({ seed: SEED });

beforeAll(async () => {
  second = await getTestIdentity('second-tpp');
  for (const profile of PROFILE_NAMES) tpps.set(profile, await sandbox.tpp(profile));
});

function tppOf(profile: ProfileName): SandboxTpp {
  const tpp = tpps.get(profile);
  if (!tpp) throw new TypeError(profile);
  return tpp;
}

/** OIDC Core §3.3.2.11, computed independently of the emulator. */
function halfHash(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest().subarray(0, 16).toString('base64url');
}

async function jwksOf(tpp: SandboxTpp): Promise<ReturnType<typeof createLocalJWKSet>> {
  const response = await tpp.fetch('GET', `${tpp.issuer}/jwks`);
  return createLocalJWKSet(response.json<JSONWebKeySet>());
}

async function consentStatus(tpp: SandboxTpp, consentId: string): Promise<{ Status: string; accountIds?: string[] }> {
  const token = await tpp.clientCredentials();
  const response = await tpp.fetch('GET', `${sandbox.urls.aisp_base_url}/account-access-consents/${consentId}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID },
  });
  expect(response.status).toBe(200);
  return response.json<{ Data: { Status: string } }>().Data;
}

/** Authorise the way the profile works: one GET (headless) or the pages as alex (interactive). */
function authorise(tpp: SandboxTpp, options: AuthorizeOptions): Promise<AuthorizeResult> {
  if (tpp.profile.endsWith('headless')) return tpp.authorize(options);
  const alex = userByUsername('alex');
  return tpp.authorizeInteractive(options, { username: alex?.username ?? '', password: alex?.password ?? '' });
}

describe.each(PROFILE_NAMES)('%s', (profile) => {
  it.each(['code', 'code id_token'] as const)('authorises with response_type %s and exchanges the code once', async (responseType) => {
    const tpp = tppOf(profile);
    const consentId = await tpp.createConsent();
    const result = await authorise(tpp, { consentId, responseType });
    expect(result.status).toBe(303);
    const location = result.location ?? '';
    expect(location.startsWith(`${tpp.client?.redirect_uris[0]}${responseType === 'code' ? '?' : '#'}`)).toBe(true);
    const code = result.params.get('code') ?? '';
    expect(code).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(result.params.get('state')).toBe(result.state);

    const jwks = await jwksOf(tpp);
    if (responseType === 'code id_token') {
      const { payload, protectedHeader } = await jwtVerify(result.params.get('id_token') ?? '', jwks, {
        issuer: tpp.issuer,
        audience: tpp.client?.client_id ?? '',
      });
      expect(protectedHeader.alg).toBe('PS256');
      expect(payload).toMatchObject({
        sub: consentId,
        openbanking_intent_id: consentId,
        acr: 'urn:openbanking:psd2:sca',
        nonce: result.nonce,
        c_hash: halfHash(code),
        s_hash: halfHash(result.state ?? ''),
      });
      expect(typeof payload.iat).toBe('number');
      expect(payload.exp).toBeGreaterThan(payload.iat ?? 0);
    } else {
      expect(result.params.get('id_token')).toBeNull();
    }

    const exchanged = await tpp.exchangeCode(code, result.redirectUri);
    expect(exchanged.status).toBe(200);
    const tokens = exchanged.json<{ access_token: string; refresh_token: string; id_token: string; token_type: string; scope: string }>();
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid accounts' });
    const { payload } = await jwtVerify(tokens.id_token, jwks, { issuer: tpp.issuer, audience: tpp.client?.client_id ?? '' });
    expect(payload).toMatchObject({
      sub: consentId,
      openbanking_intent_id: consentId,
      acr: 'urn:openbanking:psd2:sca',
      at_hash: halfHash(tokens.access_token),
      nonce: result.nonce,
    });

    // The PSU (alex) authorised every account they hold.
    const consent = await consentStatus(tpp, consentId);
    expect(consent.Status).toBe('Authorised');

    const refreshed = await tpp.token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json()).toMatchObject({ token_type: 'Bearer', scope: 'openid accounts' });

    const reuse = await tpp.exchangeCode(code, result.redirectUri);
    expect(reuse.status).toBe(400);
    expect(reuse.json()).toMatchObject({ error: 'invalid_grant' });
    // RFC 6749 §4.1.2: a replayed code revokes what was issued from it, refresh token included.
    const afterReuse = await tpp.token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(afterReuse.status).toBe(400);
    expect(afterReuse.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('code exchange refusals (every profile)', () => {
  it.each(PROFILE_NAMES)('%s: wrong secret → 401, another client → invalid_grant, other redirect_uri → invalid_grant', async (profile) => {
    const tpp = tppOf(profile);
    const consentId = await tpp.createConsent();
    const result = await authorise(tpp, { consentId, responseType: 'code' });
    const code = result.params.get('code') ?? '';

    const wrongSecret = await tpp.token(
      { grant_type: 'authorization_code', code, redirect_uri: result.redirectUri ?? '' },
      { secret: 'wrong-secret' },
    );
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json()).toMatchObject({ error: 'invalid_client' });

    const otherClient = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
    sandbox.track(otherClient);
    await otherClient.register();
    const stolen = await otherClient.exchangeCode(code, result.redirectUri);
    expect(stolen.status).toBe(400);
    expect(stolen.json()).toMatchObject({ error: 'invalid_grant' });

    const otherRedirect = await tpp.exchangeCode(code, tpp.client?.redirect_uris[1]);
    expect(otherRedirect.status).toBe(400);
    expect(otherRedirect.json()).toMatchObject({ error: 'invalid_grant' });

    // None of the refusals consumed the code.
    expect((await tpp.exchangeCode(code, result.redirectUri)).status).toBe(200);
  });
});

describe('headless users', () => {
  it('login_hint picks another test user, whose accounts the consent then names', async () => {
    const tpp = tppOf('permissive-headless');
    const consentId = await tpp.createConsent();
    const result = await tpp.authorize({ consentId, loginHint: 'sam' });
    expect(result.params.get('code')).toBeTruthy();
    const consent = await consentStatus(tpp, consentId);
    expect(consent.Status).toBe('Authorised');
  });

  it('an unknown login_hint goes back as login_required', async () => {
    const tpp = tppOf('strict-headless');
    const result = await tpp.authorize({ consentId: await tpp.createConsent(), loginHint: 'mallory' });
    expect(result.params.get('error')).toBe('login_required');
    expect(result.params.get('state')).toBe(result.state);
  });

  it('error_description keeps to the RFC 6749 §4.1.2.1 characters even when it quotes client input', async () => {
    const tpp = tppOf('permissive-headless');
    const hint = await tpp.authorize({ consentId: await tpp.createConsent(), loginHint: 'mal"lory\\\u00e9\n' });
    expect(hint.params.get('error')).toBe('login_required');
    const type = await tpp.authorize({ consentId: await tpp.createConsent(), objectClaims: { response_type: 'token"' } });
    expect(type.params.get('error')).toBe('unsupported_response_type');
    for (const description of [hint.params.get('error_description'), type.params.get('error_description')]) {
      expect(description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
    }
    expect(hint.params.get('error_description')).toContain("mal'lory/");
  });
});

describe('interactive pages over the wire', () => {
  it('Cancel redirects with access_denied and state, and the consent becomes Rejected', async () => {
    const tpp = tppOf('strict-interactive');
    const consentId = await tpp.createConsent();
    const result = await tpp.authorizeInteractive(
      { consentId, responseType: 'code' },
      { username: 'sam', password: userByUsername('sam')?.password ?? '', cancel: true },
    );
    expect(result.status).toBe(303);
    expect(result.params.get('error')).toBe('access_denied');
    expect(result.params.get('state')).toBe(result.state);
    expect((await consentStatus(tpp, consentId)).Status).toBe('Rejected');
  });

  it('a wrong password stays on the login page', async () => {
    const tpp = tppOf('permissive-interactive');
    const result = await tpp.authorizeInteractive({ consentId: await tpp.createConsent() }, { username: 'alex', password: 'wrong' });
    expect(result.status).toBe(401);
    expect(result.location).toBeUndefined();
    expect(result.response.text).toContain('role="alert"');
  });

  it('Confirm with two of three accounts authorises exactly those', async () => {
    const tpp = tppOf('permissive-interactive');
    const consentId = await tpp.createConsent();
    const result = await tpp.authorizeInteractive(
      { consentId, responseType: 'code' },
      { username: 'sam', password: userByUsername('sam')?.password ?? '', accounts: [0, 2] },
    );
    const sam = holdingsOf('psu-sam').map((h) => accountIdOf(SEED, h.key));
    expect(sam).toHaveLength(3);
    expect((await consentStatus(tpp, consentId)).Status).toBe('Authorised');
    const exchanged = await tpp.exchangeCode(result.params.get('code') ?? '', result.redirectUri);
    const accounts = await tpp.fetch('GET', `${sandbox.urls.aisp_base_url}/accounts`, {
      headers: {
        authorization: `Bearer ${exchanged.json<{ access_token: string }>().access_token}`,
        accept: 'application/json',
        'x-fapi-financial-id': BANK_FINANCIAL_ID,
      },
    });
    expect(accounts.status).toBe(200);
    const ids = accounts.json<{ Data: { Account: Array<{ AccountId: string }> } }>().Data.Account.map((a) => a.AccountId);
    expect(ids.sort()).toEqual([sam[0], sam[2]].sort());
  });
});

describe('strict-only rules, and what permissive profiles tolerate', () => {
  type Case = [name: string, options: Omit<AuthorizeOptions, 'consentId'>, strictError: string];
  const cases: Case[] = [
    ['no nonce', { responseType: 'code', nonce: null }, 'invalid_request'],
    ['no request object (parameters only in the query)', { responseType: 'code', requestObject: false }, 'invalid_request'],
    ['a request object without exp', { objectClaims: { exp: undefined } }, 'invalid_request_object'],
    // FAPI 1 Advanced Part 2 §5.2.2-17: "shall require the request object to contain an nbf claim …".
    ['a request object without nbf', { objectClaims: { nbf: undefined } }, 'invalid_request_object'],
    ['a request object without aud', { objectClaims: { aud: undefined } }, 'invalid_request_object'],
    ['a non-essential openbanking_intent_id', { essential: false }, 'invalid_request'],
    ['extra spaces in scope', { scope: 'openid  accounts ' }, 'invalid_scope'],
    // OIDC Core §6.1 / FAPI 1 Advanced §5.2.2-10: strict reads these from the request object only.
    [
      'a request object without response_type (only in the query)',
      { objectClaims: { response_type: undefined } },
      'invalid_request_object',
    ],
    ['a request object without scope (only in the query)', { objectClaims: { scope: undefined } }, 'invalid_request_object'],
    ["a query scope other than the request object's", { scope: 'openid', objectClaims: { scope: 'openid accounts' } }, 'invalid_request'],
  ];

  it.each(cases)('%s: strict refuses, permissive tolerates', async (_name, options, strictError) => {
    const strict = tppOf('strict-headless');
    const refused = await strict.authorize({ ...options, consentId: await strict.createConsent() });
    expect(refused.status).toBe(303);
    expect(refused.params.get('error')).toBe(strictError);
    expect(refused.params.get('code')).toBeNull();

    const permissive = tppOf('permissive-headless');
    const accepted = await permissive.authorize({ ...options, consentId: await permissive.createConsent() });
    expect(accepted.status).toBe(303);
    expect(accepted.params.get('error')).toBeNull();
    expect((await permissive.exchangeCode(accepted.params.get('code') ?? '', accepted.redirectUri)).status).toBe(200);
  });

  // Found against oidc-provider (test/oidc-bank), which asks for state only without openid: strict used to refuse it always.
  it('no state with openid and nonce: every profile accepts it (FAPI 1 Baseline §5.2.2.3), and the id_token has no s_hash', async () => {
    for (const profile of ['strict-headless', 'permissive-headless'] as const) {
      const tpp = tppOf(profile);
      const accepted = await tpp.authorize({ responseType: 'code id_token', state: null, consentId: await tpp.createConsent() });
      expect(accepted.params.get('error_description'), profile).toBeNull();
      expect(decodeJwt(accepted.params.get('id_token') ?? '').s_hash, profile).toBeUndefined();
      expect((await tpp.exchangeCode(accepted.params.get('code') ?? '', accepted.redirectUri)).status).toBe(200);
    }
    // Without openid (permissive only, scope-without-openid) state is what binds the answer: tolerated by state-optional.
    const permissive = tppOf('permissive-headless');
    const bare = await permissive.authorize({
      responseType: 'code',
      scope: 'accounts',
      state: null,
      consentId: await permissive.createConsent(),
    });
    expect(bare.params.get('error_description')).toBeNull();
    expect(bare.params.get('code')).toBeTruthy();
  });

  it('strict refuses a request object living longer than 60 minutes after its nbf, an nbf in the future, and one for another audience', async () => {
    const strict = tppOf('strict-headless');
    const now = Math.floor(Date.now() / 1000);
    const long = await strict.authorize({ consentId: await strict.createConsent(), objectClaims: { exp: now + 7200 } });
    expect(long.params.get('error')).toBe('invalid_request_object');
    // §5.2.2-13: exp no more than 60 minutes after nbf, even when exp itself is near.
    const early = await strict.authorize({ consentId: await strict.createConsent(), objectClaims: { nbf: now - 3000, exp: now + 1200 } });
    expect(early.params.get('error')).toBe('invalid_request_object');
    // §5.2.2-17: nbf no longer than 60 minutes in the past (with exp − nbf within the limit such an object has
    // expired: refused either way); RFC 7519 §4.1.5: not before nbf.
    const stale = await strict.authorize({ consentId: await strict.createConsent(), objectClaims: { nbf: now - 3900, exp: now + 600 } });
    expect(stale.params.get('error')).toBe('invalid_request_object');
    const future = await strict.authorize({ consentId: await strict.createConsent(), objectClaims: { nbf: now + 600, exp: now + 900 } });
    expect(future.params.get('error')).toBe('invalid_request_object');
    // The boundary: exactly 60 minutes from nbf to exp is accepted.
    const limit = await strict.authorize({ consentId: await strict.createConsent(), objectClaims: { nbf: now, exp: now + 3600 } });
    expect(limit.params.get('error')).toBeNull();
    expect(limit.params.get('code')).toBeTruthy();
    const aud = await strict.authorize({ consentId: await strict.createConsent(), objectClaims: { aud: 'https://other.example' } });
    expect(aud.params.get('error')).toBe('invalid_request_object');
  });

  it.each(['strict-headless', 'permissive-headless'] as const)(
    '%s accepts a PS256-signed request object and refuses one signed by another key',
    async (profile) => {
      const tpp = tppOf(profile);
      const signed = await tpp.authorize({ consentId: await tpp.createConsent(), requestObject: 'PS256' });
      expect(signed.params.get('code')).toBeTruthy();
      const forged = new SandboxTpp(
        sandbox.urls,
        { ...sandbox.identity, pem: { ...sandbox.identity.pem, signingKey: second.pem.signingKey } },
        profile,
        tpp.agent,
      );
      forged.client = tpp.client;
      const refused = await forged.authorize({ consentId: await tpp.createConsent(), requestObject: 'PS256' });
      expect(refused.params.get('error')).toBe('invalid_request_object');
    },
  );

  it('a client that registered request_object_signing_alg PS256 has unsigned request objects refused', async () => {
    const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-headless');
    sandbox.track(tpp);
    await tpp.register({ request_object_signing_alg: 'PS256' });
    const unsigned = await tpp.authorize({ consentId: await tpp.createConsent() });
    expect(unsigned.params.get('error')).toBe('invalid_request_object');
    const signed = await tpp.authorize({ consentId: await tpp.createConsent(), requestObject: 'PS256' });
    expect(signed.params.get('code')).toBeTruthy();
  });

  it.each(['strict-headless', 'permissive-headless'] as const)(
    '%s: an unregistered redirect_uri gets an error page, never a redirect',
    async (profile) => {
      const tpp = tppOf(profile);
      const result = await tpp.authorize({ consentId: await tpp.createConsent(), redirectUri: 'https://evil.example/callback' });
      expect(result.status).toBe(400);
      expect(result.location).toBeUndefined();
      expect(String(result.response.headers['content-type'])).toMatch(/^text\/html/);
      expect(result.response.text).toContain('not registered');
    },
  );

  it.each(['strict-headless', 'permissive-headless'] as const)(
    "%s: another client's consent is refused and stays AwaitingAuthorisation",
    async (profile) => {
      const owner = tppOf(profile === 'strict-headless' ? 'permissive-headless' : 'strict-headless');
      const consentId = await owner.createConsent();
      const tpp = tppOf(profile);
      const result = await tpp.authorize({ consentId });
      expect(result.params.get('error')).toBe('invalid_request');
      expect(result.params.get('code')).toBeNull();
      expect((await consentStatus(owner, consentId)).Status).toBe('AwaitingAuthorisation');
    },
  );

  it('an unknown consent and an already authorised one are refused', async () => {
    const tpp = tppOf('permissive-headless');
    expect((await tpp.authorize({ consentId: randomUUID() })).params.get('error')).toBe('invalid_request');
    const consentId = await tpp.createConsent();
    expect((await tpp.authorize({ consentId })).params.get('code')).toBeTruthy();
    expect((await tpp.authorize({ consentId })).params.get('error')).toBe('invalid_request');
  });

  it('PKCE (RFC 7636): a code_challenge is enforced at the token endpoint; strict takes S256 only', async () => {
    const tpp = tppOf('strict-headless');
    const verifier = `${randomUUID()}-${randomUUID()}`;
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const result = await tpp.authorize({
      consentId: await tpp.createConsent(),
      objectClaims: { code_challenge: challenge, code_challenge_method: 'S256' },
    });
    const code = result.params.get('code') ?? '';
    expect(code).not.toBe('');
    const missing = await tpp.exchangeCode(code, result.redirectUri);
    expect(missing.status).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_grant' });
    const wrong = await tpp.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: result.redirectUri ?? '',
      code_verifier: `${verifier}x`,
    });
    expect(wrong.json()).toMatchObject({ error: 'invalid_grant' });
    const right = await tpp.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: result.redirectUri ?? '',
      code_verifier: verifier,
    });
    expect(right.status).toBe(200);

    const plain = await tpp.authorize({
      consentId: await tpp.createConsent(),
      objectClaims: { code_challenge: verifier, code_challenge_method: 'plain' },
    });
    expect(plain.params.get('error')).toBe('invalid_request');
  });

  it('strict: tokens and refresh tokens stay with the certificate of the software statement', async () => {
    const tpp = tppOf('strict-headless');
    const flow = await tpp.headlessFlow();
    const moved = tpp.withIdentity(second);
    sandbox.track(moved);
    const refresh = await moved.token({ grant_type: 'refresh_token', refresh_token: flow.refreshToken ?? '' });
    expect(refresh.status).toBe(401);
    expect(refresh.json()).toMatchObject({ error: 'invalid_client' });
    // RFC 8705: the resource server refuses the access token when another certificate presents it.
    const accounts = await moved.fetch('GET', `${sandbox.urls.aisp_base_url}/accounts`, {
      headers: { authorization: `Bearer ${flow.accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID },
    });
    expect(accounts.status).toBe(401);
    const own = await tpp.fetch('GET', `${sandbox.urls.aisp_base_url}/accounts`, {
      headers: { authorization: `Bearer ${flow.accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID },
    });
    expect(own.status).toBe(200);
  });
});
