// Consent scripts as data (no browser here): the config's flow.browser → which script runs and what it types; the
// PSU's credentials from the environment or a secret file, never the config file; the steps named in errors.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadConfig, parseConfig } from '../../src/config/load.js';
import { readPsuCredentials } from '../../src/run/consent/credentials.js';
import { credentialsNeeded, describeStep, SANDBOX_CONSENT_SCRIPT, sandboxConsentScript } from '../../src/run/consent/script.js';
import { browserConsentOptions, consentScriptOf } from '../../src/run/consent/settings.js';
import { tempDir } from '../helpers/temp.js';

const settingsFrom = (browser: Record<string, unknown>) => parseConfig({ flow: { browser } }, 'test').flow.browser;
const SOURCE = { usernameEnv: 'OBFLOW_PSU_USERNAME', passwordEnv: 'OBFLOW_PSU_PASSWORD' };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'no error';
}

describe('consent scripts', () => {
  it('the default script is the sandbox pages: types username and password, ends with Confirm (or Cancel)', () => {
    expect(credentialsNeeded(SANDBOX_CONSENT_SCRIPT)).toEqual(['password', 'username']);
    expect(SANDBOX_CONSENT_SCRIPT.steps.map((step, index) => describeStep(step, index))).toEqual([
      'step 1 "username" (fill #username)',
      'step 2 "password" (fill #password)',
      'step 3 "log in" (click role=button[name="Log in"])',
      'step 4 "consent page" (waitFor Share your account information)',
      'step 5 "accounts" (tick input[type=checkbox][name=account])',
      'step 6 "confirm" (click role=button[name="Confirm"])',
    ]);
    expect(sandboxConsentScript({ cancel: true }).steps.at(-1)).toEqual({ name: 'cancel', click: 'role=button[name="Cancel"]' });
  });

  it('which script runs: the sandbox default for the embedded sandbox, a person for a bank, else what the config says', () => {
    expect(consentScriptOf(settingsFrom({}), true)).toBe(SANDBOX_CONSENT_SCRIPT);
    expect(consentScriptOf(settingsFrom({}), false)).toBeUndefined();
    expect(consentScriptOf(settingsFrom({ script: 'sandbox' }), false)).toBe(SANDBOX_CONSENT_SCRIPT);
    expect(consentScriptOf(settingsFrom({ script: 'none' }), true)).toBeUndefined();
    const steps = [{ click: '#go' }];
    expect(consentScriptOf(settingsFrom({ script: { steps } }), false)).toEqual({ steps });
  });

  it('the config refuses a step with two actions, an unknown action, a credential value, and an empty script', () => {
    const invalid = (script: unknown) => () => parseConfig({ flow: { browser: { script } } }, 'test');
    expect(invalid({ steps: [{ click: '#a', fill: '#b' }] })).toThrow(/flow\.browser\.script/);
    expect(invalid({ steps: [{ press: '#a' }] })).toThrow(/flow\.browser\.script/);
    expect(invalid({ steps: [{ fill: '#password', with: 'hunter2' }] })).toThrow(/flow\.browser\.script/);
    expect(invalid({ steps: [] })).toThrow(/flow\.browser\.script/);
    // No key of flow.browser holds a password: credentials are never in the config file.
    expect(() => parseConfig({ flow: { browser: { credentials: { password: 'x' } } } }, 'test')).toThrow(/flow\.browser\.credentials/);
  });

  it('defaults: 5 minutes for the consent, 30 s a step; --consent-timeout is flow.browser.timeoutSeconds', async () => {
    const browser = settingsFrom({});
    expect([browser.timeoutSeconds, browser.stepTimeoutSeconds, browser.credentials, browser.executablePath]).toEqual([
      300,
      30,
      SOURCE,
      '/usr/bin/chromium',
    ]);
    const { config } = loadConfig({
      cwd: await tempDir('obflow-psu-'),
      env: { OBFLOW_PSU_USERNAME: 'u', OBFLOW_PSU_PASSWORD: 'p' },
      flags: { flow: { browser: { timeoutSeconds: 12 } } },
    });
    expect(config.flow.browser.timeoutSeconds).toBe(12);
  });
});

describe('PSU credentials', () => {
  it('from the environment; only what the script types', async () => {
    expect(await readPsuCredentials(['password', 'username'], SOURCE, { OBFLOW_PSU_USERNAME: 'u1', OBFLOW_PSU_PASSWORD: 'p1' })).toEqual({
      username: 'u1',
      password: 'p1',
    });
    expect(await readPsuCredentials([], SOURCE, {})).toEqual({});
    expect(await readPsuCredentials(['username'], { ...SOURCE, usernameEnv: 'BANK_A_USER' }, { BANK_A_USER: 'a' })).toEqual({
      username: 'a',
    });
  });

  it('from a secret file where the environment has none; the environment wins', async () => {
    const dir = await tempDir('obflow-psu-');
    const file = join(dir, 'psu.json');
    await writeFile(file, JSON.stringify({ username: 'fu', password: 'fp' }), { mode: 0o600 });
    expect(await readPsuCredentials(['password', 'username'], { ...SOURCE, file }, { OBFLOW_PSU_USERNAME: 'eu' })).toEqual({
      username: 'eu',
      password: 'fp',
    });
  });

  it('missing, unreadable, or the config file itself: ERR_PSU_CREDENTIALS, never echoing a value', async () => {
    const dir = await tempDir('obflow-psu-');
    expect(await codeOf(readPsuCredentials(['password'], SOURCE, {}))).toBe('ERR_PSU_CREDENTIALS');
    expect(await codeOf(readPsuCredentials(['password'], { ...SOURCE, file: join(dir, 'none.json') }, {}))).toBe('ERR_PSU_CREDENTIALS');
    const config = join(dir, 'obflow.config.json');
    await writeFile(config, JSON.stringify({ target: 'bank', password: 'not-to-be-shown' }));
    const error = await readPsuCredentials(['password'], { ...SOURCE, file: config }, {}).catch(
      (caught: unknown) => caught as Error & { code: string },
    );
    expect(error).toMatchObject({ code: 'ERR_PSU_CREDENTIALS' });
    expect((error as Error).message).toContain('(it has target)');
    expect((error as Error).message).not.toContain('not-to-be-shown');
  });

  it('the embedded sandbox logs in as its test user; a bank reads the environment only when a script types it', async () => {
    const sandbox = await browserConsentOptions(settingsFrom({}), { sandboxUser: { username: 'sam', password: 'sam-sandbox-2' }, env: {} });
    expect(sandbox).toMatchObject({
      script: SANDBOX_CONSENT_SCRIPT,
      credentials: { username: 'sam' },
      timeoutMs: 300_000,
      stepTimeoutMs: 30_000,
    });
    const person = await browserConsentOptions(settingsFrom({}), { env: {} });
    expect([person.script, person.credentials]).toEqual([undefined, {}]);
    expect(await codeOf(browserConsentOptions(settingsFrom({ script: 'sandbox' }), { env: {} }))).toBe('ERR_PSU_CREDENTIALS');
  });
});
