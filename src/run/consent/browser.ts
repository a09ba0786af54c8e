// Interactive PSU consent (docs/bank-interface.md §5.3 steps 3–4) in a real browser: Debian's Chromium driven by
// playwright-core logs in as a test user, picks accounts, confirms, and catches the redirect to the TPP's redirect URI
// with `page.route` (its host does not resolve) — the code (+ id_token) come back for the code exchange.

import { X509Certificate, createHash } from 'node:crypto';
import { access, constants } from 'node:fs/promises';
import { ObflowError } from '../../errors.js';
import { consentInputs, readConsentRedirect } from './redirect.js';
import type { PostmanEnvironment } from '../../environment/merge.js';
import type { RunStep } from '../runner.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Chromium flags for a quiet, self-contained headless run (no network chatter beyond the pages themselves). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** Chromium's SPKI pin of a certificate (base64 SHA-256 of its SubjectPublicKeyInfo), for `trustedSpki`. */
export function spkiPinOf(certificatePem: string): string {
  const spki = new X509Certificate(certificatePem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

export interface BrowserConsentInput {
  consentUrl: string;
  /** The registered redirect URI the bank sends the PSU back to (intercepted, never resolved). */
  redirectUri: string;
  /** The state the consent URL carries; the redirect must return it unchanged (OAuth 2.0 §10.12). */
  expectedState?: string;
  username: string;
  password: string;
  /** Which accounts to share: AccountIds or label substrings; default every account offered. */
  accounts?: readonly string[];
  /** Cancel instead of confirming (tests the refusal path). */
  cancel?: boolean;
  executablePath?: string;
  /** SPKI pins (base64 SHA-256) of the bank's server certificate chain, so Chromium trusts the sandbox exactly. */
  trustedSpki?: readonly string[];
  /** Accept any server certificate (only with `insecure`). */
  ignoreHttpsErrors?: boolean;
  /** Per-action timeout (ms) for page waits; default 30 000 (a cold Chromium on a busy 2-core machine is slow). */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface BrowserConsentResult {
  code: string;
  idToken?: string;
  state?: string;
  /** How many accounts the PSU selected. */
  selectedAccounts: number;
}

export async function consentInBrowser(input: BrowserConsentInput): Promise<BrowserConsentResult> {
  const executablePath = input.executablePath ?? DEFAULT_CHROMIUM;
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw new ObflowError('ERR_BROWSER_MISSING', `no Chromium at ${executablePath}`, {
      hint: 'Install it (`apt-get install -y chromium`) or use a headless sandbox profile.',
    });
  }
  const { chromium } = await import('playwright-core');
  const args: string[] = [...CHROMIUM_FLAGS];
  if (input.trustedSpki !== undefined && input.trustedSpki.length > 0) args.push(`--ignore-certificate-errors-spki-list=${input.trustedSpki.join(',')}`);
  // Signals are obflow's to handle (main.ts decides the exit code, 130/143); playwright's exit hook still kills
  // Chromium and removes its temporary profile when the process ends.
  const browser = await chromium.launch({ executablePath, headless: true, args, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  const timeout = input.timeoutMs ?? 30_000;
  let unreachableSeen: string | undefined;
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: input.ignoreHttpsErrors === true });
    const page = await context.newPage();
    page.setDefaultTimeout(timeout);
    const redirect = new URL(input.redirectUri);
    let landed: string | undefined;
    // Every request to the redirect URI's origin is answered locally: the TPP's callback host need not exist.
    await page.route((url) => url.origin === redirect.origin, async (route) => {
      landed ??= route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>obflow</title><p>Consent received.</p>' });
    });
    // A navigation the browser could not complete (e.g. a redirect to a host that does not resolve) is named in the
    // error instead of a bare net:: code.
    page.on('requestfailed', (request) => {
      if (request.isNavigationRequest()) {
        const url = new URL(request.url());
        unreachableSeen ??= `${url.origin}${url.pathname} (${request.failure()?.errorText ?? 'failed'})`;
      }
    });

    // A bank that refuses the consent URL answers with an error page, not the login form: say what it says.
    const bankError = async (response: { status(): number; url(): string } | null): Promise<void> => {
      if (response === null || response.status() < 400 || new URL(response.url()).origin === redirect.origin) return;
      const text = (await page.locator('body').innerText().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 300);
      throw new ObflowError('ERR_CONSENT_REJECTED', `the bank answered ${response.status()} on ${new URL(response.url()).pathname}: ${text}`, {
        hint: 'Check the consent URL parameters (obflow run psu-consent) and the bank\'s log; start the flow again.',
      });
    };
    await bankError(await page.goto(input.consentUrl));
    await page.getByLabel('Username').fill(input.username);
    await page.getByLabel('Password').fill(input.password);
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Log in' }).click()]);
    const loginAlert = page.getByRole('alert');
    if (await page.getByRole('button', { name: 'Log in' }).count() > 0 && await loginAlert.count() > 0) {
      throw new ObflowError('ERR_CONSENT_REJECTED', `the bank refused the login of ${input.username}: ${(await loginAlert.first().innerText()).trim()}`, {
        hint: 'Use one of the sandbox test users (README: alex, sam, jo) with its password.',
      });
    }

    const boxes = page.getByRole('checkbox');
    const total = await boxes.count();
    let selected = 0;
    for (let index = 0; index < total; index += 1) {
      const box = boxes.nth(index);
      const value = (await box.getAttribute('value')) ?? '';
      const label = (await page.locator(`label[for="${(await box.getAttribute('id')) ?? ''}"]`).innerText().catch(() => '')).trim();
      const wanted = input.accounts === undefined || input.accounts.some((choice) => choice === value || (choice !== '' && label.includes(choice)));
      if (wanted) {
        await box.check();
        selected += 1;
      }
    }
    if (selected === 0 && input.cancel !== true) {
      throw new ObflowError('ERR_CONSENT_REJECTED', `none of the accounts offered to ${input.username} matched ${JSON.stringify(input.accounts ?? [])}`, {
        hint: 'Choose accounts the test user holds, or leave the selection empty to share all of them.',
      });
    }
    // Either the redirect to the TPP, or an error page from the bank (e.g. 400 "choose an account", or a 500).
    let failed: { status(): number; url(): string } | undefined;
    const onResponse = (response: { status(): number; url(): string; request(): { isNavigationRequest(): boolean } }): void => {
      if (failed === undefined && response.request().isNavigationRequest() && response.status() >= 400 && new URL(response.url()).origin !== redirect.origin) failed = response;
    };
    page.on('response', onResponse);
    await page.getByRole('button', { name: input.cancel === true ? 'Cancel' : 'Confirm' }).click();
    await page.waitForURL((url) => (url.origin === redirect.origin && url.pathname === redirect.pathname) || failed !== undefined);
    page.off('response', onResponse);
    if (failed !== undefined) await bankError(failed);
    // page.url() keeps the fragment (the request to the route does not): `code id_token` puts the parameters there.
    const landedUrl = page.url().includes('#') ? page.url() : (landed ?? page.url());
    input.log?.(`browser consent: landed on ${redirect.origin}${redirect.pathname}`);
    const result = readConsentRedirect(landedUrl, { redirectUri: input.redirectUri, ...(input.expectedState !== undefined ? { state: input.expectedState } : {}) });
    return { ...result, selectedAccounts: selected };
  } catch (error) {
    if (error instanceof ObflowError) throw error;
    if (unreachableSeen !== undefined) {
      throw new ObflowError('ERR_REMOTE_RESPONSE', `the browser was sent to ${unreachableSeen}, not to the redirect URI ${input.redirectUri}`, {
        hint: 'The bank redirected somewhere unexpected: check redirect_uri in the consent URL and its request object.',
        cause: error,
      });
    }
    throw new ObflowError('ERR_CONSENT_REJECTED', `browser consent failed: ${(error as Error).message.split('\n')[0] ?? ''}`, {
      hint: 'Run with the interactive profile again; check the consent URL and that the sandbox pages are reachable.',
      cause: error,
    });
  } finally {
    await browser.close();
  }
}

/** The runner step between `psu-consent` and `code-exchange`: reads consent_url/redirectUrl/state from the
 *  environment, drives the browser, writes auth_code and id_token (generate/variables.ts, written by "runner"). */
export function browserConsentStep(options: Omit<BrowserConsentInput, 'consentUrl' | 'redirectUri' | 'expectedState'>, name = 'psu-consent-browser'): RunStep {
  return {
    name,
    local: async (environment: PostmanEnvironment) => {
      const { consentUrl, redirectUri, state } = consentInputs(environment, 'browser');
      const result = await consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state });
      return { auth_code: result.code, id_token: result.idToken ?? '' };
    },
  };
}
