// The interactive profiles' pages for a payment and a funds check, in a real browser (Debian's Chromium through
// playwright-core), as sandbox-browser.test.ts does for account access: the page shows the payment (amount, payee,
// reference) and lets the PSU pick the account to pay from when the consent names none; a consent that names one shows
// it alone, chosen; the code exchanged, the consent names the debtor the PSU chose.

import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { CHROMIUM_FLAGS } from '../../src/run/consent/browser.js';
import { createBank, startOfUtcDay } from '../../src/sandbox/data/bank.js';
import { loggedIn } from '../helpers/bank-login.js';
import { docsPicture } from '../helpers/docs-picture.js';
import { PaymentsTpp, paymentConsentRequest, paymentsIdentity } from '../helpers/payments-client.js';
import { chromium as chromiumPrerequisite, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { redirectParams, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

const SEED = 'payments-browser';
/** The bank the sandbox serves (the same seed): which account an AccountId on the page is. */
const bank = createBank(SEED, startOfUtcDay(new Date()));
let sandbox: TestSandbox;
let browser: Browser;
const tpps: PaymentsTpp[] = [];

async function newTpp(): Promise<PaymentsTpp> {
  const tpp = new PaymentsTpp(sandbox.urls, await paymentsIdentity(), 'strict-interactive');
  tpps.push(tpp);
  await tpp.register({ scope: 'openid accounts payments fundsconfirmations' });
  return tpp;
}

describeWith(chromiumPrerequisite, 'payment and funds-check pages in Chromium', () => {
  beforeAll(async () => {
    sandbox = await startTestSandbox({ apis: ['accounts', 'payments', 'funds'], seed: SEED });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS], headless: true });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(tpps.map((tpp) => tpp.close()));
    await sandbox?.close();
  });

  it('shows the payment, lets the PSU pick the account to pay from, and the consent names it', async () => {
    const tpp = await newTpp();
    const { consentId, token } = await tpp.paymentConsent('4.0', paymentConsentRequest('4.0'));
    const { url, redirectUri } = await tpp.authorizeUrl({ consentId, responseType: 'code id_token', scope: 'openid payments' });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const { done } = await loggedIn(page, url, redirectUri ?? '', 'sam');

    await page.getByRole('heading', { name: 'Confirm this payment' }).waitFor();
    await docsPicture(page, 'sandbox-payment-consent.png');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('12.34 GBP');
    expect(text).toContain('ACME Ltd');
    expect(text).toContain('INV-4711');
    const group = page.getByRole('group', { name: 'Pay from' });
    const radios = group.getByRole('radio');
    expect(await radios.count()).toBe(3);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    const chosen = (await radios.nth(2).getAttribute('value')) ?? '';
    await radios.nth(2).check();
    await page.getByRole('button', { name: 'Confirm' }).click();

    const params = redirectParams(await done);
    const code = params.get('code') ?? '';
    expect(code).not.toBe('');
    expect((await tpp.exchangeCode(code, redirectUri)).status).toBe(200);
    const consent = await tpp.get(`${tpp.pisp('4.0')}/domestic-payment-consents/${consentId}`, token);
    const debtor = consent.json<{ Data: { Status: string; Debtor: { Identification: string } } }>().Data;
    expect(debtor.Status).toBe('AUTH');
    // The account chosen, by its AccountId on the page, is the one the consent now names (its sort code and number).
    const account = bank.accountsOf('psu-sam').find((candidate) => candidate.accountId === chosen);
    expect(debtor.Debtor.Identification).toBe(`${account?.sortCode ?? ''}${account?.accountNumber ?? ''}`);
    await context.close();
  });

  it('a consent naming the debtor shows that account alone, chosen; a funds check shows the account and how long', async () => {
    const tpp = await newTpp();
    const accounts = bank.accountsOf('psu-sam').map((account) => `${account.sortCode}${account.accountNumber}`);
    const named = accounts[2] ?? '';
    const request = paymentConsentRequest('3.1', { DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: named } });
    const { consentId } = await tpp.paymentConsent('3.1', request);
    const built = await tpp.authorizeUrl({ consentId, responseType: 'code id_token', scope: 'openid payments' });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const { done } = await loggedIn(page, built.url, built.redirectUri ?? '', 'sam');
    const radios = page.getByRole('radio');
    await page.getByRole('heading', { name: 'Confirm this payment' }).waitFor();
    expect(await radios.count()).toBe(1);
    expect(await radios.first().isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect(redirectParams(await done).get('code')).toBeTruthy();

    const token = await tpp.clientCredentials('fundsconfirmations');
    const funds = await tpp.post(
      `${tpp.cbpii('4.0')}/funds-confirmation-consents`,
      token,
      { Data: { DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: named, Name: 'Sam' } } },
      { key: null, signature: false },
    );
    const fundsUrl = await tpp.authorizeUrl({
      consentId: funds.json<{ Data: { ConsentId: string } }>().Data.ConsentId,
      responseType: 'code id_token',
      scope: 'openid fundsconfirmations',
    });
    const second = await context.newPage();
    const { done: fundsDone } = await loggedIn(second, fundsUrl.url, fundsUrl.redirectUri ?? '', 'sam');
    await second.getByRole('heading', { name: 'Allow funds checks' }).waitFor();
    const fundsText = (await second.locator('main').textContent()) ?? '';
    expect(fundsText).toContain(named);
    expect(fundsText).toContain('you withdraw it');
    await second.getByRole('button', { name: 'Cancel' }).click();
    expect(redirectParams(await fundsDone).get('error')).toBe('access_denied');
    await context.close();
  });
});
