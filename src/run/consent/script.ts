// Scripted PSU consent as data: a bank's consent pages described as steps (fill a field with the PSU's username or
// password, tick accounts, click, wait for text), so CI can pass an interactive profile without a person. The
// emulator's own pages are the built-in default script (SANDBOX_CONSENT_SCRIPT); docs/pipeline.md, "Consent modes".

/** Which of the PSU's credentials a `fill` step types: they come from the environment or a secret file, never from
 *  the config file (docs/pipeline.md, "Scripted consent"). */
export type CredentialName = 'username' | 'password';

interface Named {
  /** How errors name the step; default `step <n>`. */
  name?: string | undefined;
}

/** One step; each has exactly one action key. Selectors are Playwright selectors (CSS, `text=…`, `role=button[name="…"]`). */
export type ConsentScriptStep =
  | (Named & { fill: string; with: CredentialName })
  | (Named & { tick: string })
  | (Named & { click: string })
  | (Named & { waitFor: string });

export interface ConsentScript {
  steps: readonly ConsentScriptStep[];
  /** Where the bank's pages show an error (e.g. `[role=alert]`): when it appears while a step waits, the consent
   *  stops with the bank's own words instead of a step timeout. */
  errorSelector?: string | undefined;
}

/** The action of a step as a pair: the key and its selector (or text, for waitFor). */
export function actionOf(step: ConsentScriptStep): { action: 'fill' | 'tick' | 'click' | 'waitFor'; target: string } {
  if ('fill' in step) return { action: 'fill', target: step.fill };
  if ('tick' in step) return { action: 'tick', target: step.tick };
  if ('click' in step) return { action: 'click', target: step.click };
  return { action: 'waitFor', target: step.waitFor };
}

/** `step 3 "log in" (click role=button[name="Log in"])`: how a message names a step. */
export function describeStep(step: ConsentScriptStep, index: number): string {
  const { action, target } = actionOf(step);
  return `step ${index + 1}${step.name === undefined ? '' : ` "${step.name}"`} (${action} ${target})`;
}

/** The credentials the script's fill steps need (none: nothing needs to be read). */
export function credentialsNeeded(script: ConsentScript): CredentialName[] {
  const names = new Set<CredentialName>();
  for (const step of script.steps) if ('fill' in step) names.add(step.with);
  return [...names].sort();
}

/**
 * The embedded sandbox's login, account-selection and Confirm/Cancel pages (docs/sandbox.md, "PSU pages") as the
 * default script: what `--consent browser` drives against `obflow sandbox` with no script configured.
 */
export function sandboxConsentScript(options: { cancel?: boolean } = {}): ConsentScript {
  const start: ConsentScriptStep[] = [
    { name: 'username', fill: '#username', with: 'username' },
    { name: 'password', fill: '#password', with: 'password' },
    { name: 'log in', click: 'role=button[name="Log in"]' },
    { name: 'consent page', waitFor: 'Share your account information' },
  ];
  const end: ConsentScriptStep[] =
    options.cancel === true
      ? [{ name: 'cancel', click: 'role=button[name="Cancel"]' }]
      : [
          { name: 'accounts', tick: 'input[type=checkbox][name=account]' },
          { name: 'confirm', click: 'role=button[name="Confirm"]' },
        ];
  return { errorSelector: '[role=alert]', steps: [...start, ...end] };
}

export const SANDBOX_CONSENT_SCRIPT: ConsentScript = sandboxConsentScript();
