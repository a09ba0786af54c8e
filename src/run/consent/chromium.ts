// How obflow runs Debian's Chromium for consent (playwright-core, never a downloaded browser): where it is, the flags
// for a quiet self-contained run, the server certificate pins it trusts, whether a window can be shown, and whether
// browser consent can start at all.

import { X509Certificate, createHash } from 'node:crypto';
import { access, constants } from 'node:fs/promises';
import { ObflowError } from '../../errors.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
/** Chromium flags for a quiet, self-contained run (no network chatter beyond the pages themselves). Headless or
 *  headed is playwright's `headless` option. */
export const CHROMIUM_FLAGS = [
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

/** Whether a window can be shown: an X11 or Wayland display in the environment. */
export function hasDisplay(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env.DISPLAY ?? '') !== '' || (env.WAYLAND_DISPLAY ?? '') !== '';
}

/**
 * What browser consent needs before it can start: a Chromium to run (ERR_BROWSER_MISSING) and, without a consent
 * script (a person in the window), a display (ERR_BROWSER_NO_DISPLAY). Checked by the run before its first request
 * (src/pipeline/browser-check.ts), so a missing browser is not found after register, environment and generate ran, and
 * again here. Returns the Chromium and whether it runs headless.
 */
export async function assertBrowserReady(input: {
  executablePath?: string | undefined;
  headless?: boolean | undefined;
  script?: unknown;
  env?: Readonly<Record<string, string | undefined>> | undefined;
}): Promise<{ executablePath: string; headless: boolean }> {
  const executablePath = input.executablePath ?? DEFAULT_CHROMIUM;
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw new ObflowError('ERR_BROWSER_MISSING', `no Chromium at ${executablePath}`, {
      hint: 'Install it (`apt-get install -y chromium`), or use --consent manual (open the consent URL in any browser, paste the redirect back).',
    });
  }
  const headless = input.headless ?? input.script !== undefined;
  if (!headless && !hasDisplay(input.env ?? process.env)) {
    throw new ObflowError('ERR_BROWSER_NO_DISPLAY', 'no display to show the consent page on (DISPLAY and WAYLAND_DISPLAY are unset)', {
      hint: "Use --consent manual (open the consent URL in any browser, paste the redirect back), or describe the bank's pages in flow.browser.script to run headless.",
    });
  }
  return { executablePath, headless };
}
