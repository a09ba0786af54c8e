// The interactive profiles' page for a VRP mandate, in a real browser (Debian's Chromium through playwright-core), as
// the other consent pages are tested: the page says what the PSU agrees to as a person reads it — the type, who is
// paid, the maximum per payment, each periodic limit in words (a calendar month's pro-rated first amount too), the dates
// it is valid in the bank's calendar, whether each payment asks them — and lets them pick the account it pays from; the
// consent then names that account. Cancelling rejects the consent.

import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { CHROMIUM_FLAGS } from '../../src/run/consent/browser.js';
import { createBank, startOfUtcDay } from '../../src/sandbox/data/bank.js';
import { loggedIn } from '../helpers/bank-login.js';
import { docsPicture } from '../helpers/docs-picture.js';
import { chromium as chromiumPrerequisite, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { redirectParams, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';
import { BankClock, VrpTpp, vrpConsentRequest } from '../helpers/vrp-client.js';

const SEED = 'vrp-browser';
const clock = new BankClock();
let sandbox: TestSandbox;
let browser: Browser;
const tpps: VrpTpp[] = [];

/** The consent URL of a new mandate made on the bank's `created` date, and what to check it with. */
async function mandatePage(created: string): Promise<{ tpp: VrpTpp; consentId: string; url: string; redirectUri: string }> {
  const tpp = await VrpTpp.openVrp(sandbox, clock, 'strict-interactive');
  tpps.push(tpp);
  clock.set(created);
  const request = vrpConsentRequest('3.1', {
    maximum: '50.00',
    limits: [
      { PeriodType: 'Month', PeriodAlignment: 'Calendar', Amount: '300.00' },
      { PeriodType: 'Week', PeriodAlignment: 'Consent', Amount: '120.00' },
    ],
    validFrom: '2027-06-10T09:00:00+01:00',
    validTo: '2027-12-31T23:00:00+00:00',
  });
  const { consentId } = await tpp.vrpConsent('3.1', request);
  const now = Math.floor(clock.now().getTime() / 1000);
  const built = await tpp.authorizeUrl({
    consentId,
    responseType: 'code id_token',
    scope: 'openid payments',
    objectClaims: { iat: now, nbf: now, exp: now + 300 },
  });
  return { tpp, consentId, url: built.url, redirectUri: built.redirectUri ?? '' };
}

describeWith(chromiumPrerequisite, 'the VRP mandate page in Chromium', () => {
  beforeAll(async () => {
    sandbox = await startTestSandbox({ apis: ['accounts', 'vrp'], seed: SEED, now: clock.now });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS], headless: true });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(tpps.map((tpp) => tpp.close()));
    await sandbox?.close();
  });

  it('shows each control parameter as a person reads it; the PSU picks the account; the consent names it', async () => {
    // Sunday 6 June 2027: the calendar month has 25 of its 30 days left.
    const { tpp, consentId, url, redirectUri } = await mandatePage('2027-06-06T10:00:00Z');
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const { done } = await loggedIn(page, url, redirectUri, 'sam');

    await page.getByRole('heading', { name: 'Set up variable recurring payments' }).waitFor();
    await docsPicture(page, 'sandbox-vrp-consent.png');
    const terms = await page.locator('dl dt').allTextContents();
    const values = await page.locator('dl dd').allTextContents();
    expect(terms.map((term, index) => [term, values[index]])).toEqual([
      ['Type', 'Sweeping: moving money between your own accounts'],
      ['To', 'Sweep Savings Ltd, UK.OBIE.SortCodeAccountNumber 20000312345678'],
      ['Each payment', 'Up to 50.00 GBP'],
      ['Per calendar month', 'Up to 300.00 GBP; 250.00 GBP until 30 June 2027'],
      ['Per week, counted from 6 June 2027', 'Up to 120.00 GBP'],
      ['From', '10 June 2027'],
      ['Until', '31 December 2027, end of the day'],
      ['Payments are made', 'without asking you each time'],
      ['Reference', 'SWEEP-4711'],
    ]);
    const group = page.getByRole('group', { name: 'Pay from' });
    const radios = group.getByRole('radio');
    const offered = createBank(SEED, startOfUtcDay(new Date()))
      .accountsOf('psu-sam')
      .filter((account) => account.currency === 'GBP');
    expect(await radios.count()).toBe(offered.length);
    const chosen = (await radios.nth(1).getAttribute('value')) ?? '';
    await radios.nth(1).check();
    await page.getByRole('button', { name: 'Confirm' }).click();

    const code = redirectParams(await done).get('code') ?? '';
    expect(code).not.toBe('');
    expect((await tpp.exchangeCode(code, redirectUri)).status).toBe(200);
    const consent = (await tpp.get(`${tpp.pisp('3.1')}/domestic-vrp-consents/${consentId}`, await tpp.clientCredentials('payments'))).json<{
      Data: { Status: string; DebtorAccount: { Identification: string } };
    }>().Data;
    const account = offered.find((candidate) => candidate.accountId === chosen);
    expect(consent).toMatchObject({
      Status: 'Authorised',
      DebtorAccount: { Identification: `${account?.sortCode ?? ''}${account?.accountNumber ?? ''}` },
    });
    await context.close();
  });

  it('Cancel rejects the mandate: the TPP gets access_denied, the consent is Rejected', async () => {
    const { tpp, consentId, url, redirectUri } = await mandatePage('2027-06-06T10:00:00Z');
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const { done } = await loggedIn(page, url, redirectUri, 'alex');
    await page.getByRole('heading', { name: 'Set up variable recurring payments' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(redirectParams(await done).get('error')).toBe('access_denied');
    const consent = await tpp.get(`${tpp.pisp('3.1')}/domestic-vrp-consents/${consentId}`, await tpp.clientCredentials('payments'));
    expect(consent.json<{ Data: { Status: string } }>().Data.Status).toBe('Rejected');
    await context.close();
  });
});
