// Scripted consent as data (docs/pipeline.md, "Consent modes"): a user-written script with other selectors drives the
// emulator's alternate page skin (another bank's pages) through the whole flow in Debian's Chromium; the default
// script does not fit those pages and fails naming its step and selector; a wrong selector, a refused login, Cancel,
// a script that never reaches the redirect (timeout), a PSU who never finishes, and no display each end in one coded error.

import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import { environmentValue } from '../../src/environment/index.js';
import { isObflowError } from '../../src/errors.js';
import { browserConsentOptions } from '../../src/run/consent/settings.js';
import {
  browserConsentStep,
  buildRunSummary,
  consentInBrowser,
  SANDBOX_CONSENT_SCRIPT,
  spkiPinOf,
  type BrowserConsentInput,
} from '../../src/run/index.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { chromium, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, prepareUpToConsent, runAll, type Prepared } from './pipeline-helpers.js';

let identity: TestIdentity;
const prepared: Prepared[] = [];

/** The alternate skin's pages as a user would describe them in obflow.config.json (flow.browser), parsed by the schema. */
const USER_SCRIPT = {
  errorSelector: '.notice-error',
  steps: [
    { name: 'customer number', fill: '#customer-number', with: 'username' },
    { name: 'passcode', fill: 'input[type=password]', with: 'password' },
    { name: 'continue', click: 'button:has-text("Continue")' },
    { name: 'review', waitFor: 'Review this access request' },
    { name: 'accounts', tick: 'fieldset input[type=checkbox]' },
    { name: 'allow', click: 'role=button[name="Allow access"]' },
  ],
};

function settingsFrom(browser: Record<string, unknown>) {
  return parseConfig({ flow: { consent: 'browser', browser } }, 'test').flow.browser;
}

const sandbox = useTestSandbox({ pageSkin: 'alternate' });

beforeAll(async () => {
  identity = await getTestIdentity();
});
afterAll(async () => {
  for (const item of prepared) {
    await item.dispatcher.close();
    await rm(item.stateDir, { recursive: true, force: true });
  }
});

const trust = (): Pick<BrowserConsentInput, 'trustedSpki' | 'executablePath'> => ({
  trustedSpki: [spkiPinOf(identity.pem.serverCert)],
  executablePath: CHROMIUM_PATH,
});
const sam = { sandboxUser: { username: 'sam', password: 'sam-sandbox-2' }, env: {} };

/** Registers and runs the steps up to the PSU's consent; returns the consent URL, redirect URI and state. */
async function upToConsent(): Promise<{ consentUrl: string; redirectUri: string; state: string }> {
  const { ready, ...consent } = await prepareUpToConsent(sandbox, identity, 'strict-interactive');
  prepared.push(ready);
  return consent;
}

async function failure(promise: Promise<unknown>): Promise<{ code: string | undefined; message: string; hint: string }> {
  try {
    await promise;
  } catch (error) {
    return {
      code: isObflowError(error) ? error.code : undefined,
      message: (error as Error).message,
      hint: isObflowError(error) ? error.hint : '',
    };
  }
  throw new Error('expected a failure');
}

describeWith(chromium, 'consent scripts against the alternate skin', () => {
  it('a user-written script drives the alternate pages: run all passes with sam sharing two of three accounts', async () => {
    const ready = await prepare(sandbox, identity, 'strict-interactive');
    prepared.push(ready);
    const options = await browserConsentOptions(
      settingsFrom({ script: USER_SCRIPT, accounts: ['Personal Account', 'Joint Account'], stepTimeoutSeconds: 20 }),
      sam,
    );
    const result = await runAll(ready, { consentStep: browserConsentStep({ ...options, ...trust() }) });
    expect(result.passed, describeRun(result)).toBe(true);
    expect(result.steps.map((step) => step.name)).toContain('psu-consent-browser');
    expect(environmentValue(result.environment, 'id_token')).toMatch(/^ey/);
    const summary = buildRunSummary({ environment: result.environment, steps: result.steps, executions: result.executions });
    expect(summary.accounts).toHaveLength(2);
  }, 90_000); // a whole flow with a cold Chromium: ~20 s alone on the 2-core machine, more under a full parallel run

  it('the default script does not fit the alternate pages: ERR_CONSENT_SCRIPT naming step 1 and #username', async () => {
    const { consentUrl, redirectUri, state } = await upToConsent();
    const failed = await failure(
      consentInBrowser({
        consentUrl,
        redirectUri,
        expectedState: state,
        script: SANDBOX_CONSENT_SCRIPT,
        credentials: sam.sandboxUser,
        stepTimeoutMs: 3_000,
        ...trust(),
      }),
    );
    expect(failed.code).toBe('ERR_CONSENT_SCRIPT');
    expect(failed.message).toMatch(
      /^consent script step 1 "username" \(fill #username\) on \/strict-interactive\/interaction\/[^ ]+: nothing on the page matched in time$/,
    );
  });

  it('a wrong selector in a later step: ERR_CONSENT_SCRIPT naming that step and its selector', async () => {
    const { consentUrl, redirectUri, state } = await upToConsent();
    const steps = USER_SCRIPT.steps.map((step) => (step.name === 'allow' ? { name: 'allow', click: 'role=button[name="Approve"]' } : step));
    const options = await browserConsentOptions(settingsFrom({ script: { ...USER_SCRIPT, steps }, stepTimeoutSeconds: 3 }), sam);
    const failed = await failure(consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state, ...trust() }));
    expect(failed.code).toBe('ERR_CONSENT_SCRIPT');
    expect(failed.message).toContain('step 6 "allow" (click role=button[name="Approve"])');
    expect(failed.hint).toContain('flow.browser.script');
  });

  it("a wrong passcode: the alternate page's own error (its errorSelector) ends the consent, ERR_CONSENT_REJECTED", async () => {
    const { consentUrl, redirectUri, state } = await upToConsent();
    const options = await browserConsentOptions(settingsFrom({ script: USER_SCRIPT }), {
      ...sam,
      sandboxUser: { username: 'sam', password: 'wrong' },
    });
    const failed = await failure(consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state, ...trust() }));
    expect(failed.code).toBe('ERR_CONSENT_REJECTED');
    expect(failed.message).toMatch(/refused after step 3 "continue" .*: That username and password do not match/);
  });

  it('the PSU cancels ("Do not allow"): access_denied, ERR_CONSENT_REJECTED', async () => {
    const { consentUrl, redirectUri, state } = await upToConsent();
    const steps = [...USER_SCRIPT.steps.slice(0, 4), { name: 'deny', click: 'role=button[name="Do not allow"]' }];
    const options = await browserConsentOptions(settingsFrom({ script: { steps } }), sam);
    const failed = await failure(consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state, ...trust() }));
    expect(failed.code).toBe('ERR_CONSENT_REJECTED');
    expect(failed.message).toContain('access_denied');
  });

  it('a script whose pages never lead to the redirect URI: ERR_CONSENT_TIMEOUT after the consent timeout', async () => {
    const { consentUrl, redirectUri, state } = await upToConsent();
    const steps = [...USER_SCRIPT.steps.slice(0, 3), { name: 'never', waitFor: 'This text is on no page' }];
    const options = await browserConsentOptions(settingsFrom({ script: { steps }, timeoutSeconds: 4, stepTimeoutSeconds: 60 }), sam);
    const started = Date.now();
    const failed = await failure(consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state, ...trust() }));
    expect(failed.code).toBe('ERR_CONSENT_TIMEOUT');
    expect(failed.message).toBe(
      `the browser was not sent back to ${new URL(redirectUri).origin}${new URL(redirectUri).pathname} within 4 s`,
    );
    // The consent timeout ended it, not the step's 60 s.
    expect(Date.now() - started).toBeLessThan(50_000);
  });

  it('a PSU who never finishes (no script, a window forced headless): ERR_CONSENT_TIMEOUT with the --consent-timeout hint', async () => {
    const { consentUrl, redirectUri, state } = await upToConsent();
    const options = await browserConsentOptions(settingsFrom({ script: 'none', headless: true, timeoutSeconds: 3 }), sam);
    expect(options.script).toBeUndefined();
    const failed = await failure(consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state, ...trust() }));
    expect(failed.code).toBe('ERR_CONSENT_TIMEOUT');
    expect(failed.hint).toContain('--consent-timeout');
  });

  it('no script and no display: ERR_BROWSER_NO_DISPLAY suggesting --consent manual, before Chromium starts', async () => {
    const options = await browserConsentOptions(settingsFrom({ script: 'none' }), { sandboxUser: undefined, env: { DISPLAY: '' } });
    const failed = await failure(
      consentInBrowser({ ...options, consentUrl: 'https://127.0.0.1:1/authorize', redirectUri: 'https://tpp.example/cb', ...trust() }),
    );
    expect(failed.code).toBe('ERR_BROWSER_NO_DISPLAY');
    expect(failed.hint).toContain('--consent manual');
  });
});
