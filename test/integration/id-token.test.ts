// The id_token verification FAPI 1 Advanced §5.2.2.1 requires of the client, in obflow (the local `id-token` steps,
// jose) and in the collection (lib-pss: RSA-PSS in plain JS inside newman's sandbox), against the real emulator over
// mutual TLS: a correct token passes every rule in both; each of the emulator's faults is caught by both, with a
// message naming the rule.

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { withEnvironmentValues } from '../../src/environment/index.js';
import { STEP_NAMES, SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { idTokenStep, jsonOver, jwksCache } from '../../src/run/id-token.js';
import { manualConsentStep } from '../../src/run/consent/manual.js';
import {
  browserConsentStep,
  buildRunPlan,
  SANDBOX_CONSENT_SCRIPT,
  runSteps,
  spkiPinOf,
  type RunResult,
  type RunStep,
} from '../../src/run/index.js';
import type { SandboxOptions } from '../../src/sandbox/contracts.js';
import { getTestIdentity } from '../helpers/identity.js';
import { consentInBrowser } from '../../src/run/consent/browser.js';
import { chromium, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, type Prepared } from './pipeline-helpers.js';

const opened: { sandbox: TestSandbox; prepared: Prepared }[] = [];
afterAll(async () => {
  for (const { sandbox, prepared } of opened) {
    await prepared.dispatcher.close();
    await sandbox.close();
    await rm(prepared.stateDir, { recursive: true, force: true });
  }
});

/** Runs the flow up to and including the code exchange (or all of it) with both id-token steps; `bail: false` so the
 *  local checks run even when the collection's own checks already failed. */
async function runWithFault(
  fault: SandboxOptions['idTokenFault'] | undefined,
  options: { profile?: 'strict-headless' | 'strict-interactive'; consentStep?: RunStep; all?: boolean } = {},
): Promise<{ result: RunResult; junit: string }> {
  const sandbox = await startTestSandbox(fault === undefined ? {} : { idTokenFault: fault });
  const prepared = await prepare(sandbox, await getTestIdentity(), options.profile ?? 'strict-headless');
  opened.push({ sandbox, prepared });
  const keys = jwksCache(jsonOver(prepared.dispatcher));
  const upTo = options.all === true ? STEP_NAMES : STEP_NAMES.slice(0, STEP_NAMES.indexOf('code-exchange') + 1);
  const steps = buildRunPlan({
    stepNames: upTo,
    collections: prepared.collections,
    ...(options.consentStep !== undefined ? { consentStep: options.consentStep } : {}),
    localAfter: [
      { after: 'psu-consent', step: idTokenStep({ source: 'authorization', keys }) },
      { after: 'code-exchange', step: idTokenStep({ source: 'token', keys }) },
    ],
  });
  const reportDir = join(prepared.stateDir, 'reports');
  const result = await runSteps({
    steps,
    environment: prepared.environment,
    cwd: prepared.stateDir,
    sslClientCertList: prepared.certList,
    sslExtraCaCerts: prepared.caBundle,
    reporters: ['junit'],
    reportDir,
    secretKeys: SECRET_VARIABLE_KEYS,
    bail: false,
    log: () => undefined,
  });
  const reports = [...new Set(result.steps.flatMap((step) => step.reports))];
  const junit = (await Promise.all(reports.map((file) => readFile(file, 'utf8')))).join('\n');
  return { result, junit };
}

const stepOf = (result: RunResult, name: string) => {
  const step = result.steps.find((candidate) => candidate.name === name);
  if (step === undefined) throw new Error(`no step ${name}: ${describeRun(result)}`);
  return step;
};

describe('id_token verification (FAPI 1 Advanced §5.2.2.1, OIDC Core §3.3.2.12)', () => {
  it('a correct id_token passes every rule in obflow and its signature verifies inside newman', async () => {
    const { result, junit } = await runWithFault(undefined);
    expect(result.passed, describeRun(result)).toBe(true);
    expect(result.steps.map((step) => step.name)).toEqual([
      ...STEP_NAMES.slice(0, STEP_NAMES.indexOf('psu-consent') + 1),
      'id-token',
      'code-exchange',
      'id-token-token',
    ]);
    // Authorisation response: alg, signature, iss, aud, exp, iat, nonce, c_hash, s_hash, intent id, acr.
    expect(stepOf(result, 'id-token').assertions).toEqual({ total: 11, failed: 0 });
    // Token response: the same without c_hash and s_hash.
    expect(stepOf(result, 'id-token-token').assertions).toEqual({ total: 9, failed: 0 });
    // The collection verified both signatures itself (RSA-PSS in the Postman sandbox), and they passed.
    expect(junit).toContain('id_token signature verifies with the jwks_uri key named by kid');
    expect(junit).toContain('token id_token signature verifies with the jwks_uri key named by kid');
    expect(junit).not.toContain('<failure');

    // Without the collection's copy of the keys (bank_jwks), the step fetches jwks_uri itself (once, then cached). (The
    // token response's id_token: the code, hence c_hash, is forgotten after the exchange.)
    const sandbox = opened[opened.length - 1]?.sandbox;
    const before = sandbox?.log.filter((line) => /GET \S*\/jwks\b/.test(line)).length ?? 0;
    const keys = jwksCache(jsonOver(opened[opened.length - 1]?.prepared.dispatcher as NonNullable<Prepared['dispatcher']>));
    const withoutCopy = withEnvironmentValues(result.environment, { bank_jwks: '' });
    for (let round = 0; round < 2; round += 1) {
      const step = idTokenStep({ source: 'token', keys });
      if (!('local' in step)) throw new TypeError('a local step');
      const outcome = await step.local(withoutCopy);
      expect(
        'checks' in outcome && Array.isArray(outcome.checks) ? outcome.checks.filter((check) => !check.passed) : ['no checks'],
      ).toEqual([]);
    }
    expect((sandbox?.log.filter((line) => /GET \S*\/jwks\b/.test(line)).length ?? 0) - before).toBe(1);
  });

  it.each([
    [
      'bad-signature',
      'id_token signature verifies with the jwks_uri key named by kid',
      /id_token signature verifies/,
      /the signature does not verify with kid \S+ \(/,
    ],
    ['wrong-c-hash', 'id_token c_hash matches the code (OIDC Core §3.3.2.11', /id_token c_hash matches the code/, undefined],
    ['wrong-intent-id', 'id_token openbanking_intent_id is the consent id', /openbanking_intent_id is the consent id/, undefined],
  ] as const)(
    '%s is caught by obflow and by the collection, naming the rule',
    async (fault, obflowRule, collectionTest, collectionMessage) => {
      const { result } = await runWithFault(fault);
      expect(result.passed).toBe(false);
      // obflow's own step (jose)
      const local = stepOf(result, 'id-token');
      expect(local.passed).toBe(false);
      expect(local.failures.map((failure) => failure.test).join('\n')).toContain(obflowRule);
      expect(local.failures).toHaveLength(1);
      // the collection (newman), before the code is used
      const consent = stepOf(result, 'psu-consent');
      expect(consent.passed).toBe(false);
      const failing = consent.failures.find((failure) => collectionTest.test(failure.test));
      expect(failing, describeRun(result)).toBeDefined();
      if (collectionMessage !== undefined) expect(failing?.message).toMatch(collectionMessage);
      // Token endpoint id_token: the signature and intent-id faults apply there too (c_hash is the front channel's).
      const tokenStep = stepOf(result, 'id-token-token');
      expect(tokenStep.passed).toBe(fault === 'wrong-c-hash');
    },
  );
});

describe('the id_token checks inside one newman run (headless)', () => {
  it('the whole flow with both id-token steps is one newman run: one JUnit report for every collection step', async () => {
    const { result } = await runWithFault(undefined, { all: true });
    expect(result.passed, describeRun(result)).toBe(true);
    expect(result.steps.map((step) => step.name)).toEqual([
      ...STEP_NAMES.slice(0, STEP_NAMES.indexOf('psu-consent') + 1),
      'id-token',
      'code-exchange',
      'id-token-token',
      ...STEP_NAMES.slice(STEP_NAMES.indexOf('code-exchange') + 1),
    ]);
    // A report per newman run (src/run/runner.ts): between the two local steps the run used to split in three.
    expect(new Set(result.steps.flatMap((step) => step.reports))).toHaveProperty('size', 1);
  });

  it('a failing obflow check stops the run before the next step: the code is never exchanged (bail)', async () => {
    const sandbox = await startTestSandbox();
    const prepared = await prepare(sandbox, await getTestIdentity(), 'strict-headless');
    opened.push({ sandbox, prepared });
    const failing: RunStep = {
      name: 'rule-check',
      observe: true,
      local: async () => ({ values: {}, checks: [{ rule: 'a rule only obflow checks', passed: false, message: 'it failed' }] }),
    };
    const result = await runSteps({
      steps: buildRunPlan({
        stepNames: STEP_NAMES,
        collections: prepared.collections,
        localAfter: [{ after: 'psu-consent', step: failing }],
      }),
      environment: prepared.environment,
      cwd: prepared.stateDir,
      sslClientCertList: prepared.certList,
      sslExtraCaCerts: prepared.caBundle,
      reporters: ['junit'],
      reportDir: join(prepared.stateDir, 'reports'),
      secretKeys: SECRET_VARIABLE_KEYS,
      log: () => undefined,
    });
    expect(result.passed).toBe(false);
    expect(result.failedStep).toBe('rule-check');
    expect(result.steps.map((step) => step.name)).toEqual([...STEP_NAMES.slice(0, STEP_NAMES.indexOf('psu-consent') + 1), 'rule-check']);
    expect(stepOf(result, 'rule-check').failures).toEqual([
      { item: 'rule-check', test: 'a rule only obflow checks', message: 'it failed' },
    ]);
    // The token endpoint saw the client-credentials grant only: newman stopped before code-exchange's request.
    expect(sandbox.log.filter((line) => /POST \S*\/token\b/.test(line))).toHaveLength(1);
  });
});

/** The emulator's pages passed in Chromium by the default script, as alex. */
async function alexInTheBrowser(): Promise<RunStep> {
  const identity = await getTestIdentity();
  return browserConsentStep({
    script: SANDBOX_CONSENT_SCRIPT,
    credentials: { username: 'alex', password: 'alex-sandbox-1' },
    trustedSpki: [spkiPinOf(identity.pem.serverCert)],
    executablePath: CHROMIUM_PATH,
  });
}

describeWith(chromium, 'id_token verification after browser consent (strict-interactive)', () => {
  it("the runner verifies the redirect's id_token after the browser step; refresh then reads with a new token", async () => {
    const consentStep = await alexInTheBrowser();
    const { result } = await runWithFault(undefined, { profile: 'strict-interactive', consentStep, all: true });
    expect(result.passed, describeRun(result)).toBe(true);
    const names = result.steps.map((step) => step.name);
    expect(names.slice(names.indexOf('psu-consent'), names.indexOf('psu-consent') + 5)).toEqual([
      'psu-consent',
      'psu-consent-browser',
      'id-token',
      'code-exchange',
      'id-token-token',
    ]);
    expect(stepOf(result, 'id-token').assertions).toEqual({ total: 11, failed: 0 });
    expect(stepOf(result, 'refresh').requests).toBe(2);
  });

  it("a bad signature on the browser's redirect is caught by obflow before the code exchange", async () => {
    const consentStep = await alexInTheBrowser();
    const { result } = await runWithFault('bad-signature', { profile: 'strict-interactive', consentStep });
    expect(stepOf(result, 'psu-consent-browser').passed).toBe(true);
    expect(stepOf(result, 'id-token').failures.map((failure) => failure.test)).toEqual([
      'id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6, FAPI 1 Advanced §5.2.2.1)',
    ]);
  });
});

/** The rule a `code id_token` redirect without an id_token breaks, as the id-token step names it. */
const MISSING_RULE = /^id_token is present in the authorisation response \(response_type code id_token/;

describeWith(chromium, 'a code id_token redirect without its id_token fails the id-token step in every consent mode', () => {
  it('browser consent: the bank leaves the id_token out; obflow names the rule before the code exchange', async () => {
    const consentStep = await alexInTheBrowser();
    const { result } = await runWithFault('missing', { profile: 'strict-interactive', consentStep });
    expect(stepOf(result, 'psu-consent-browser').passed).toBe(true);
    const step = stepOf(result, 'id-token');
    expect(step.passed).toBe(false);
    expect(step.failures.map((failure) => failure.test)).toEqual([expect.stringMatching(MISSING_RULE)]);
    expect(result.passed).toBe(false);
  });

  it('manual consent: a pasted redirect without the id_token fails the id-token step, naming the rule', async () => {
    const identity = await getTestIdentity();
    // The PSU passes the bank's pages (a real browser), then pastes the address without its id_token.
    const consentStep = manualConsentStep({
      ask: async (consentUrl, redirectUri) => {
        const done = await consentInBrowser({
          consentUrl,
          redirectUri,
          script: SANDBOX_CONSENT_SCRIPT,
          credentials: { username: 'alex', password: 'alex-sandbox-1' },
          trustedSpki: [spkiPinOf(identity.pem.serverCert)],
          executablePath: CHROMIUM_PATH,
        });
        return `${redirectUri}#code=${done.code}&state=${done.state ?? ''}`;
      },
    });
    const { result } = await runWithFault(undefined, { profile: 'strict-interactive', consentStep });
    expect(stepOf(result, 'psu-consent-manual').passed).toBe(true);
    const step = stepOf(result, 'id-token');
    expect(step.failures.map((failure) => failure.test)).toEqual([expect.stringMatching(MISSING_RULE)]);
  });
});

describe('a code id_token redirect without its id_token, headless', () => {
  it('the collection and the id-token step both name the missing id_token', async () => {
    const { result } = await runWithFault('missing');
    expect(stepOf(result, 'psu-consent').passed).toBe(false);
    expect(stepOf(result, 'id-token').failures.map((failure) => failure.test)).toEqual([expect.stringMatching(MISSING_RULE)]);
  });
});
