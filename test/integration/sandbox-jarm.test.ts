// JARM at the emulator: response_mode=jwt for code answers one PS256 JWT in `response` (JARM §2.3.1), and
// obflow's JARM collections (flow.jarm) verify it and run the whole flow.

import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildCollections, loadTemplates, STEP_NAMES, stepFileName } from '../../src/generate/index.js';
import { getTestIdentity } from '../helpers/identity.js';
import { SandboxTpp, startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, runAll } from './pipeline-helpers.js';

let sandbox: TestSandbox;
let tpp: SandboxTpp;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless');
  await tpp.register();
});
afterAll(async () => {
  await tpp?.close();
  await sandbox?.close();
});

describe('response_mode=jwt (JARM) at the emulator', () => {
  it('discovery lists jwt and PS256 authorisation responses', async () => {
    const doc = (await tpp.fetch('GET', `${tpp.issuer}/.well-known/openid-configuration`)).json<Record<string, unknown>>();
    expect(doc.response_modes_supported).toContain('jwt');
    expect(doc.authorization_signing_alg_values_supported).toEqual(['PS256']);
  });

  it('code: one signed JWT in `response` with iss, aud, exp, code and state; the code exchanges', async () => {
    const result = await tpp.authorize({
      responseType: 'code',
      consentId: await tpp.createConsent(),
      objectClaims: { response_mode: 'jwt' },
    });
    expect(result.status).toBe(303);
    const response = result.params.get('response') ?? '';
    expect(result.params.get('code')).toBeNull();
    const jwks = (await tpp.fetch('GET', `${tpp.issuer}/jwks`)).json<JSONWebKeySet>();
    const { payload, protectedHeader } = await jwtVerify(response, createLocalJWKSet(jwks), {
      issuer: tpp.issuer,
      audience: tpp.client?.client_id ?? '',
      algorithms: ['PS256'],
    });
    expect(protectedHeader.kid).toBeDefined();
    expect(payload.exp).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(payload.state).toBe(result.state);
    const exchanged = await tpp.exchangeCode(String(payload.code), result.redirectUri);
    expect(exchanged.status).toBe(200);
  });

  it.each([
    ['an unknown response_mode', 'code', 'form_post'],
    ['jwt with code id_token (only code is offered)', 'code id_token', 'jwt'],
  ] as const)('%s is invalid_request', async (_name, responseType, mode) => {
    const result = await tpp.authorize({ responseType, consentId: await tpp.createConsent(), objectClaims: { response_mode: mode } });
    expect(result.params.get('error')).toBe('invalid_request');
    expect(result.params.get('error_description')).toContain('response_mode');
  });

  it("obflow's JARM collections (flow.jarm) run the whole flow with response_type code", async () => {
    const files = buildCollections({ templates: loadTemplates(), jarm: true });
    const collections: Record<string, object> = {};
    for (const name of STEP_NAMES)
      collections[name] = JSON.parse(files.find((f) => f.fileName === stepFileName(name))?.json ?? '{}') as object;
    const prepared = await prepare(sandbox, await getTestIdentity(), 'strict-headless', { response_type: 'code' });
    try {
      const result = await runAll({ ...prepared, collections });
      expect(result.passed, describeRun(result)).toBe(true);
      expect(result.steps.map((step) => step.name)).toEqual([...STEP_NAMES]);
    } finally {
      await prepared.dispatcher.close();
    }
  });
});
