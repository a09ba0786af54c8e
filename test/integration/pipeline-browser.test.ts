// Interactive consent in a real browser (Debian's Chromium via playwright-core) inside `run all`: the PSU logs in on
// the bank's pages, picks two of three accounts, confirms; the redirect is caught with page.route and the flow goes on.

import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { environmentValue } from '../../src/environment/index.js';
import { isObflowError } from '../../src/errors.js';
import { STEP_NAMES } from '../../src/generate/index.js';
import {
  browserConsentStep,
  buildRunSummary,
  consentInBrowser,
  runSteps,
  buildRunPlan,
  SANDBOX_CONSENT_SCRIPT,
  sandboxConsentScript,
  spkiPinOf,
} from '../../src/run/index.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { chromium, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { describeRun, prepare, prepareUpToConsent, runAll, type Prepared } from './pipeline-helpers.js';

let identity: TestIdentity;
const prepared: Prepared[] = [];

const sandbox = useTestSandbox();

beforeAll(async () => {
  identity = await getTestIdentity();
});
afterAll(async () => {
  for (const item of prepared) {
    await item.dispatcher.close();
    await rm(item.stateDir, { recursive: true, force: true });
  }
});

/** A whole flow with a cold Chromium takes ~20 s alone on the 2-core machine, more under a full parallel run. */
const FULL_FLOW_MS = 90_000;
/** The default script (the sandbox's own pages) logging in as sam. */
const sam = () => ({ script: SANDBOX_CONSENT_SCRIPT, credentials: { username: 'sam', password: 'sam-sandbox-2' } });
const trust = (): { trustedSpki: string[]; executablePath: string } => ({
  trustedSpki: [spkiPinOf(identity.pem.serverCert)],
  executablePath: CHROMIUM_PATH,
});

// Without Chromium every test here is reported as skipped with the reason (and the file's hooks do not run).
describeWith(chromium, 'interactive profiles with a browser', () => {
  it.each(['strict-interactive', 'permissive-interactive'] as const)(
    '%s: run all passes with sam sharing two of three accounts',
    async (profile) => {
      const ready = await prepare(sandbox, identity, profile, { response_type: 'code id_token' });
      prepared.push(ready);
      const consentStep = browserConsentStep({ ...sam(), accounts: ['Personal Account', 'Joint Account'], ...trust() });
      const result = await runAll(ready, { consentStep });
      expect(result.passed, describeRun(result)).toBe(true);
      expect(result.steps.map((step) => step.name)).toEqual([...STEP_NAMES.slice(0, 4), 'psu-consent-browser', ...STEP_NAMES.slice(4)]);
      expect(environmentValue(result.environment, 'id_token')).toMatch(/^ey/);
      const summary = buildRunSummary({ environment: result.environment, steps: result.steps, executions: result.executions });
      // Two of sam's three accounts were shared (the Joint Savings Account was not ticked), each read to the end.
      expect(summary.accounts).toHaveLength(2);
      for (const account of summary.accounts) expect(account.transactions).toBeGreaterThan(0);
    },
    FULL_FLOW_MS,
  );

  it('Cancel → ERR_CONSENT_REJECTED (access_denied) and the run stops before the code exchange', async () => {
    const ready = await prepare(sandbox, identity, 'strict-interactive');
    prepared.push(ready);
    const steps = buildRunPlan({
      stepNames: STEP_NAMES,
      collections: ready.collections,
      consentStep: browserConsentStep({ ...sam(), script: sandboxConsentScript({ cancel: true }), ...trust() }),
    });
    const before = sandbox.log.filter((line) => line.includes('/token')).length;
    let code: string | undefined;
    let message = '';
    try {
      await runSteps({
        steps,
        environment: ready.environment,
        cwd: ready.stateDir,
        sslClientCertList: ready.certList,
        sslExtraCaCerts: ready.caBundle,
        reporters: [],
      });
    } catch (error) {
      code = isObflowError(error) ? error.code : undefined;
      message = (error as Error).message;
    }
    expect(code).toBe('ERR_CONSENT_REJECTED');
    expect(message).toContain('access_denied');
    // Only the client-credentials token was requested; no code exchange happened.
    expect(sandbox.log.filter((line) => line.includes('/token')).length).toBe(before + 1);
  });

  it("a wrong password is refused on the bank's login page", async () => {
    const { ready, consentUrl, redirectUri } = await prepareUpToConsent(sandbox, identity, 'permissive-interactive');
    prepared.push(ready);
    let code: string | undefined;
    let message = '';
    try {
      await consentInBrowser({
        consentUrl,
        redirectUri,
        script: SANDBOX_CONSENT_SCRIPT,
        credentials: { username: 'sam', password: 'not-the-password' },
        ...trust(),
      });
    } catch (error) {
      code = isObflowError(error) ? error.code : undefined;
      message = (error as Error).message;
    }
    expect(code).toBe('ERR_CONSENT_REJECTED');
    // The bank's own login page said so (not a TLS or navigation problem on the way).
    expect(message).toMatch(/refused after step 3 "log in" \(click .*\): That username and password do not match/);
  });

  it('a consent URL the bank refuses (unregistered redirect_uri) → its error page, reported at once', async () => {
    const upToConsent = await prepareUpToConsent(sandbox, identity, 'strict-interactive');
    prepared.push(upToConsent.ready);
    // The unsigned request object's values win over the query (OIDC Core §6.1): change redirect_uri in both.
    const consentUrl = new URL(upToConsent.consentUrl);
    const [header, payload] = (consentUrl.searchParams.get('request') ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    claims.redirect_uri = 'https://attacker.example/callback';
    consentUrl.searchParams.set('request', `${header ?? ''}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`);
    consentUrl.searchParams.set('redirect_uri', 'https://attacker.example/callback');
    let code: string | undefined;
    let message = '';
    try {
      await consentInBrowser({ consentUrl: consentUrl.toString(), redirectUri: 'https://attacker.example/callback', ...sam(), ...trust() });
    } catch (error) {
      code = isObflowError(error) ? error.code : undefined;
      message = (error as Error).message;
    }
    expect(code).toBe('ERR_CONSENT_REJECTED');
    expect(message).toMatch(/the bank answered 4\d\d on \/strict-interactive\/authorize/);
  });

  it('a redirect to a host that does not resolve is named', async () => {
    const upToConsent = await prepareUpToConsent(sandbox, identity, 'permissive-interactive');
    prepared.push(upToConsent.ready);
    // Told to expect another redirect URI than the registered one the bank will use: nothing intercepts the real one.
    let code: string | undefined;
    let message = '';
    try {
      await consentInBrowser({
        consentUrl: upToConsent.consentUrl,
        redirectUri: 'https://elsewhere.obflow.example/cb',
        ...sam(),
        ...trust(),
      });
    } catch (error) {
      code = isObflowError(error) ? error.code : undefined;
      message = (error as Error).message;
    }
    expect(code).toBe('ERR_REMOTE_RESPONSE');
    expect(message).toContain(`was sent to ${upToConsent.redirectUri}`);
  });
});
