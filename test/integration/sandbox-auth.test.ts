// The emulator's authorisation side over real mutual TLS on port 0: discovery, DCR v3.2 registration and each of its
// refusals, the transport-certificate rules, the token endpoint's client_credentials grant and the environment helper.

import { randomUUID } from 'node:crypto';

import { Agent } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';

import { PROFILE_NAMES } from '../../src/sandbox/contracts.js';
import { getForeignIdentity, getTestIdentity, issueVariantIdentity } from '../helpers/identity.js';
import type { TestIdentity } from '../helpers/identity.js';
import { mtlsAgent, SandboxTpp, useTestSandbox, wire } from '../helpers/sandbox-client.js';

let identity: TestIdentity;
let second: TestIdentity;
let foreign: TestIdentity;

function tpp(profile: (typeof PROFILE_NAMES)[number] = 'strict-headless', who: TestIdentity = identity): SandboxTpp {
  const client = new SandboxTpp(sandbox.urls, who, profile);
  sandbox.track(client);
  return client;
}

const sandbox = useTestSandbox();

beforeAll(async () => {
  [identity, second, foreign] = await Promise.all([getTestIdentity(), getTestIdentity('second-tpp'), getForeignIdentity()]);
});

describe('discovery', () => {
  it.each(PROFILE_NAMES)('%s publishes an OB-style configuration, without a client certificate', async (profile) => {
    const agent = new Agent({ connect: { ca: [identity.pem.rootCa, identity.pem.issuingCa] } });
    const urls = sandbox.urls.profiles[profile];
    const response = await wire(agent, 'GET', urls.discovery_url);
    await agent.close();
    expect(response.status).toBe(200);
    const doc = response.json();
    expect(doc.issuer).toBe(urls.auth_url);
    expect(doc.token_endpoint).toBe(urls.token_url);
    expect(doc.authorization_endpoint).toBe(urls.authorization_endpoint);
    expect(doc.registration_endpoint).toBe(sandbox.urls.registration_endpoint);
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'accounts', 'payments']));
    expect(doc.response_types_supported).toEqual(['code', 'code id_token']);
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']));
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['openbanking_intent_id', 'acr']));
    expect(doc.request_object_signing_alg_values_supported).toContain('none');
    expect(doc.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    expect(doc.id_token_signing_alg_values_supported).toEqual(['PS256']);
    expect(doc.token_endpoint_auth_signing_alg_values_supported).toEqual(['PS256']);
    const jwks = await tpp(profile).fetch('GET', String(doc.jwks_uri));
    expect(jwks.json<{ keys: Array<{ kty: string; d?: string }> }>().keys[0]).toMatchObject({ kty: 'RSA' });
    expect(jwks.json<{ keys: Array<{ d?: string }> }>().keys[0]?.d).toBeUndefined();
  });
});

describe('dynamic client registration (DCR v3.2)', () => {
  it('registers with a signed JWT and answers 201 with the client', async () => {
    const client = tpp('strict-headless');
    const registered = await client.register();
    expect(registered.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(registered.client_secret.length).toBeGreaterThanOrEqual(24);
    expect(registered.client_secret.length).toBeLessThanOrEqual(36);
    expect(registered).toMatchObject({
      client_secret_expires_at: 0,
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: identity.manifest.redirect_uris,
      software_id: identity.manifest.software_id,
      id_token_signed_response_alg: 'PS256',
      request_object_signing_alg: 'none',
      scope: 'openid accounts',
      response_types: ['code', 'code id_token'],
    });
    expect(typeof registered.client_id_issued_at).toBe('number');
  });

  it.each(PROFILE_NAMES)('the JWT aud picks profile %s', async (profile) => {
    const client = tpp(profile);
    await client.register();
    expect(await client.clientCredentials()).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  const now = (): number => Math.floor(Date.now() / 1000);
  const refusals: Array<[string, () => Promise<{ jwt: string; who?: TestIdentity }>, string]> = [
    ['an expired JWT', async () => ({ jwt: await sign({ iat: now() - 7200, exp: now() - 3600 }) }), 'invalid_client_metadata'],
    [
      'an iat in the future beyond tolerance',
      async () => ({ jwt: await sign({ iat: now() + 600, exp: now() + 4200 }) }),
      'invalid_client_metadata',
    ],
    ['a wrong aud', async () => ({ jwt: await sign({ aud: 'https://bank.example/other' }) }), 'invalid_client_metadata'],
    ['iss other than the software_id', async () => ({ jwt: await sign({ iss: second.manifest.software_id }) }), 'invalid_client_metadata'],
    [
      "a signature by a key that is not the statement's (bad signature)",
      async () => ({
        jwt: await tpp().signRegistration(tpp().registrationClaims(), { key: second.pem.signingKey, kid: identity.manifest.kid }),
      }),
      'invalid_client_metadata',
    ],
    [
      'a software statement signed by an unknown key',
      async () => {
        const other = tpp('strict-headless', foreign);
        // The foreign directory's statement, correctly signed by the foreign TPP, sent with a trusted certificate.
        return {
          jwt: await other.signRegistration(other.registrationClaims({ aud: sandbox.urls.profiles['permissive-headless'].auth_url })),
        };
      },
      'unapproved_software_statement',
    ],
    [
      'a redirect URI not in the statement',
      async () => ({ jwt: await sign({ redirect_uris: ['https://evil.example/callback'] }) }),
      'invalid_redirect_uri',
    ],
    ['no redirect URIs (empty)', async () => ({ jwt: await sign({ redirect_uris: [] }) }), 'invalid_redirect_uri'],
    ['no redirect URIs (absent)', async () => ({ jwt: await sign({ redirect_uris: undefined }) }), 'invalid_redirect_uri'],
    ['no software statement', async () => ({ jwt: await sign({ software_statement: undefined }) }), 'invalid_software_statement'],
    [
      'a tampered software statement',
      async () => ({ jwt: await sign({ software_statement: tamper(identity.softwareStatement) }) }),
      'unapproved_software_statement',
    ],
    ['an unsupported grant type', async () => ({ jwt: await sign({ grant_types: ['password'] }) }), 'invalid_client_metadata'],
    [
      'a missing required claim in a strict profile',
      async () => ({ jwt: await sign({ token_endpoint_auth_method: undefined }) }),
      'invalid_client_metadata',
    ],
    // Validly signed, but no Date can hold it (once answered 500).
    ['an exp of 1e20', async () => ({ jwt: await sign({ exp: 1e20 }) }), 'invalid_client_metadata'],
    ['an exp more than 24 hours after iat', async () => ({ jwt: await sign({ exp: now() + 24 * 3600 + 120 }) }), 'invalid_client_metadata'],
    ['an exp before iat', async () => ({ jwt: await sign({ iat: now(), exp: now() - 1 }) }), 'invalid_client_metadata'],
    ['an iat that is not a whole number of seconds', async () => ({ jwt: await sign({ iat: now() + 0.5 }) }), 'invalid_client_metadata'],
    ['an exp that is not a number', async () => ({ jwt: await sign({ exp: String(now() + 600) }) }), 'invalid_client_metadata'],
    ['a jti that is an object', async () => ({ jwt: await sign({ jti: { id: randomUUID() } }) }), 'invalid_client_metadata'],
    ['a jti that is a number', async () => ({ jwt: await sign({ jti: 42 }) }), 'invalid_client_metadata'],
    ['an empty jti', async () => ({ jwt: await sign({ jti: '' }) }), 'invalid_client_metadata'],
  ];

  async function sign(overrides: Record<string, unknown>): Promise<string> {
    const client = tpp('strict-headless');
    return client.signRegistration(client.registrationClaims(overrides));
  }

  it.each(refusals)('refuses %s', async (_name, make, code) => {
    const { jwt } = await make();
    const response = await tpp('strict-headless').registerRaw(jwt);
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: code });
    expect(typeof response.json().error_description).toBe('string');
  });

  it("refuses scope beyond the statement's roles", async () => {
    // The local test identity has every role (src/pki/issue.ts): a statement of AISP alone asks for payments here.
    const client = tpp('strict-headless', await issueVariantIdentity({ roles: ['AISP'] }));
    const response = await client.registerRaw(
      await client.signRegistration(client.registrationClaims({ scope: 'openid accounts payments' })),
    );
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_client_metadata' });
    expect(typeof response.json().error_description).toBe('string');
  });

  it('keeps error_description to the RFC 6749 §5.2 characters when it quotes client input (a kid)', async () => {
    const client = tpp('strict-headless');
    const response = await client.registerRaw(
      await client.signRegistration(client.registrationClaims(), { key: identity.pem.signingKey, kid: 'k"e\\y\u00e9' }),
    );
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_client_metadata' });
    expect(response.json().error_description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
    expect(response.json().error_description).toContain("k'e/y?");
  });

  it('refuses a replayed jti', async () => {
    const client = tpp('strict-headless');
    const jwt = await client.signRegistration(client.registrationClaims({ jti: randomUUID() }));
    expect((await client.registerRaw(jwt)).status).toBe(201);
    const replay = await client.registerRaw(jwt);
    expect(replay.status).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('refuses anything that is not a signed JWT (plain JSON, unsigned JWT)', async () => {
    const client = tpp('permissive-headless');
    const claims = client.registrationClaims({ aud: client.issuer });
    const json = await client.registerRaw(JSON.stringify(claims), 'application/json');
    expect(json.status).toBe(400);
    expect(json.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const part = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
    const unsigned = await client.registerRaw(`${part({ alg: 'none' })}.${part(claims)}.`);
    expect(unsigned.status).toBe(400);
    expect(unsigned.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('permissive profiles fill missing optional metadata but still refuse wrong values', async () => {
    const client = tpp('permissive-headless');
    const filled = await client.registerRaw(
      await client.signRegistration(
        client.registrationClaims({ token_endpoint_auth_method: undefined, subject_type: undefined, scope: undefined }),
      ),
    );
    expect(filled.status).toBe(201);
    // The scope filled is openid and the scopes of the statement's roles (the local identity has AISP, PISP and CBPII).
    expect(filled.json()).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'openid accounts payments fundsconfirmations',
    });
    const wrong = await client.registerRaw(
      await client.signRegistration(client.registrationClaims({ token_endpoint_auth_method: 'none' })),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('refuses a connection without a client certificate with 401', async () => {
    const client = tpp('strict-headless');
    const bare = client.withIdentity(identity, false);
    sandbox.track(bare);
    const response = await bare.registerRaw(await client.signRegistration(client.registrationClaims()));
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ Code: '401 Unauthorized', Errors: [{ ErrorCode: 'UK.OBIE.Unauthorised' }] });
  });

  it('refuses a certificate from another CA with 401', async () => {
    const client = tpp('strict-headless');
    // Foreign transport certificate and key; the server is still verified against our directory's CAs.
    const agent = new Agent({
      connect: { ca: [identity.pem.rootCa, identity.pem.issuingCa], cert: foreign.pem.transportCert, key: foreign.pem.transportKey },
    });
    const response = await wire(agent, 'POST', sandbox.urls.registration_endpoint, {
      headers: { 'content-type': 'application/jwt' },
      body: await client.signRegistration(client.registrationClaims()),
    });
    await agent.close();
    expect(response.status).toBe(401);
    expect(response.json().Message).toMatch(/trust directory/);
  });

  it('strict: refuses a directory certificate issued for another software statement; permissive accepts it', async () => {
    // The default TPP's statement and signing key, presented over the second TPP's (directory-issued) certificate.
    const strict = new SandboxTpp(sandbox.urls, identity, 'strict-headless', mtlsAgent(second));
    sandbox.track(strict);
    const jwt = await strict.signRegistration(strict.registrationClaims());
    const refused = await strict.registerRaw(jwt);
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'unapproved_software_statement' });

    const permissive = new SandboxTpp(sandbox.urls, identity, 'permissive-headless', mtlsAgent(second));
    sandbox.track(permissive);
    const accepted = await permissive.registerRaw(await permissive.signRegistration(permissive.registrationClaims()));
    expect(accepted.status).toBe(201);
  });
});

describe('registration management (DCR v3.2 GET / PUT / DELETE /register/{ClientId})', () => {
  it("reads, updates and deletes a registration with the client's own client_credentials token", async () => {
    const client = tpp('permissive-headless');
    const registered = await client.register();
    const url = `${sandbox.urls.registration_endpoint}/${registered.client_id}`;
    const token = await client.clientCredentials();
    const bearer = { authorization: `Bearer ${token}` };

    const read = await client.fetch('GET', url, { headers: bearer });
    expect(read.status).toBe(200);
    expect(read.json()).toMatchObject({ client_id: registered.client_id, redirect_uris: registered.redirect_uris });

    expect((await client.fetch('GET', url)).status).toBe(401);
    const other = tpp('permissive-headless');
    await other.register();
    expect((await client.fetch('GET', url, { headers: { authorization: `Bearer ${await other.clientCredentials()}` } })).status).toBe(403);

    // A validly signed update with an exp no Date can hold is refused like any bad registration, not a 500.
    const absurd = await client.fetch('PUT', url, {
      headers: { ...bearer, 'content-type': 'application/jwt' },
      body: await client.signRegistration(client.registrationClaims({ exp: 1e20 })),
    });
    expect(absurd.status).toBe(400);
    expect(absurd.json()).toMatchObject({ error: 'invalid_client_metadata' });

    const jwt = await client.signRegistration(client.registrationClaims({ redirect_uris: [identity.manifest.redirect_uris[1]] }));
    const updated = await client.fetch('PUT', url, { headers: { ...bearer, 'content-type': 'application/jwt' }, body: jwt });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({
      client_id: registered.client_id,
      client_secret: registered.client_secret,
      redirect_uris: [identity.manifest.redirect_uris[1]],
    });

    expect((await client.fetch('DELETE', url, { headers: bearer })).status).toBe(204);
    const gone = await client.token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(gone.status).toBe(401);
    expect((await client.fetch('GET', url, { headers: bearer })).status).toBe(401);
  });
});

describe('token endpoint: client_credentials and client authentication', () => {
  let client: SandboxTpp;
  beforeAll(async () => {
    client = tpp('strict-headless');
    await client.register();
  });

  it('issues a bearer token for scope accounts', async () => {
    const response = await client.token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'accounts' });
    expect(response.json().refresh_token).toBeUndefined();
  });

  it('answers a wrong secret with 401 invalid_client and WWW-Authenticate', async () => {
    const response = await client.token({ grant_type: 'client_credentials', scope: 'accounts' }, { secret: 'not-the-secret' });
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
    expect(String(response.headers['www-authenticate'])).toMatch(/^Basic realm=/);
  });

  it('answers no client authentication with 401 invalid_client', async () => {
    const response = await client.token({ grant_type: 'client_credentials', scope: 'accounts' }, { authorization: null });
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a scope the client may not have (invalid_scope) and an unknown grant (unsupported_grant_type)', async () => {
    const scope = await client.token({ grant_type: 'client_credentials', scope: 'payments' });
    expect(scope.status).toBe(400);
    expect(scope.json()).toMatchObject({ error: 'invalid_scope' });
    const grant = await client.token({ grant_type: 'password', username: 'alex', password: 'x' });
    expect(grant.status).toBe(400);
    expect(grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it.each(PROFILE_NAMES)(
    '%s: openid in a client_credentials scope is ignored, not refused; the response says what was granted',
    async (profile) => {
      // RFC 6749 §3.3: the server may grant less than asked and then names the granted scope; the model bank's guide
      // asks for `accounts openid`. No end user, so no ID token (OIDC Core §3.1.2.1).
      const own = tpp(profile);
      await own.register();
      for (const scope of ['accounts openid', 'openid accounts', 'openid  accounts ']) {
        const response = await own.token({ grant_type: 'client_credentials', scope });
        expect(response.status, `${profile} ${scope}: ${response.text}`).toBe(200);
        const body = response.json<{ access_token: string; scope: string; id_token?: string; refresh_token?: string }>();
        expect(body).toMatchObject({ token_type: 'Bearer', scope: 'accounts' });
        expect(body.id_token).toBeUndefined();
        expect(body.refresh_token).toBeUndefined();
        // The token works as any accounts token: it creates a consent.
        expect((await own.createConsentRaw(body.access_token)).status).toBe(201);
      }
      // openid grants nothing here: alone it leaves no scope; it does not excuse a scope the client may not have.
      const alone = await own.token({ grant_type: 'client_credentials', scope: 'openid' });
      expect(alone.status).toBe(400);
      expect(alone.json()).toMatchObject({ error: 'invalid_scope' });
      const payments = await own.token({ grant_type: 'client_credentials', scope: 'openid payments' });
      expect(payments.status).toBe(400);
      expect(payments.json()).toMatchObject({ error: 'invalid_scope' });
    },
  );

  it('refuses the token endpoint without a client certificate (401)', async () => {
    const bare = client.withIdentity(identity, false);
    sandbox.track(bare);
    const response = await bare.token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it("refuses a client at another profile's token endpoint", async () => {
    const elsewhere = new SandboxTpp(sandbox.urls, identity, 'permissive-headless');
    sandbox.track(elsewhere);
    elsewhere.client = client.client;
    const response = await elsewhere.token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(response.status).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it("strict: refuses a token request with another software statement's certificate; permissive issues one", async () => {
    const other = client.withIdentity(second);
    sandbox.track(other);
    const refused = await other.token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'invalid_client' });

    const permissive = tpp('permissive-headless');
    await permissive.register();
    const moved = permissive.withIdentity(second);
    sandbox.track(moved);
    expect((await moved.token({ grant_type: 'client_credentials', scope: 'accounts' })).status).toBe(200);
  });
});

describe('environment helper', () => {
  it("gives the registering certificate a Postman environment with the model bank's variable names", async () => {
    const client = tpp('permissive-interactive');
    const registered = await client.register();
    const response = await client.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${encodeURIComponent(registered.client_id)}`);
    expect(response.status).toBe(200);
    const env = response.json<{
      id: string;
      name: string;
      values: Array<{ key: string; value: string; type: string; enabled: boolean }>;
      _postman_variable_scope: string;
    }>();
    expect(env._postman_variable_scope).toBe('environment');
    const byKey = new Map(env.values.map((v) => [v.key, v]));
    const profile = sandbox.urls.profiles['permissive-interactive'];
    expect(byKey.get('rs')?.value).toBe(sandbox.urls.sandbox_base_url);
    expect(byKey.get('issuer')?.value).toBe(profile.auth_url);
    expect(byKey.get('configEndpoint')?.value).toBe(profile.discovery_url);
    expect(byKey.get('authEndpoint')?.value).toBe(profile.authorization_endpoint);
    expect(byKey.get('tokenEndpoint')?.value).toBe(profile.token_url);
    expect(byKey.get('_clientId')?.value).toBe(registered.client_id);
    expect(byKey.get('oidcClient')?.value).toBe(registered.client_id);
    expect(byKey.get('redirectUrl')?.value).toBe(registered.redirect_uris[0]);
    expect(byKey.get('request-scope')?.value).toBe('openid accounts');
    expect(byKey.get('obParticipantId')?.value).toMatch(/^\w+$/);
    expect(byKey.get('_clientSecret')).toMatchObject({ value: registered.client_secret, type: 'secret' });
    expect(byKey.get('basicToken')).toMatchObject({
      value: Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64'),
      type: 'secret',
    });
    expect(env.values.some((v) => v.enabled === false)).toBe(true);
    // The same client always gets the same environment id.
    const again = await client.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${encodeURIComponent(registered.client_id)}`);
    expect(again.json<{ id: string }>().id).toBe(env.id);
  });

  it('answers an unknown client with 404 and a JSON body', async () => {
    const response = await tpp().fetch('GET', `${sandbox.urls.environment_helper}?client_id=${randomUUID()}`);
    expect(response.status).toBe(404);
    expect(response.json()).toMatchObject({ Code: '404 Not Found', Errors: [{ ErrorCode: 'UK.OBIE.Resource.NotFound' }] });
  });

  it("refuses another TPP's certificate (403) and no certificate (401)", async () => {
    const client = tpp('strict-headless');
    const registered = await client.register();
    const url = `${sandbox.urls.environment_helper}?client_id=${encodeURIComponent(registered.client_id)}`;
    const other = client.withIdentity(second);
    const bare = client.withIdentity(identity, false);
    sandbox.track(other);
    sandbox.track(bare);
    expect((await other.fetch('GET', url)).status).toBe(403);
    expect((await bare.fetch('GET', url)).status).toBe(401);
  });
});

describe('request log', () => {
  it('writes one line per request with method, path, status, ms, client and interaction id, and no secrets', async () => {
    const client = tpp('strict-headless');
    const registered = await client.register();
    const interactionId = randomUUID();
    await client.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${registered.client_id}`, {
      headers: { 'x-fapi-interaction-id': interactionId },
    });
    const line = sandbox.log.find((l) => l.includes(interactionId));
    expect(line).toMatch(
      new RegExp(
        `^resource GET /sandbox-helper/v1\\.0/postman/environment\\?client_id=${registered.client_id} 200 \\d+\\.\\dms client=${registered.client_id} interaction=${interactionId}$`,
      ),
    );
    expect(sandbox.log.join('\n')).not.toContain(registered.client_secret);
  });
});

function tamper(jwt: string): string {
  const [header, payload, signature] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  claims.software_roles = ['AISP', 'PISP'];
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}
