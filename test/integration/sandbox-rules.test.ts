// Emulator rules that no test held, each over real mutual TLS and each shown to fail with its rule
// removed (docs/notes.md, "rules held by tests"): an already expired request object, unsigned and signed
// (RFC 7519 §4.1.4); an nbf more than 60 minutes in the past (FAPI 1 Advanced Part 2 §5.2.2-17); a form client_id
// other than the authenticated client (RFC 6749 §2.3: the client authenticates once); and the verbose log's mask of a
// client_assertion (RFC 7523 §3: the JWT is a credential).

import { createPrivateKey, randomUUID } from 'node:crypto';

import { SignJWT } from 'jose';
import type { JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

let sandbox: TestSandbox;
let logged: TestSandbox;
const opened: SandboxTpp[] = [];

beforeAll(async () => {
  [sandbox, logged] = await Promise.all([startTestSandbox(), startTestSandbox({ verbose: true })]);
});

afterAll(async () => {
  await Promise.all(opened.map((tpp) => tpp.close()));
  await sandbox?.close();
  await logged?.close();
});

async function registered(on: TestSandbox, profile: 'strict-headless' | 'permissive-headless', overrides: Record<string, unknown> = {}) {
  const tpp = new SandboxTpp(on.urls, on.identity, profile);
  opened.push(tpp);
  await tpp.register(overrides);
  return tpp;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

describe('an already expired request object is refused (RFC 7519 §4.1.4), in every profile', () => {
  // nbf 10 minutes ago and a life of 8 minutes: within FAPI's 60-minute rules (§5.2.2-13, -17), expired 2 minutes ago
  // (beyond the 30 s clock tolerance). Only the expiry refuses it.
  const expired = (): Record<string, unknown> => ({ nbf: nowSeconds() - 600, exp: nowSeconds() - 120 });

  it.each([
    ['strict-headless', 'none'],
    ['strict-headless', 'PS256'],
    ['permissive-headless', 'none'],
    ['permissive-headless', 'PS256'],
  ] as const)('%s, request object alg %s', async (profile, alg) => {
    const tpp = await registered(sandbox, profile, alg === 'PS256' ? { request_object_signing_alg: 'PS256' } : {});
    const refused = await tpp.authorize({ consentId: await tpp.createConsent(), requestObject: alg, objectClaims: expired() });
    expect(refused.params.get('error'), refused.location).toBe('invalid_request_object');
    expect(refused.params.get('error_description')).toMatch(/has expired/);
    expect(refused.params.get('code')).toBeNull();

    // The same object, not expired, is accepted: the refusal is the expiry's.
    const fresh = await tpp.authorize({
      consentId: await tpp.createConsent(),
      requestObject: alg,
      objectClaims: { nbf: nowSeconds() - 600, exp: nowSeconds() + 300 },
    });
    expect(fresh.params.get('error_description'), fresh.location).toBeNull();
    expect(fresh.params.get('code')).toBeTruthy();
  });
});

describe('strict: a request object whose nbf is more than 60 minutes in the past (FAPI 1 Advanced Part 2 §5.2.2-17)', () => {
  // An object that breaks this rule and keeps exp − nbf ≤ 60 minutes has necessarily expired (exp ≤ nbf + 3600 <
  // now − 30), and the expiry refuses it first; a live one breaks the lifetime rule (§5.2.2-13) as well. So the
  // rule is held by what it decides: the refusal names the stale nbf (its removal leaves the lifetime rule's words).
  it.each(['none', 'PS256'] as const)('alg %s: refused, naming the stale nbf', async (alg) => {
    const strict = await registered(sandbox, 'strict-headless', alg === 'PS256' ? { request_object_signing_alg: 'PS256' } : {});
    const stale = await strict.authorize({
      consentId: await strict.createConsent(),
      requestObject: alg,
      objectClaims: { nbf: nowSeconds() - 3700, exp: nowSeconds() + 300 },
    });
    expect(stale.params.get('error'), stale.location).toBe('invalid_request_object');
    expect(stale.params.get('error_description')).toBe("the request object's nbf is more than 60 minutes in the past");
  });

  it('the same age inside the limit is accepted (the rule is about nbf, not about exp)', async () => {
    const strict = await registered(sandbox, 'strict-headless');
    const recent = await strict.authorize({
      consentId: await strict.createConsent(),
      objectClaims: { nbf: nowSeconds() - 3000, exp: nowSeconds() + 300 },
    });
    expect(recent.params.get('error_description'), recent.location).toBeNull();
    expect(recent.params.get('code')).toBeTruthy();
  });
});

describe('token endpoint: a form client_id must be the authenticated client', () => {
  it.each(['strict-headless', 'permissive-headless'] as const)('%s: another client_id beside Basic is invalid_request', async (profile) => {
    const tpp = await registered(sandbox, profile);
    const other = await registered(sandbox, profile);
    const own = await tpp.token({ grant_type: 'client_credentials', scope: 'accounts', client_id: String(tpp.client?.client_id) });
    expect(own.status, own.text).toBe(200);
    const mixed = await tpp.token({ grant_type: 'client_credentials', scope: 'accounts', client_id: String(other.client?.client_id) });
    expect(mixed.status, mixed.text).toBe(400);
    expect(mixed.json()).toMatchObject({ error: 'invalid_request', error_description: 'client_id differs from the authenticated client' });
  });
});

describe('verbose log: a client_assertion never reaches it', () => {
  it('the private_key_jwt token request is logged with the assertion masked', async () => {
    const tpp = await registered(logged, 'strict-headless', { token_endpoint_auth_method: 'private_key_jwt' });
    const clientId = String(tpp.client?.client_id);
    const now = nowSeconds();
    const jwt = await new SignJWT({
      iss: clientId,
      sub: clientId,
      aud: tpp.urls.profiles[tpp.profile].token_url,
      jti: randomUUID(),
    } as JWTPayload)
      .setProtectedHeader({ alg: 'PS256', kid: logged.identity.manifest.kid, typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(createPrivateKey(logged.identity.pem.signingKey));
    const before = logged.log.length;
    const response = await tpp.token(
      {
        grant_type: 'client_credentials',
        scope: 'accounts',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: jwt,
      },
      { authorization: null },
    );
    expect(response.status, response.text).toBe(200);
    // The line is written when the response has finished, which may be after the client has read it.
    const body = await vi.waitFor(() => {
      const found = logged.log.slice(before).find((line) => line.startsWith('  > ') && line.includes('client_assertion_type'));
      if (found === undefined) throw new Error('the token request body is not in the log yet');
      return found;
    });
    // The body line is there (so the mask, not an absent line, keeps the assertion out).
    expect(body).toContain('client_assertion=[redacted]');
    const lines = logged.log.slice(before);
    const text = lines.join('\n');
    for (const part of [jwt, ...jwt.split('.')]) expect(text).not.toContain(part);
  });
});
