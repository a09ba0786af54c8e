// The interactive profiles in a real browser (Debian's Chromium through playwright-core): log in as a test user,
// pick two of three accounts and Confirm → the redirect URI receives a code; Cancel → access_denied with state.
// The redirect URI's host does not resolve, so the test intercepts it with page.route, as a TPP's callback would.

import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { CHROMIUM_FLAGS } from '../../src/run/consent/browser.js';
import { userByUsername } from '../../src/sandbox/data/users.js';
import { redirectParams, SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';
import { chromium as chromiumPrerequisite, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';

let sandbox: TestSandbox;
let browser: Browser;
const tpps: SandboxTpp[] = [];

async function newTpp(profile: 'strict-interactive' | 'permissive-interactive'): Promise<SandboxTpp> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
  tpps.push(tpp);
  await tpp.register();
  return tpp;
}

/** Opens the consent URL; resolves with the URL the bank finally redirected the browser to (the TPP's callback). */
async function openAndCatchCallback(page: Page, consentUrl: string, redirectUri: string): Promise<{ done: Promise<string> }> {
  const callbackOrigin = new URL(redirectUri).origin;
  let resolve: (url: string) => void = () => {};
  const done = new Promise<string>((r) => {
    resolve = r;
  });
  await page.route(`${callbackOrigin}/**`, async (route) => {
    await route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: '<!doctype html><title>TPP callback</title><p>Back at the TPP.</p>',
    });
  });
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().startsWith(callbackOrigin)) resolve(frame.url());
  });
  await page.goto(consentUrl);
  return { done };
}

// Without Chromium the whole block is reported as skipped with the reason (its hooks do not run).
describeWith(chromiumPrerequisite, 'interactive consent in Chromium', () => {
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS], headless: true });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(tpps.map((tpp) => tpp.close()));
    await sandbox?.close();
  });

  it('logs in, picks two of three accounts, confirms, and lands on the redirect URI with a code', async () => {
    const tpp = await newTpp('strict-interactive');
    const consentId = await tpp.createConsent();
    const { url, state, redirectUri } = await tpp.authorizeUrl({ consentId, responseType: 'code id_token' });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const { done } = await openAndCatchCallback(page, url, redirectUri ?? '');

    await page.getByRole('heading', { name: 'Log in to the sandbox bank' }).waitFor();
    const sam = userByUsername('sam');
    await page.getByLabel('Username').fill(sam?.username ?? '');
    await page.getByLabel('Password').fill(sam?.password ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();

    await page.getByRole('heading', { name: 'Share your account information' }).waitFor();
    const body = await page.locator('main').textContent();
    expect(body).toContain('ReadAccountsDetail');
    expect(body).toContain('Your balances');
    const boxes = page.getByRole('checkbox');
    expect(await boxes.count()).toBe(3);
    await boxes.nth(0).check();
    await boxes.nth(2).check();
    await page.getByRole('button', { name: 'Confirm' }).click();

    const landed = await done;
    expect(landed.startsWith(`${redirectUri}#`)).toBe(true);
    const params = redirectParams(landed);
    expect(params.get('state')).toBe(state);
    const code = params.get('code') ?? '';
    expect(code).not.toBe('');
    expect(params.get('id_token')).toBeTruthy();
    const exchanged = await tpp.exchangeCode(code, redirectUri);
    expect(exchanged.status).toBe(200);
    await context.close();
  });

  it('cancels and lands on the redirect URI with access_denied and the state', async () => {
    const tpp = await newTpp('permissive-interactive');
    const consentId = await tpp.createConsent();
    const { url, state, redirectUri } = await tpp.authorizeUrl({ consentId, responseType: 'code' });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const { done } = await openAndCatchCallback(page, url, redirectUri ?? '');

    const alex = userByUsername('alex');
    await page.getByLabel('Username').fill(alex?.username ?? '');
    await page.getByLabel('Password').fill(alex?.password ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();

    const params = redirectParams(await done);
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(state);
    expect(params.get('code')).toBeNull();
    await context.close();
  });
});
