// JARM error responses at the emulator (JARM §2.4): a code request that asked response_mode=jwt gets its
// errors back as the success would come, one PS256 `response` JWT (iss, aud, exp, error, error_description, state) —
// from the authorization endpoint's checks and from the PSU's Cancel at the pages. Errors of other requests stay plain.

import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProfileName } from '../../src/sandbox/contracts.js';
import { SandboxTpp, startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';

let sandbox: TestSandbox;
const tpps: SandboxTpp[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await Promise.all(tpps.map((tpp) => tpp.close()));
  await sandbox?.close();
});

async function tppAs(profile: ProfileName): Promise<SandboxTpp> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
  tpps.push(tpp);
  await tpp.register();
  return tpp;
}

/** The redirect's `response` JWT, verified with the issuer's jwks_uri key, issuer and audience. */
async function verifiedResponse(tpp: SandboxTpp, location: string | undefined): Promise<JWTPayload> {
  const params = new URL(String(location)).searchParams;
  expect(params.get('error')).toBeNull();
  const jwks = (await tpp.fetch('GET', `${tpp.issuer}/jwks`)).json<JSONWebKeySet>();
  const { payload } = await jwtVerify(params.get('response') ?? '', createLocalJWKSet(jwks), {
    issuer: tpp.issuer,
    audience: tpp.client?.client_id ?? '',
    algorithms: ['PS256'],
  });
  return payload;
}

describe('JARM §2.4: errors as signed responses', () => {
  it('an error of the authorization endpoint (a scope beyond the registration) comes back in a response JWT', async () => {
    const tpp = await tppAs('strict-headless');
    const result = await tpp.authorize({
      responseType: 'code',
      consentId: await tpp.createConsent(),
      scope: 'openid accounts payments',
      objectClaims: { response_mode: 'jwt', scope: 'openid accounts payments' },
    });
    expect(result.status).toBe(303);
    const payload = await verifiedResponse(tpp, result.location);
    expect(payload.error).toBe('invalid_scope');
    expect(String(payload.error_description)).toContain('payments');
    expect(payload.state).toBe(result.state);
    expect(payload.code).toBeUndefined();
  });

  it("the PSU's Cancel at the pages comes back as access_denied in a response JWT", async () => {
    const tpp = await tppAs('strict-interactive');
    const result = await tpp.authorizeInteractive(
      { responseType: 'code', consentId: await tpp.createConsent(), objectClaims: { response_mode: 'jwt' } },
      { username: 'alex', password: 'alex-sandbox-1', cancel: true },
    );
    const payload = await verifiedResponse(tpp, result.location);
    expect(payload.error).toBe('access_denied');
    expect(payload.state).toBe(result.state);
  });

  it('without response_mode jwt, errors stay plain parameters', async () => {
    const tpp = await tppAs('strict-headless');
    const result = await tpp.authorize({
      responseType: 'code',
      consentId: await tpp.createConsent(),
      scope: 'openid accounts payments',
      objectClaims: { scope: 'openid accounts payments' },
    });
    expect(result.params.get('error')).toBe('invalid_scope');
    expect(result.params.get('response')).toBeNull();
  });
});
