// PSU consent in a real browser (docs/bank-interface.md §5.3 steps 3–4; docs/pipeline.md, "Consent modes"): Debian's
// Chromium, driven by playwright-core, opens the PSU's consent URL at any bank. A consent script (script.ts) passes
// the bank's pages headless — the emulator's pages are the default script — or, with no script, the PSU logs in and
// confirms in a visible window. Either way obflow catches the navigation to the registered redirect URI itself
// (a route answers it locally: its host need not resolve), reads code, id_token and state from the query or the
// fragment, checks state, and the code exchange goes on.

import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { ObflowError } from '../../errors.js';
import { consentInputs, readConsentRedirect } from './redirect.js';
import { runScript } from './script-driver.js';
import { type ConsentScript, type CredentialName } from './script.js';
import type { PostmanEnvironment } from '../../environment/merge.js';
import type { RunStep } from '../steps.js';
import { assertBrowserReady, CHROMIUM_FLAGS } from './chromium.js';

export { CHROMIUM_FLAGS, DEFAULT_CHROMIUM, hasDisplay, spkiPinOf } from './chromium.js';

/** How long the PSU has to finish the consent (docs/pipeline.md): flow.browser.timeoutSeconds, --consent-timeout. */
export const DEFAULT_CONSENT_TIMEOUT_MS = 300_000;
/** How long one script step waits for its element (a cold Chromium on a busy 2-core machine is slow). */
export const DEFAULT_STEP_TIMEOUT_MS = 30_000;

export interface BrowserConsentOptions {
  /** flow.fapi "2.0": the redirect must carry iss (RFC 9207). */
  requireIss?: boolean;
  /** The bank's pages as steps; undefined: a person consents in a visible window. */
  script?: ConsentScript | undefined;
  /** What the script's fill steps type (only those it names are needed). */
  credentials?: Partial<Record<CredentialName, string>>;
  /** Which accounts a tick step ticks: AccountIds or label substrings; default every account offered. */
  accounts?: readonly string[] | undefined;
  /** Default: headless with a script, a visible window without one. */
  headless?: boolean | undefined;
  /** Where to look for DISPLAY / WAYLAND_DISPLAY (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  executablePath?: string;
  /** SPKI pins (base64 SHA-256) of the bank's server certificate chain, so Chromium trusts exactly it. */
  trustedSpki?: readonly string[];
  /** Accept any server certificate (only with `insecure`). */
  ignoreHttpsErrors?: boolean;
  /** The whole consent, from opening the URL to the redirect (default 5 minutes). */
  timeoutMs?: number | undefined;
  /** One script step's wait for its element (default 30 s). */
  stepTimeoutMs?: number | undefined;
  /** Registers a cleanup for Ctrl-C / SIGTERM (the CLI's onInterrupt); returns its disposer. */
  onInterrupt?: (cleanup: () => Promise<void>) => () => void;
  log?: (line: string) => void;
}

export interface BrowserConsentInput extends BrowserConsentOptions {
  consentUrl: string;
  /** The registered redirect URI the bank sends the PSU back to (intercepted, never resolved). */
  redirectUri: string;
  /** The state the consent URL carries; the redirect must return it unchanged (OAuth 2.0 §10.12). */
  expectedState?: string;
  /** The issuer: an `iss` in the redirect must be it (RFC 9207 §2.4). */
  expectedIssuer?: string;
}

export interface BrowserConsentResult {
  code: string;
  idToken?: string;
  state?: string;
  /** How many accounts the script ticked (0 when a person consented). */
  selectedAccounts: number;
}

/** An outcome that ends the consent early (the PSU closed the window, a bank error page, the deadline). */
class Stop {
  constructor(readonly error: ObflowError) {}
}

export async function consentInBrowser(input: BrowserConsentInput): Promise<BrowserConsentResult> {
  const { executablePath, headless } = await assertBrowserReady(input);
  const { chromium } = await import('playwright-core');
  const args: string[] = [...CHROMIUM_FLAGS];
  if (input.trustedSpki !== undefined && input.trustedSpki.length > 0)
    args.push(`--ignore-certificate-errors-spki-list=${input.trustedSpki.join(',')}`);
  // Signals are obflow's to handle (main.ts decides the exit code, 130/143): Ctrl-C closes the browser through the
  // interrupt cleanup below, and playwright's exit hook kills Chromium and removes its profile if anything is left.
  const browser = await chromium.launch({ executablePath, headless, args, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  let interrupted = false;
  const disposeInterrupt = input.onInterrupt?.(async () => {
    interrupted = true;
    await browser.close();
  });
  const timeoutMs = input.timeoutMs ?? DEFAULT_CONSENT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<Stop>((resolve) => {
      timer = setTimeout(() => resolve(new Stop(timedOut(input.redirectUri, timeoutMs, input.script !== undefined))), timeoutMs);
    });
    const driving = drive(browser, input, headless);
    const outcome = await Promise.race([driving, deadline]);
    if (outcome instanceof Stop) {
      driving.catch(() => undefined);
      throw outcome.error;
    }
    return outcome;
  } catch (error) {
    // Interrupted: main.ts ends the process with 130/143 once the cleanups ran; no error line of ours before it.
    if (interrupted) return new Promise<never>(() => undefined);
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    disposeInterrupt?.();
    await browser.close().catch(() => undefined);
  }
}

async function drive(browser: Browser, input: BrowserConsentInput, headless: boolean): Promise<BrowserConsentResult> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: input.ignoreHttpsErrors === true,
    ...(headless ? {} : { viewport: null }),
  });
  const redirect = new URL(input.redirectUri);
  const atRedirect = (url: string): boolean =>
    URL.canParse(url) && new URL(url).origin === redirect.origin && new URL(url).pathname === redirect.pathname;
  // Every request to the redirect URI's origin is answered here, in every tab (a bank may open a popup): the TPP's
  // callback host need not exist. The fragment (`code id_token`) never reaches a request, so the landing is read
  // from the page's URL once it navigated there.
  await context.route(
    (url) => url.origin === redirect.origin,
    (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        body: '<!doctype html><title>obflow</title><p>Consent received: you can close this window.</p>',
      }),
  );
  const watch = watchPages(context, atRedirect, redirect);
  const page = await context.newPage();
  watch.add(page);
  page.setDefaultTimeout(input.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(input.timeoutMs ?? DEFAULT_CONSENT_TIMEOUT_MS);

  // How many accounts the script ticked so far (read when the browser lands, which may be before the script returns).
  const ticked = { count: 0 };
  const scripted = async (): Promise<void> => {
    const first = await page.goto(input.consentUrl);
    // A bank that refuses the consent URL answers with an error page, not its login form: say what it says.
    if (first !== null && first.status() >= 400 && !atRedirect(first.url())) throw await bankErrorPage(page, first);
    input.log?.(
      input.script === undefined
        ? `browser consent: the consent page is open at ${new URL(input.consentUrl).origin}; log in and confirm there`
        : 'browser consent: running the consent script',
    );
    if (input.script === undefined) return;
    // The last step leads either to the redirect to the TPP, or to an error page from the bank (e.g. 400 "choose an
    // account", or a 500): from then on such a page ends the consent with what it says.
    await runScript(page, input.script, input, ticked, () => watch.failOnErrorPages());
  };
  // A bank may send the browser back before the script's last step (nothing left to confirm): that is the landing.
  const first = await Promise.race([scripted(), watch.stopped, watch.landed]);
  if (first instanceof Stop) throw first.error;
  const landed = await Promise.race([watch.landed, watch.stopped]);
  if (landed instanceof Stop) throw landed.error;
  input.log?.(`browser consent: landed on ${redirect.origin}${redirect.pathname}`);
  const result = readConsentRedirect(landed, {
    redirectUri: input.redirectUri,
    ...(input.expectedState !== undefined ? { state: input.expectedState } : {}),
    ...(input.expectedIssuer !== undefined ? { issuer: input.expectedIssuer } : {}),
    requireIss: input.requireIss === true,
  });
  return { ...result, selectedAccounts: ticked.count };
}

interface PageWatch {
  add(page: Page): void;
  /** The URL (fragment included) of the first main-frame navigation to the redirect URI. */
  landed: Promise<string>;
  /** The PSU closed every window, the browser went to an unexpected host, or (after the script) a bank error page. */
  stopped: Promise<Stop>;
  failOnErrorPages(): void;
}

function watchPages(context: BrowserContext, atRedirect: (url: string) => boolean, redirect: URL): PageWatch {
  let land: (url: string) => void = () => undefined;
  let stop: (stop: Stop) => void = () => undefined;
  const landed = new Promise<string>((resolve) => (land = resolve));
  const stopped = new Promise<Stop>((resolve) => (stop = resolve));
  const open = new Set<Page>();
  let errorPages = false;
  const add = (page: Page): void => {
    if (open.has(page)) return;
    open.add(page);
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && atRedirect(frame.url())) land(frame.url());
    });
    // A navigation the browser could not complete (a redirect to a host that does not resolve) is named.
    page.on('requestfailed', (request) => {
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
      const url = new URL(request.url());
      // ERR_ABORTED: a navigation replaced by the next one (a form post answered by a redirect), not a failure.
      const reason = request.failure()?.errorText ?? 'failed';
      if (url.origin === redirect.origin || reason === 'net::ERR_ABORTED') return;
      stop(
        new Stop(
          new ObflowError(
            'ERR_REMOTE_RESPONSE',
            `the browser was sent to ${url.origin}${url.pathname} (${reason}), not to the redirect URI ${redirect.origin}${redirect.pathname}`,
            {
              hint: 'The bank redirected somewhere unexpected: check redirect_uri in the consent URL and its request object.',
            },
          ),
        ),
      );
    });
    page.on('response', (response) => {
      if (!errorPages || response.status() < 400 || !response.request().isNavigationRequest() || atRedirect(response.url())) return;
      void page
        .waitForLoadState()
        .catch(() => undefined)
        .then(async () => stop(new Stop(await bankErrorPage(page, response))));
    });
    page.on('close', () => {
      open.delete(page);
      if (open.size === 0) {
        stop(
          new Stop(
            new ObflowError('ERR_CONSENT_REJECTED', 'the browser window was closed before the bank sent it back to the redirect URI', {
              hint: 'The PSU closed the window: run the consent again and confirm, or use --consent manual.',
            }),
          ),
        );
      }
    });
  };
  context.on('page', add);
  return { add, landed, stopped, failOnErrorPages: () => (errorPages = true) };
}

/** The bank's error page as an ObflowError with what it says (its status, path and text). */
async function bankErrorPage(page: Page, response: Response): Promise<ObflowError> {
  const text = (
    await page
      .locator('body')
      .innerText()
      .catch(() => '')
  )
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
  return new ObflowError('ERR_CONSENT_REJECTED', `the bank answered ${response.status()} on ${new URL(response.url()).pathname}: ${text}`, {
    hint: "Check the consent URL parameters (obflow run psu-consent) and the bank's log; start the flow again.",
  });
}

function timedOut(redirectUri: string, timeoutMs: number, scripted: boolean): ObflowError {
  const redirect = new URL(redirectUri);
  return new ObflowError(
    'ERR_CONSENT_TIMEOUT',
    `the browser was not sent back to ${redirect.origin}${redirect.pathname} within ${Math.round(timeoutMs / 1000)} s`,
    {
      hint: scripted
        ? 'The script ended but the bank did not redirect: check its last steps, or raise flow.browser.timeoutSeconds (--consent-timeout).'
        : 'The PSU did not finish in time: run again, or raise flow.browser.timeoutSeconds (--consent-timeout <seconds>).',
    },
  );
}

/** The runner step between `psu-consent` and `code-exchange`: reads consent_url/redirectUrl/state from the
 *  environment, drives the browser, writes auth_code and id_token (generate/variables.ts, written by "runner"). */
export function browserConsentStep(options: BrowserConsentOptions, name = 'psu-consent-browser'): RunStep {
  return {
    name,
    local: async (environment: PostmanEnvironment) => {
      const { consentUrl, redirectUri, state, issuer } = consentInputs(environment, 'browser');
      const result = await consentInBrowser({ ...options, consentUrl, redirectUri, expectedState: state, expectedIssuer: issuer });
      return { auth_code: result.code, id_token: result.idToken ?? '' };
    },
  };
}
