// The emulator's client authentication per registered method, on the wire over mutual TLS:
// private_key_jwt (RFC 7523 §3: signature with the statement's keys, iss/sub, aud, exp, jti replay), tls_client_auth
// (RFC 8705 §2.1.2: the presented subject DN; permissive tolerates RDN order and the OpenSSL form), only the method
// registered, and a bank that accepts only private_key_jwt and tls_client_auth (`--token-auth`).

import { generateKeyPairSync, X509Certificate } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProfileName } from '../../src/sandbox/contracts.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { SandboxTpp, startTestSandbox, type TestSandbox, type WireResponse } from '../helpers/sandbox-client.js';
import { signClientAssertion } from '../helpers/client-assertion.js';

let sandbox: TestSandbox;
let narrow: TestSandbox;
let identity: TestIdentity;
const tpps: SandboxTpp[] = [];

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox();
  narrow = await startTestSandbox({ tokenAuthMethods: ['private_key_jwt', 'tls_client_auth'] });
});
afterAll(async () => {
  for (const tpp of tpps) await tpp.close();
  await sandbox?.close();
  await narrow?.close();
});

/** The transport certificate's subject DN, RFC 4514 (most specific first). */
function transportDn(): string {
  return new X509Certificate(identity.pem.transportCert).subject.split('\n').reverse().join(',');
}

function tppOf(on: TestSandbox, profile: ProfileName = 'strict-headless'): SandboxTpp {
  const tpp = new SandboxTpp(on.urls, identity, profile);
  tpps.push(tpp);
  return tpp;
}

/** A client assertion (RFC 7523 §3) for `tpp`'s client, with claim overrides (undefined deletes) and another key. */
function assertion(tpp: SandboxTpp, overrides: Record<string, unknown> = {}, key = identity.pem.signingKey): Promise<string> {
  const aud = tpp.urls.profiles[tpp.profile].token_url;
  return signClientAssertion({ clientId: String(tpp.client?.client_id), aud, key, kid: identity.manifest.kid, overrides, typ: 'JWT' });
}

function withAssertion(tpp: SandboxTpp, jwt: string): Promise<WireResponse> {
  return tpp.token(
    {
      grant_type: 'client_credentials',
      scope: 'accounts',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: jwt,
    },
    { authorization: null },
  );
}

function withClientId(tpp: SandboxTpp): Promise<WireResponse> {
  return tpp.token(
    { grant_type: 'client_credentials', scope: 'accounts', client_id: String(tpp.client?.client_id) },
    { authorization: null },
  );
}

function expectRefused(response: WireResponse, error: string, pattern: RegExp): void {
  expect(response.status, response.text).toBe(error === 'invalid_client' ? 401 : 400);
  expect(response.json()).toMatchObject({ error });
  expect(String(response.json().error_description)).toMatch(pattern);
}

describe('private_key_jwt (RFC 7523 §3)', () => {
  let tpp: SandboxTpp;
  beforeAll(async () => {
    tpp = tppOf(sandbox);
    const client = await tpp.register({ token_endpoint_auth_method: 'private_key_jwt' });
    expect(client.client_secret).toBeUndefined();
    expect(client).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'PS256' });
  });

  it('a good assertion gets a token; the issuer as aud is accepted too', async () => {
    expect((await withAssertion(tpp, await assertion(tpp))).status).toBe(200);
    expect((await withAssertion(tpp, await assertion(tpp, { aud: tpp.issuer }))).status).toBe(200);
  });

  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const cases: [string, (tpp: SandboxTpp) => Promise<string>, RegExp][] = [
    [
      'aud another token endpoint',
      (t) => assertion(t, { aud: t.urls.profiles['permissive-headless'].token_url }),
      /aud .* is not this token endpoint/,
    ],
    ['expired', (t) => assertion(t, { iat: Math.floor(Date.now() / 1000) - 900, exp: Math.floor(Date.now() / 1000) - 600 }), /expired/],
    ['no exp', (t) => assertion(t, { exp: undefined }), /exp/],
    ['exp far ahead', (t) => assertion(t, { exp: Math.floor(Date.now() / 1000) + 86_400 }), /exp is more than/],
    ['no jti', (t) => assertion(t, { jti: undefined }), /jti/],
    ['sub not the client', (t) => assertion(t, { sub: 'someone-else' }), /sub must be the client id/],
    ['iss no client', (t) => assertion(t, { iss: 'no-such-client', sub: 'no-such-client' }), /is no client/],
    ["signed with a key not in the statement's JWKS", (t) => assertion(t, {}, otherKey), /signature does not verify/],
  ];
  it.each(cases)('%s → invalid_client', async (_name, build, pattern) => {
    expectRefused(await withAssertion(tpp, await build(tpp)), 'invalid_client', pattern);
  });

  it('a replayed jti is refused the second time', async () => {
    const jwt = await assertion(tpp);
    expect((await withAssertion(tpp, jwt)).status).toBe(200);
    expectRefused(await withAssertion(tpp, jwt), 'invalid_client', /already used/);
  });

  it('a wrong client_assertion_type is refused', async () => {
    const response = await tpp.token(
      { grant_type: 'client_credentials', client_assertion_type: 'urn:example:other', client_assertion: await assertion(tpp) },
      { authorization: null },
    );
    expectRefused(response, 'invalid_client', /client_assertion_type must be/);
  });

  it('the client must use the method it registered: client_id alone (tls_client_auth) is refused', async () => {
    expectRefused(await withClientId(tpp), 'invalid_client', /registered token_endpoint_auth_method private_key_jwt, not tls_client_auth/);
  });
});

describe('tls_client_auth (RFC 8705 §2.1.2)', () => {
  it('the registered DN of the presented certificate gets a token, with no secret issued', async () => {
    const tpp = tppOf(sandbox);
    const client = await tpp.register({
      token_endpoint_auth_method: 'tls_client_auth',
      token_endpoint_auth_signing_alg: undefined,
      tls_client_auth_subject_dn: transportDn(),
    });
    expect(client.client_secret).toBeUndefined();
    expect(client.tls_client_auth_subject_dn).toBe(transportDn());
    expect((await withClientId(tpp)).status).toBe(200);
    // Basic (even with the empty secret it has not got) is not its method.
    expectRefused(
      await tpp.token({ grant_type: 'client_credentials' }, { authorization: tpp.basicAuth('') }),
      'invalid_client',
      /registered token_endpoint_auth_method tls_client_auth, not client_secret_basic/,
    );
  });

  it('the client must use the method it registered: a valid client assertion is refused', async () => {
    const tpp = tppOf(sandbox);
    await tpp.register({
      token_endpoint_auth_method: 'tls_client_auth',
      token_endpoint_auth_signing_alg: undefined,
      tls_client_auth_subject_dn: transportDn(),
    });
    expectRefused(
      await withAssertion(tpp, await assertion(tpp)),
      'invalid_client',
      /registered token_endpoint_auth_method tls_client_auth, not private_key_jwt/,
    );
  });

  it('a client_secret_basic client presenting client_id alone is refused (tls_client_auth is not its method)', async () => {
    const tpp = tppOf(sandbox);
    await tpp.register();
    expectRefused(
      await withClientId(tpp),
      'invalid_client',
      /registered token_endpoint_auth_method client_secret_basic, not tls_client_auth/,
    );
  });

  it('another DN than the presented certificate’s is refused, naming both', async () => {
    const tpp = tppOf(sandbox);
    await tpp.register({
      token_endpoint_auth_method: 'tls_client_auth',
      token_endpoint_auth_signing_alg: undefined,
      tls_client_auth_subject_dn: 'CN=someone-else,O=OpenBanking,C=GB',
    });
    expectRefused(
      await withClientId(tpp),
      'invalid_client',
      /subject DN 'CN=.*' is not the registered tls_client_auth_subject_dn 'CN=someone-else/,
    );
  });

  const reversed = () => transportDn().split(',').reverse().join(',');
  const openssl = () => `/${transportDn().split(',').reverse().join('/')}`;
  it.each([
    ['RDNs in the other order', reversed],
    ['the OpenSSL /C=GB/O=… form', openssl],
  ])('%s: strict refuses (RFC 4514 equality), permissive accepts (tls-client-auth-dn-form)', async (_name, dn) => {
    for (const [profile, status] of [
      ['strict-headless', 401],
      ['permissive-headless', 200],
    ] as const) {
      const tpp = tppOf(sandbox, profile);
      await tpp.register({
        token_endpoint_auth_method: 'tls_client_auth',
        token_endpoint_auth_signing_alg: undefined,
        tls_client_auth_subject_dn: dn(),
      });
      expect((await withClientId(tpp)).status, profile).toBe(status);
    }
  });

  it('registration: tls_client_auth needs its DN; the DN beside another method is refused', async () => {
    const tpp = tppOf(sandbox);
    const without = await tpp.registerRaw(
      await tpp.signRegistration(
        tpp.registrationClaims({ token_endpoint_auth_method: 'tls_client_auth', token_endpoint_auth_signing_alg: undefined }),
      ),
    );
    expectRefused(without, 'invalid_client_metadata', /needs tls_client_auth_subject_dn/);
    const beside = await tpp.registerRaw(
      await tpp.signRegistration(
        tpp.registrationClaims({ token_endpoint_auth_method: 'private_key_jwt', tls_client_auth_subject_dn: transportDn() }),
      ),
    );
    expectRefused(beside, 'invalid_client_metadata', /only for tls_client_auth/);
  });
});

describe('a bank that accepts only private_key_jwt and tls_client_auth (--token-auth)', () => {
  it('discovery lists exactly those', async () => {
    const tpp = tppOf(narrow);
    const doc = (await tpp.fetch('GET', narrow.urls.profiles['permissive-headless'].discovery_url)).json();
    expect(doc.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt', 'tls_client_auth']);
  });

  it('a client_secret_basic registration is invalid_client_metadata naming what the bank accepts', async () => {
    const tpp = tppOf(narrow);
    const response = await tpp.registerRaw(await tpp.signRegistration(tpp.registrationClaims()));
    expectRefused(
      response,
      'invalid_client_metadata',
      /client_secret_basic is not accepted; this bank accepts private_key_jwt, tls_client_auth/,
    );
  });

  it('client_secret_basic at the token endpoint is invalid_client, also for a client registered before the bank narrowed', async () => {
    // Register a client_secret_basic client on a bank that accepts it, then restart the same data as a narrowed bank.
    const wide = await startTestSandbox();
    const tpp = new SandboxTpp(wide.urls, identity);
    await tpp.register();
    await tpp.close();
    await wide.stop();
    const narrowed = await startTestSandbox({ dataDir: wide.dataDir, tokenAuthMethods: ['private_key_jwt', 'tls_client_auth'] });
    try {
      const again = new SandboxTpp(narrowed.urls, identity);
      tpps.push(again);
      again.client = tpp.client;
      expectRefused(
        await again.token({ grant_type: 'client_credentials', scope: 'accounts' }),
        'invalid_client',
        /client_secret_basic is not accepted at this token endpoint; this bank accepts private_key_jwt, tls_client_auth/,
      );
    } finally {
      await narrowed.close();
    }
  });
});
