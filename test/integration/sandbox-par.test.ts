// Pushed authorization requests at the emulator (RFC 9126, `obflow sandbox --par`), over real mutual TLS: discovery
// says what is on, the endpoint authenticates the client and validates the request as the authorization endpoint
// would, answers 201 with a one-time request_uri, and the authorization endpoint takes client_id + request_uri. Each
// rule has a case that fails when the rule is removed (docs/notes.md, "FAPI: pushed authorization requests").

import { createHash, randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PUSHED_REQUEST_TTL_SECONDS } from '../../src/sandbox/auth/par.js';
import { SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

const VERIFIER = `${randomUUID()}-${randomUUID()}`;
const CHALLENGE = createHash('sha256').update(VERIFIER, 'ascii').digest('base64url');
const PKCE = { code_challenge: CHALLENGE, code_challenge_method: 'S256' };

let required: TestSandbox;
let off: TestSandbox;
const tpps: SandboxTpp[] = [];

async function tppAt(sandbox: TestSandbox, profile: 'strict-headless' | 'permissive-headless' = 'strict-headless'): Promise<SandboxTpp> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
  await tpp.register();
  tpps.push(tpp);
  return tpp;
}

beforeAll(async () => {
  [required, off] = await Promise.all([startTestSandbox({ par: 'required' }), startTestSandbox()]);
});

afterAll(async () => {
  await Promise.all(tpps.map((tpp) => tpp.close()));
  await Promise.all([required?.close(), off?.close()]);
});

describe('discovery (RFC 9126 §5, RFC 8414 §2)', () => {
  it('--par required lists the endpoint, requires it, and S256', async () => {
    const tpp = await tppAt(required);
    const doc = (await tpp.fetch('GET', `${tpp.issuer}/.well-known/openid-configuration`)).json<Record<string, unknown>>();
    expect(doc.pushed_authorization_request_endpoint).toBe(`${tpp.issuer}/par`);
    expect(doc.require_pushed_authorization_requests).toBe(true);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('PAR off (the default): none of it, the endpoint answers 404, request_uri stays unsupported', async () => {
    const tpp = await tppAt(off);
    const doc = (await tpp.fetch('GET', `${tpp.issuer}/.well-known/openid-configuration`)).json<Record<string, unknown>>();
    expect(doc).not.toHaveProperty('pushed_authorization_request_endpoint');
    expect(doc).not.toHaveProperty('require_pushed_authorization_requests');
    expect(doc).not.toHaveProperty('code_challenge_methods_supported');
    const pushed = await tpp.push({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
    expect(pushed.response.status).toBe(404);
  });
});

describe('the pushed authorization request endpoint (RFC 9126 §2)', () => {
  it('201 with a request_uri and expires_in; the authorization request names it; PKCE is checked at the token endpoint', async () => {
    const tpp = await tppAt(required);
    const pushed = await tpp.push({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
    expect(pushed.response.status).toBe(201);
    const body = pushed.response.json<{ request_uri: string; expires_in: number }>();
    expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(body.expires_in).toBeGreaterThan(0);
    const authorized = await tpp.fetch('GET', pushed.url ?? '');
    const location = new URL(String(authorized.headers.location));
    const code = location.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    expect(location.searchParams.get('state')).toBe(pushed.built.state);
    // RFC 7636 §4.6: without the verifier, then with a wrong one, invalid_grant; the code survives neither (single use
    // is tried last).
    const missing = await tpp.token({ grant_type: 'authorization_code', code, redirect_uri: pushed.built.redirectUri ?? '' });
    expect(missing.json<{ error: string }>().error).toBe('invalid_grant');
  });

  it('the code exchange with the code_verifier succeeds', async () => {
    const tpp = await tppAt(required);
    const result = await tpp.authorizePushed({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
    const exchanged = await tpp.token({
      grant_type: 'authorization_code',
      code: result.params.get('code') ?? '',
      redirect_uri: result.redirectUri ?? '',
      code_verifier: VERIFIER,
    });
    expect(exchanged.status).toBe(200);
  });

  it('--par required: a request that was not pushed is refused with an error redirect (invalid_request)', async () => {
    const tpp = await tppAt(required);
    const result = await tpp.authorize({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
    expect(result.status).toBe(303);
    expect(result.params.get('error')).toBe('invalid_request');
    expect(result.params.get('error_description')).toContain('Pushed Authorization Request must be used');
    expect(result.params.get('code')).toBeNull();
  });

  it('a request_uri is used once (RFC 9126 §4): the second use is invalid_request_uri', async () => {
    const tpp = await tppAt(required);
    const pushed = await tpp.push({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
    expect((await tpp.fetch('GET', pushed.url ?? '')).status).toBe(303);
    const again = await tpp.fetch('GET', pushed.url ?? '');
    expect(again.status).toBe(400);
    expect(again.text).toContain('invalid_request_uri');
  });

  // RFC 9126 §2.2 (expires_in) and §4: a pushed request lives PUSHED_REQUEST_TTL_SECONDS; after it, its request_uri is
  // invalid_request_uri like an unknown one. A sandbox of its own, on a clock the test moves.
  it('a request_uri expires: used within its lifetime it is taken, after it it is invalid_request_uri', async () => {
    let offset = 0;
    const clocked = await startTestSandbox({ par: 'required', now: () => new Date(Date.now() + offset) });
    try {
      const tpp = await tppAt(clocked);
      const [inTime, late] = [
        await tpp.push({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE }),
        await tpp.push({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE }),
      ];
      expect(inTime.response.json<{ expires_in: number }>().expires_in).toBe(PUSHED_REQUEST_TTL_SECONDS);
      offset = (PUSHED_REQUEST_TTL_SECONDS - 5) * 1000;
      expect((await tpp.fetch('GET', inTime.url ?? '')).status).toBe(303);
      offset = (PUSHED_REQUEST_TTL_SECONDS + 1) * 1000;
      const expired = await tpp.fetch('GET', late.url ?? '');
      expect(expired.status).toBe(400);
      expect(expired.text).toContain('invalid_request_uri');
    } finally {
      await clocked.close();
    }
  });

  it("another client's request_uri is invalid_request_uri", async () => {
    const [first, other] = [await tppAt(required), await tppAt(required)];
    const pushed = await first.push({ responseType: 'code', consentId: await first.createConsent(), objectClaims: PKCE });
    const url = new URL(pushed.url ?? '');
    url.searchParams.set('client_id', other.client?.client_id ?? '');
    const answer = await other.fetch('GET', url.toString());
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('invalid_request_uri');
  });

  it('client authentication is required (401 invalid_client)', async () => {
    const tpp = await tppAt(required);
    const built = await tpp.authorizeUrl({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
    const answer = await tpp.fetch('POST', `${tpp.issuer}/par`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URL(built.url).searchParams.toString(),
    });
    expect(answer.status).toBe(401);
    expect(answer.json<{ error: string }>().error).toBe('invalid_client');
  });

  it('request_uri in the pushed request is invalid_request (RFC 9126 §2.1)', async () => {
    const tpp = await tppAt(required);
    const answer = await pushRaw(tpp, { request_uri: 'urn:ietf:params:oauth:request_uri:x' });
    expect(answer.status).toBe(400);
    expect(answer.json<{ error: string }>().error).toBe('invalid_request');
  });

  it('a client_id that is not the authenticated client is invalid_request (RFC 9126 §2.1)', async () => {
    const [tpp, other] = [await tppAt(required), await tppAt(required)];
    const answer = await pushRaw(tpp, { client_id: other.client?.client_id ?? '' });
    expect(answer.status).toBe(400);
    expect(answer.json<{ error: string; error_description: string }>().error_description).toContain(
      'differs from the authenticated client',
    );
  });

  it('a refusal of the request itself is a JSON error, never a redirect (RFC 9126 §2.3)', async () => {
    const tpp = await tppAt(required);
    const pushed = await tpp.push({
      responseType: 'code',
      consentId: await tpp.createConsent(),
      objectClaims: PKCE,
      scope: 'openid payments-x',
    });
    expect(pushed.response.status).toBe(400);
    expect(pushed.response.headers.location).toBeUndefined();
    expect(pushed.response.json<{ error: string }>().error).toBe('invalid_scope');
  });

  it('strict: a pushed request without code_challenge is invalid_request, code challenge required (RFC 7636 §4.4.1)', async () => {
    const tpp = await tppAt(required);
    const pushed = await tpp.push({ responseType: 'code', consentId: await tpp.createConsent() });
    expect(pushed.response.status).toBe(400);
    const body = pushed.response.json<{ error: string; error_description: string }>();
    expect(body.error).toBe('invalid_request');
    expect(body.error_description).toContain('code challenge required');
  });
});

/** The pushed request authorizeUrl would send, with `extra` form parameters set on top. */
async function pushRaw(tpp: SandboxTpp, extra: Record<string, string>): Promise<Awaited<ReturnType<SandboxTpp['fetch']>>> {
  const built = await tpp.authorizeUrl({ responseType: 'code', consentId: await tpp.createConsent(), objectClaims: PKCE });
  const form = new URL(built.url).searchParams;
  for (const [name, value] of Object.entries(extra)) form.set(name, value);
  return tpp.fetch('POST', `${tpp.issuer}/par`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: tpp.basicAuth() },
    body: form.toString(),
  });
}
