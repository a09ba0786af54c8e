// obflow's whole flow with pushed authorization requests (flow.par): the emulator started as a bank that
// requires PAR (`obflow sandbox --par required`, which also requires PKCE in its strict profile), collections
// generated with PAR on, obflow's stages and newman, for each client authentication method. Without PAR the same bank
// refuses the consent request (the default collections), which is what makes the PAR run prove anything.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { environmentValue } from '../../src/environment/index.js';
import { buildCollections, loadTemplates, STEP_NAMES, stepFileName } from '../../src/generate/index.js';
import { failingRequests, failureHint } from '../../src/run/verdict.js';
import { browserConsentStep, SANDBOX_CONSENT_SCRIPT, spkiPinOf } from '../../src/run/index.js';
import { chromium, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, runAll } from './pipeline-helpers.js';

const METHODS = ['client_secret_basic', 'private_key_jwt', 'tls_client_auth'] as const;

let sandbox: TestSandbox;
let identity: TestIdentity;
const parCollections: Record<string, object> = {};

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox({ par: 'required' });
  const files = buildCollections({ templates: loadTemplates(), par: true });
  for (const name of STEP_NAMES) {
    const file = files.find((candidate) => candidate.fileName === stepFileName(name));
    if (file) parCollections[name] = JSON.parse(file.json) as object;
  }
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the whole flow with flow.par against a bank that requires PAR', () => {
  it.each(METHODS)('%s: every step passes; the consent URL carries client_id and request_uri only', async (method) => {
    const prepared = await prepare(
      sandbox,
      identity,
      'strict-headless',
      {},
      { bank: { token_endpoint_auth_method: method }, flow: { par: 'always' } },
    );
    try {
      const result = await runAll({ ...prepared, collections: parCollections });
      expect(result.passed, describeRun(result)).toBe(true);
      expect(result.steps.map((step) => step.name)).toEqual([...STEP_NAMES]);
      expect(result.steps.find((step) => step.name === 'psu-consent')?.requests).toBe(3);
      const consentUrl = new URL(environmentValue(result.environment, 'consent_url') ?? '');
      expect([...consentUrl.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      expect(environmentValue(result.environment, 'code_verifier')).toMatch(/^[0-9a-f-]{73}$/);
    } finally {
      await prepared.dispatcher.close();
    }
  });

  it('flow.par "never" against a bank that requires PAR: ERR_PAR_UNAVAILABLE naming both, before the flow', async () => {
    const error = await prepare(sandbox, identity, 'strict-headless', {}, { flow: { par: 'never' } }).then(
      () => undefined,
      (caught: unknown) => caught as { code?: string; message?: string; hint?: string },
    );
    expect(error?.code).toBe('ERR_PAR_UNAVAILABLE');
    expect(error?.message).toContain('require_pushed_authorization_requests: true');
    expect(error?.message).toContain('flow.par "never"');
    expect(error?.hint).toContain('"always"');
  });

  // What the config asks and the discovery does not offer stops at the session's discovery read
  // (the environment stage), before any request of the flow. The emulator's default discovery does not say
  // authorization_response_iss_parameter_supported (RFC 9207 §3), so flow.fapi "2.0" is refused here. (If the emulator
  // starts publishing it by default, pick another mismatch: e.g. flow.jarm against a discovery without `jwt`.)
  it('flow.fapi "2.0" against a discovery without the iss response parameter: ERR_DISCOVERY_MISMATCH before the flow', async () => {
    const error = await prepare(
      sandbox,
      identity,
      'strict-headless',
      {},
      { bank: { token_endpoint_auth_method: 'private_key_jwt' }, flow: { fapi: '2.0', responseType: 'code' } },
    ).then(
      () => undefined,
      (caught: unknown) => caught as { code?: string; message?: string; hint?: string },
    );
    expect(error?.code).toBe('ERR_DISCOVERY_MISMATCH');
    expect(error?.message).toContain('flow.fapi "2.0"');
    expect(error?.message).toContain('authorization_response_iss_parameter_supported');
  });

  it("the default collections (no PAR) are refused by the same bank at the consent, on obflow's side", async () => {
    const prepared = await prepare(sandbox, identity, 'strict-headless', {}, { flow: { par: 'always' } });
    try {
      const result = await runAll(prepared, { select: 'psu-consent' });
      expect(result.passed).toBe(false);
      // An error redirect (RFC 6749 §4.1.2.1), read as a refusal on obflow's side whose hint names flow.par.
      expect(describeRun(result)).toContain('Pushed Authorization Request must be used');
      const [request] = failingRequests(result);
      expect(request).toMatchObject({ side: 'refused' });
      expect(failureHint(request, 'report')).toContain('set flow.par to "always"');
    } finally {
      await prepared.dispatcher.close();
    }
  });
});

// Interactive consent with PAR. The request_uri is used once, so newman does not GET the consent URL
// (par-interactive.prerequest skips it, saying why); the PSU's browser presents the pushed request_uri and the flow
// goes on. Without the skip the emulator answers the browser invalid_request_uri (already used).
describeWith(chromium, 'interactive consent with PAR', () => {
  it('strict-interactive: the browser presents the pushed request_uri; run all passes', async () => {
    const ready = await prepare(sandbox, identity, 'strict-interactive', {}, { flow: { par: 'always' } });
    try {
      const consentStep = browserConsentStep({
        script: SANDBOX_CONSENT_SCRIPT,
        credentials: { username: 'sam', password: 'sam-sandbox-2' },
        trustedSpki: [spkiPinOf(identity.pem.serverCert)],
        executablePath: CHROMIUM_PATH,
      });
      const result = await runAll({ ...ready, collections: parCollections }, { consentStep });
      expect(result.passed, describeRun(result)).toBe(true);
      const consent = result.steps.find((step) => step.name === 'psu-consent');
      // The jwks GET and the pushed request; the authorization GET was left to the browser.
      expect(consent?.requests).toBe(2);
      expect(consent?.skipped?.[0]?.reason).toMatch(/browser presents the pushed request_uri/);
      expect(new URL(environmentValue(result.environment, 'psu_consent_url') ?? '').searchParams.has('request_uri')).toBe(true);
    } finally {
      await ready.dispatcher.close();
    }
  }, 90_000);
});
