// Browser consent's Chromium (and a display, without a consent script) checked before the first request of a run that
// will consent in the browser: `run` (src/pipeline/run-checks.ts) and the demo (openSession's `runs`), so
// ERR_BROWSER_MISSING is not found after register, environment and generate ran. The same check, with the same
// settings, as the consent step makes when it starts (src/run/consent/chromium.ts assertBrowserReady).

import type { ObflowConfig } from '../config/schema.js';
import { assertBrowserReady } from '../run/consent/chromium.js';
import { consentScriptOf } from '../run/consent/settings.js';
import type { Target } from './target.js';

export async function checkBrowserReady(session: {
  config: Pick<ObflowConfig, 'flow'>;
  target: Pick<Target, 'consent' | 'name'>;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<void> {
  if (session.target.consent !== 'browser') return;
  const settings = session.config.flow.browser;
  const script = consentScriptOf(settings, session.target.name === 'sandbox');
  await assertBrowserReady({ executablePath: settings.executablePath, headless: settings.headless, script, env: session.env });
}
