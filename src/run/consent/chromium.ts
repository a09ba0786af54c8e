// How obflow runs Debian's Chromium for consent (playwright-core, never a downloaded browser): where it is, the flags
// for a quiet self-contained run, the server certificate pins it trusts, and whether a window can be shown.

import { X509Certificate, createHash } from 'node:crypto';

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
