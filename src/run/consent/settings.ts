// From the config's flow.browser to the browser consent driver's options: which script (the sandbox's default, the
// bank's steps, or none: a person in a window), the PSU's credentials it types, the timeouts (docs/pipeline.md,
// "Consent modes").

import type { ObflowConfig } from '../../config/schema.js';
import type { BrowserConsentOptions } from './browser.js';
import { readPsuCredentials } from './credentials.js';
import { credentialsNeeded, SANDBOX_CONSENT_SCRIPT, type ConsentScript } from './script.js';

export type BrowserSettings = ObflowConfig['flow']['browser'];

/** The script to run: flow.browser.script, else the sandbox's pages for the embedded sandbox and a person for a bank. */
export function consentScriptOf(settings: BrowserSettings, embeddedSandbox: boolean): ConsentScript | undefined {
  const script = settings.script ?? (embeddedSandbox ? 'sandbox' : 'none');
  if (script === 'none') return undefined;
  return script === 'sandbox' ? SANDBOX_CONSENT_SCRIPT : script;
}

export async function browserConsentOptions(
  settings: BrowserSettings,
  context: {
    /** The embedded sandbox's PSU (a public test user): the script logs in as them. Undefined for a bank. */
    sandboxUser?: { username: string; password: string } | undefined;
    env: Readonly<Record<string, string | undefined>>;
  },
): Promise<BrowserConsentOptions> {
  const script = consentScriptOf(settings, context.sandboxUser !== undefined);
  const credentials =
    script === undefined
      ? {}
      : (context.sandboxUser ?? (await readPsuCredentials(credentialsNeeded(script), settings.credentials, context.env)));
  return {
    script,
    credentials,
    accounts: settings.accounts,
    headless: settings.headless,
    executablePath: settings.executablePath,
    env: context.env,
    timeoutMs: settings.timeoutSeconds * 1000,
    stepTimeoutMs: settings.stepTimeoutSeconds * 1000,
  };
}
