// Today's banks: one emulator that accepts only private_key_jwt and tls_client_auth (`obflow sandbox
// --token-auth private_key_jwt,tls_client_auth`), and the whole flow through obflow's stages and newman for each
// method × request-object signing (none, PS256) in every profile, the profile chosen by the registration's aud.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { decodeJwt, decodeProtectedHeader } from 'jose';
import newman from 'newman';
import type { NewmanRunSummary } from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { environmentValue } from '../../src/environment/index.js';
import { browserConsentStep, spkiPinOf } from '../../src/run/consent/browser.js';
import type { RunEvent } from '../../src/run/index.js';
import { SANDBOX_CONSENT_SCRIPT } from '../../src/run/consent/script.js';
import { chromium, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { issuedSecrets } from '../helpers/secrets.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { COLLECTIONS_DIR, describeRun, prepare, runAll } from './pipeline-helpers.js';

const PROFILES = ['strict-headless', 'permissive-headless', 'strict-interactive', 'permissive-interactive'] as const;
const METHODS = ['private_key_jwt', 'tls_client_auth'] as const;
const ALGS = ['none', 'PS256'] as const;

let sandbox: TestSandbox;
let identity: TestIdentity;

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox({ tokenAuthMethods: ['private_key_jwt', 'tls_client_auth'] });
});
afterAll(async () => {
  await sandbox?.close();
});

const rows = PROFILES.flatMap((profile) => METHODS.flatMap((method) => ALGS.map((alg) => ({ profile, method, alg }))));
type Row = (typeof rows)[number];

async function runRow({ profile, method, alg }: Row): Promise<void> {
  const prepared = await prepare(
    sandbox,
    identity,
    profile,
    {},
    {
      bank: { token_endpoint_auth_method: method },
      flow: { request_object_signing_alg: alg },
    },
  );
  // The interactive profiles' PSU pages, driven in Chromium by the sandbox's own consent script.
  const consentStep = profile.endsWith('-interactive')
    ? browserConsentStep({
        script: SANDBOX_CONSENT_SCRIPT,
        credentials: { username: 'alex', password: 'alex-sandbox-1' },
        trustedSpki: [spkiPinOf(identity.pem.serverCert)],
        executablePath: CHROMIUM_PATH,
      })
    : undefined;
  try {
    expect(environmentValue(prepared.environment, 'token_endpoint_auth_method')).toBe(method);
    expect(environmentValue(prepared.environment, 'basicToken') ?? '').toBe('');
    expect((environmentValue(prepared.environment, 'signing_key') ?? '') !== '').toBe(method === 'private_key_jwt' || alg === 'PS256');
    // Every event any reporter is handed (the run's, after redaction), besides the files the reporters wrote.
    const events: RunEvent[] = [];
    const result = await runAll(prepared, {
      ...(consentStep ? { consentStep } : {}),
      reporters: ['junit', 'json', 'html'],
      subscribers: [{ onEvent: (event) => void events.push(event), finish: async () => [] }],
    });
    expect(result.passed, describeRun(result)).toBe(true);
    expect(result.steps.find((step) => step.name === 'refresh')?.requests).toBe(2);
    // The private key and the assertions are secrets: nothing of the run carries them (README: secrets never appear
    // in reports unless asked for). Scanned: every file the reporters wrote (JUnit alone never holds a request body
    // nor the environment, so a scan of it could not fail) and every event a reporter is handed (the last one carries
    // the run's environment, where the assertion and the key live). The secrets are what was issued or made — the
    // identity's signing key file, the assertion the run signed — not what the environment marks secret.
    const reports = join(prepared.stateDir, 'reports');
    const files = readdirSync(reports, { recursive: true, encoding: 'utf8' });
    expect(
      files
        .filter((file) => /\.(xml|json|html)$/.test(file))
        .map((file) => file.replace(/^.*\./, ''))
        .sort(),
    ).toEqual(expect.arrayContaining(['html', 'json', 'xml']));
    const written = files.map((file) => readFileSync(join(reports, file), 'utf8')).join('\n');
    const handed = JSON.stringify(events);
    const secrets = issuedSecrets({ environments: [result.environment.values], keyPems: [identity.pem.signingKey] });
    const assertion = environmentValue(result.environment, 'client_assertion') ?? '';
    if (assertion !== '') secrets.add(assertion.split('.')[2] ?? assertion);
    expect(secrets.size).toBeGreaterThan(6);
    // The events are the run's, in process: their request URLs keep the consent URL's state and nonce, which only
    // the files that outlive the run drop (src/run/reporters/json.ts withoutConsentBindings).
    const bindings = new Set(['state', 'nonce'].map((key) => environmentValue(result.environment, key) ?? ''));
    for (const secret of secrets) {
      expect(written.includes(secret), `a report holds a secret (${secret.slice(0, 6)}…)`).toBe(false);
      if (!bindings.has(secret)) expect(handed.includes(secret), `an event holds a secret (${secret.slice(0, 6)}…)`).toBe(false);
    }
    if (method === 'private_key_jwt') {
      const assertion = environmentValue(result.environment, 'client_assertion') ?? '';
      expect(decodeProtectedHeader(assertion)).toMatchObject({ alg: 'PS256', kid: identity.manifest.kid });
      const claims = decodeJwt(assertion);
      const clientId = environmentValue(result.environment, '_clientId');
      expect(claims).toMatchObject({ iss: clientId, sub: clientId, aud: sandbox.urls.profiles[profile].token_url });
      expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBeLessThanOrEqual(300);
    }
  } finally {
    await prepared.dispatcher.close();
  }
}

describe('obflow run all against a bank that accepts only private_key_jwt and tls_client_auth', () => {
  it.each(rows.filter((row) => row.profile.endsWith('-headless')))('$profile, $method, request objects $alg', runRow);
});

// The browser drives only the PSU's pages, which neither the token endpoint's client authentication nor the request
// object's alg reaches: the headless rows above hold every method × alg per strictness, and here each interactive
// profile meets each method once, with both algs across the two (pairwise: half the browser runs, the same pairs).
const INTERACTIVE_PAIRS = new Set([
  'strict-interactive private_key_jwt PS256',
  'strict-interactive tls_client_auth none',
  'permissive-interactive private_key_jwt none',
  'permissive-interactive tls_client_auth PS256',
]);

describeWith(chromium, 'the same in the interactive profiles (PSU pages in Chromium)', () => {
  const interactive = rows.filter((row) => INTERACTIVE_PAIRS.has(`${row.profile} ${row.method} ${row.alg}`));
  it('pairs every interactive profile with each method, and each alg with each method', () => {
    expect(interactive).toHaveLength(INTERACTIVE_PAIRS.size);
    for (const method of METHODS)
      expect(new Set(interactive.filter((row) => row.method === method).map((row) => row.alg))).toEqual(new Set(ALGS));
  });
  it.each(interactive)('$profile, $method, request objects $alg', runRow, 120_000);
});

// What a Postman user gets: plain `newman run` of the generated whole-flow collection with obflow's environment (the
// collection signs the client assertion itself), no obflow runner in between.
describe('plain newman run of the whole-flow collection', () => {
  it.each(METHODS)('%s', async (method) => {
    const prepared = await prepare(sandbox, identity, 'strict-headless', {}, { bank: { token_endpoint_auth_method: method } });
    try {
      const collection = JSON.parse(readFileSync(join(COLLECTIONS_DIR, 'obflow-ais.postman_collection.json'), 'utf8')) as object;
      const summary = await new Promise<NewmanRunSummary>((resolve, reject) => {
        newman.run(
          {
            collection,
            environment: prepared.environment,
            reporters: [],
            sslClientCertList: prepared.certList,
            sslExtraCaCerts: prepared.caBundle,
            timeoutRequest: 30_000,
          } as unknown as newman.NewmanRunOptions,
          (error, result) => (error ? reject(error) : resolve(result)),
        );
      });
      const failures = summary.run.failures.map((failure) => `${failure.source?.name ?? '?'}: ${failure.error.message}`);
      expect(failures).toEqual([]);
      expect(summary.run.stats.requests.total).toBeGreaterThan(10);
      const tokens = summary.run.executions.filter((execution) => execution.request.url.toString().endsWith('/token'));
      expect(tokens.length).toBe(3);
      for (const execution of tokens) {
        const body = String(execution.request.body?.toString() ?? '');
        expect(body).toContain('client_id=');
        expect(body.includes('client_assertion=')).toBe(method === 'private_key_jwt');
        expect(execution.request.headers.has('Authorization')).toBe(false);
      }
    } finally {
      await prepared.dispatcher.close();
    }
  });
});
