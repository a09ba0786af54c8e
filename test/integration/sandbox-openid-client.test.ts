// A second client, not written here: panva's openid-client (a certified OpenID Connect relying party) drives the
// emulator's strict profiles over real mutual TLS on port 0, so the hand-written authorisation server is checked by a
// library that knows the standards, not only by our own helper. Discovery, client credentials, an authorisation
// request with a PS256-signed request object (no PAR), the PSU's consent (one GET headless; the bank's pages over the
// wire interactive), the code exchange with the hybrid response's and the token endpoint's ID tokens validated by
// openid-client, a refresh, and an account read with the certificate-bound token.
//
// What openid-client does not do for this bank, and how it is covered (docs/sandbox.md, "A second client"):
// - Registration: openid-client's dynamicClientRegistration posts JSON (RFC 7591 §3.1); OBIE DCR v3.2 posts a signed
//   JWT (application/jwt). The client is registered by test/helpers/sandbox-client.ts and openid-client is handed its
//   client_id and client_secret.
// - Query copies: buildAuthorizationUrlWithJAR puts only client_id and request in the URL (RFC 9101 §5); OIDC Core
//   §6.1 also requires response_type and scope as query parameters, and the strict profiles enforce it. The test adds
//   them to openid-client's URL, and checks that the URL as openid-client builds it is refused for exactly that.
// - The PSU: openid-client stops at the redirect; the consent is given as the other tests give it.

import { randomUUID } from 'node:crypto';

import { importPKCS8 } from 'jose';
import * as client from 'openid-client';
import { fetch as undiciFetch } from 'undici';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProfileName } from '../../src/sandbox/contracts.js';
import { userByUsername } from '../../src/sandbox/data/users.js';
import { BANK_FINANCIAL_ID, mtlsAgent, SandboxTpp, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';

const STRICT: readonly ProfileName[] = ['strict-headless', 'strict-interactive'];
const CLAIMS = (consentId: string): string =>
  JSON.stringify({
    id_token: {
      openbanking_intent_id: { value: consentId, essential: true },
      acr: { essential: true, values: ['urn:openbanking:psd2:sca'] },
    },
  });

let agent: Agent;
const tpps = new Map<ProfileName, SandboxTpp>();

const sandbox = useTestSandbox({ seed: 'openid-client-test' });

beforeAll(async () => {
  agent = mtlsAgent(sandbox.identity);
  for (const profile of STRICT) {
    const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
    // PS256 request objects: the client registers the algorithm, so an unsigned one would be refused.
    await tpp.register({ request_object_signing_alg: 'PS256' });
    tpps.set(profile, tpp);
  }
});

afterAll(async () => {
  await Promise.all([...tpps.values()].map((tpp) => tpp.close()));
  await agent?.close();
});

function tppOf(profile: ProfileName): SandboxTpp {
  const tpp = tpps.get(profile);
  if (!tpp) throw new TypeError(profile);
  return tpp;
}

/** openid-client's Configuration for one profile: discovery over mutual TLS (undici Agent with the transport
 *  certificate, through customFetch), client_secret_basic, PS256 ID tokens, and the given response type. */
async function configure(profile: ProfileName, responseType: 'code' | 'code id_token'): Promise<client.Configuration> {
  const tpp = tppOf(profile);
  const registered = tpp.client;
  if (!registered) throw new TypeError('not registered');
  const customFetch: client.CustomFetch = (url, options) =>
    undiciFetch(url, { ...options, dispatcher: agent } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;
  return client.discovery(
    new URL(tpp.issuer),
    registered.client_id,
    { id_token_signed_response_alg: 'PS256', redirect_uris: registered.redirect_uris },
    client.ClientSecretBasic(registered.client_secret),
    { [client.customFetch]: customFetch, ...(responseType === 'code id_token' ? { execute: [client.useCodeIdTokenResponseType] } : {}) },
  );
}

async function signingKey(): Promise<client.PrivateKey> {
  return { key: await importPKCS8(sandbox.identity.pem.signingKey, 'PS256'), kid: sandbox.identity.manifest.kid };
}

/** Client credentials and POST /account-access-consents, both through openid-client; returns the ConsentId. */
async function createConsent(config: client.Configuration): Promise<string> {
  const granted = await client.clientCredentialsGrant(config, { scope: 'accounts' });
  expect(granted.token_type.toLowerCase()).toBe('bearer');
  expect(granted.scope).toBe('accounts');
  const response = await client.fetchProtectedResource(
    config,
    granted.access_token,
    new URL(`${sandbox.urls.aisp_base_url}/account-access-consents`),
    'POST',
    JSON.stringify({
      Data: {
        Permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail', 'ReadTransactionsCredits', 'ReadTransactionsDebits'],
      },
      Risk: {},
    }),
    new Headers({ 'content-type': 'application/json', accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { Data: { ConsentId: string } }).Data.ConsentId;
}

/** The PSU's part: headless answers the consent URL at once; interactive logs in as sam and confirms every account. */
async function consent(profile: ProfileName, url: URL): Promise<WireResponse> {
  const tpp = tppOf(profile);
  if (profile.endsWith('-headless')) return tpp.fetch('GET', url.href);
  const sam = userByUsername('sam');
  if (!sam) throw new TypeError('test user sam');
  return tpp.consentAtThePages(url.href, { username: sam.username, password: sam.password });
}

describe.each(STRICT)('openid-client against %s', (profile) => {
  it('discovers the issuer, with the metadata a FAPI client needs', async () => {
    const config = await configure(profile, 'code id_token');
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(sandbox.urls.profiles[profile].auth_url);
    expect(metadata.token_endpoint).toBe(sandbox.urls.profiles[profile].token_url);
    expect(metadata.authorization_endpoint).toBe(sandbox.urls.profiles[profile].authorization_endpoint);
    expect(metadata.response_types_supported).toContain('code id_token');
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'private_key_jwt', 'tls_client_auth']);
    expect(metadata.request_object_signing_alg_values_supported).toContain('PS256');
    expect(metadata.tls_client_certificate_bound_access_tokens).toBe(true);
  });

  for (const responseType of ['code id_token', 'code'] as const) {
    it(`runs the whole ${responseType} flow with a signed request object; openid-client validates the ID tokens`, async () => {
      const config = await configure(profile, responseType);
      const consentId = await createConsent(config);
      const state = client.randomState();
      const nonce = client.randomNonce();
      const verifier = client.randomPKCECodeVerifier();
      const redirectUri = tppOf(profile).client?.redirect_uris[0] ?? '';
      const url = await client.buildAuthorizationUrlWithJAR(
        config,
        {
          redirect_uri: redirectUri,
          scope: 'openid accounts',
          state,
          nonce,
          claims: CLAIMS(consentId),
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        },
        await signingKey(),
      );
      // openid-client sends only client_id and request (RFC 9101 §5); OIDC Core §6.1 wants these copies too.
      expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
      url.searchParams.set('response_type', responseType);
      url.searchParams.set('scope', 'openid accounts');

      const answer = await consent(profile, url);
      expect(answer.status).toBe(303);
      const location = answer.headers.location;
      if (typeof location !== 'string') throw new TypeError('no redirect');
      expect(location.startsWith(redirectUri)).toBe(true);
      // The hybrid response is in the fragment (OIDC Core §3.3.2.5), the code response in the query.
      expect(new URL(location).hash.includes('code=')).toBe(responseType === 'code id_token');

      // Validates the authorisation response (state; for the hybrid response the ID token's signature, iss, aud,
      // nonce, c_hash and s_hash), exchanges the code with client_secret_basic over mutual TLS, validates the token
      // endpoint's ID token (signature, iss, aud, nonce, at_hash when present).
      const tokens = await client.authorizationCodeGrant(config, new URL(location), {
        expectedState: state,
        expectedNonce: nonce,
        pkceCodeVerifier: verifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      expect(claims?.sub).toBe(consentId);
      expect(claims?.openbanking_intent_id).toBe(consentId);
      expect(claims?.acr).toBe('urn:openbanking:psd2:sca');
      expect(claims?.iss).toBe(sandbox.urls.profiles[profile].auth_url);
      expect(claims?.aud).toBe(tppOf(profile).client?.client_id);
      expect(tokens.scope).toBe('openid accounts');
      expect(tokens.refresh_token).toBeTypeOf('string');

      // The access token reads the PSU's accounts: bound to the certificate it was issued to (RFC 8705 §3).
      const accounts = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${sandbox.urls.aisp_base_url}/accounts`),
        'GET',
        null,
        new Headers({ accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID, 'x-fapi-interaction-id': randomUUID() }),
      );
      expect(accounts.status).toBe(200);
      const held = ((await accounts.json()) as { Data: { Account: unknown[] } }).Data.Account;
      // Headless: alex's four accounts; interactive: sam's three, all confirmed (docs/sandbox.md, "Test users").
      expect(held).toHaveLength(profile.endsWith('-headless') ? 4 : 3);

      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '');
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.scope).toBe('openid accounts');
    });
  }

  it('refuses the URL exactly as openid-client builds it: OIDC Core §6.1 wants response_type and scope in the query', async () => {
    const config = await configure(profile, 'code id_token');
    const consentId = await createConsent(config);
    const state = client.randomState();
    const nonce = client.randomNonce();
    const redirectUri = tppOf(profile).client?.redirect_uris[0] ?? '';
    const url = await client.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: redirectUri, scope: 'openid accounts', state, nonce, claims: CLAIMS(consentId) },
      await signingKey(),
    );
    const answer = await tppOf(profile).fetch('GET', url.href);
    expect(answer.status).toBe(303);
    const location = new URL(String(answer.headers.location));
    const params = new URLSearchParams(location.hash.slice(1));
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toBe('client_id, response_type and scope must also be query parameters');
    expect(params.get('state')).toBe(state);
    // openid-client reads the error response as one.
    await expect(client.authorizationCodeGrant(config, location, { expectedState: state, expectedNonce: nonce })).rejects.toMatchObject({
      error: 'invalid_request',
    });
  });
});
