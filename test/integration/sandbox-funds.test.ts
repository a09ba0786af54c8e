// Confirmation of funds (CBPII) at the emulator, v3.1 and v4.0 over real mutual TLS (docs/sandbox-payments.md): the
// consent naming the PSU's account, its authorisation, funds confirmations by the bank's one funds rule (a payment
// made meanwhile counts), the consent deleted; every answer checked against the official OpenAPI file of its version,
// none signed (neither file marks a CBPII request or answer signed).

import { describe, expect, it } from 'vitest';

import { apiProblems } from '../helpers/obie-payments.js';
import { PaymentsTpp, paymentConsentRequest, VERSIONS } from '../helpers/payments-client.js';
import type { Version } from '../helpers/payments-client.js';
import { BANK_FINANCIAL_ID, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';

const sandbox = useTestSandbox({ apis: ['accounts', 'payments', 'funds'], seed: 'funds-integration' });

type Json = Record<string, unknown>;

function expectAnswer(version: Version, method: string, template: string, status: number, response: WireResponse): void {
  expect(response.status, `${method} ${template}: ${response.text}`).toBe(status);
  expect(apiProblems('cbpii', version, method, template, status, response.text, response.headers)).toEqual([]);
  expect(response.headers['x-jws-signature']).toBeUndefined();
}

/** alex's current account as AIS shows it: its identification and balance in pence (available, not the overdraft). */
async function alexCurrentAccount(tpp: PaymentsTpp): Promise<{ identification: string; availableMinor: number; overdraftMinor: number }> {
  const flow = await tpp.headlessFlow();
  const headers = { 'x-fapi-financial-id': BANK_FINANCIAL_ID };
  const account = (await tpp.get(`${tpp.aisBase()}/accounts`, flow.accessToken, headers))
    .json<{ Data: { Account: { AccountId: string; AccountSubType: string; Account: { Identification: string }[] }[] } }>()
    .Data.Account.find((candidate) => candidate.AccountSubType === 'CurrentAccount');
  const balance = (await tpp.get(`${tpp.aisBase()}/accounts/${account?.AccountId ?? ''}/balances`, flow.accessToken, headers)).json<{
    Data: { Balance: { Amount: { Amount: string }; CreditDebitIndicator: string; CreditLine?: { Amount: { Amount: string } }[] }[] };
  }>().Data.Balance[0];
  const pence = (amount: string | undefined): number => Math.round(Number(amount ?? '0') * 100);
  return {
    identification: account?.Account[0]?.Identification ?? '',
    availableMinor: pence(balance?.Amount.Amount) * (balance?.CreditDebitIndicator === 'Debit' ? -1 : 1),
    overdraftMinor: pence(balance?.CreditLine?.[0]?.Amount.Amount),
  };
}

const pounds = (minor: number): string => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

describe.each(VERSIONS)('confirmation of funds, v%s', (version) => {
  it('consent → authorisation → confirmations at the limit and beyond it → a payment counts → delete', async () => {
    const tpp = await PaymentsTpp.open(sandbox);
    const account = await alexCurrentAccount(tpp);
    const token = await tpp.clientCredentials('fundsconfirmations');
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const created = await tpp.post(
      `${tpp.cbpii(version)}/funds-confirmation-consents`,
      token,
      {
        Data: {
          ExpirationDateTime: expires,
          DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: account.identification, Name: 'Alex' },
        },
      },
      { key: null, signature: false },
    );
    expectAnswer(version, 'POST', '/funds-confirmation-consents', 201, created);
    const consentId = String(created.json<{ Data: Json }>().Data.ConsentId);
    expect(created.json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'AWAU' : 'AwaitingAuthorisation');

    const checker = await tpp.authorised(consentId, 'openid fundsconfirmations');
    const read = await tpp.get(`${tpp.cbpii(version)}/funds-confirmation-consents/${consentId}`, token);
    expectAnswer(version, 'GET', '/funds-confirmation-consents/{ConsentId}', 200, read);
    expect(read.json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'AUTH' : 'Authorised');

    const confirm = (minor: number, currency = 'GBP'): Promise<WireResponse> =>
      tpp.post(
        `${tpp.cbpii(version)}/funds-confirmations`,
        checker,
        { Data: { ConsentId: consentId, Reference: 'Purchase 1', InstructedAmount: { Amount: pounds(minor), Currency: currency } } },
        { key: null, signature: false },
      );
    const limit = account.availableMinor + account.overdraftMinor;
    const atLimit = await confirm(limit);
    expectAnswer(version, 'POST', '/funds-confirmations', 201, atLimit);
    expect(atLimit.json<{ Data: Json }>().Data).toMatchObject({ ConsentId: consentId, FundsAvailable: true, Reference: 'Purchase 1' });
    expect((await confirm(limit + 1)).json<{ Data: Json }>().Data.FundsAvailable).toBe(false);
    // "The CBPII must … specify the ConsentId in the request payload": the one its token was issued for.
    const another = await tpp.post(
      `${tpp.cbpii(version)}/funds-confirmations`,
      checker,
      { Data: { ConsentId: 'fcc-another', Reference: 'Purchase 1', InstructedAmount: { Amount: '1.00', Currency: 'GBP' } } },
      { key: null, signature: false },
    );
    expectAnswer(version, 'POST', '/funds-confirmations', 400, another);
    expect(another.json<{ Errors: Json[] }>().Errors[0]?.Path).toBe('Data.ConsentId');
    // Funds Confirmation v4.0: "ASPSP must reject the request when Amount is in a different currency".
    const euros = await confirm(100, 'EUR');
    expectAnswer(version, 'POST', '/funds-confirmations', 400, euros);

    // A payment from the same account counts at once (the balance overlay).
    const request = paymentConsentRequest(version, { InstructedAmount: { Amount: '1.00', Currency: 'GBP' } });
    const { consentId: paymentConsent } = await tpp.paymentConsent(version, request);
    const payer = await tpp.authorised(paymentConsent, 'openid payments');
    expect((await tpp.post(`${tpp.pisp(version)}/domestic-payments`, payer, tpp.paymentRequest(paymentConsent, request))).status).toBe(201);
    expect((await confirm(limit)).json<{ Data: Json }>().Data.FundsAvailable).toBe(false);
    expect((await confirm(limit - 100)).json<{ Data: Json }>().Data.FundsAvailable).toBe(true);

    const deleted = await tpp.fetch('DELETE', `${tpp.cbpii(version)}/funds-confirmation-consents/${consentId}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    expectAnswer(version, 'DELETE', '/funds-confirmation-consents/{ConsentId}', 204, deleted);
    const gone = await tpp.get(`${tpp.cbpii(version)}/funds-confirmation-consents/${consentId}`, token);
    expectAnswer(version, 'GET', '/funds-confirmation-consents/{ConsentId}', 400, gone);
    const after = await confirm(100);
    expect(after.status).toBe(version === '4.0' ? 400 : 403);
    expectAnswer(version, 'POST', '/funds-confirmations', after.status, after);
  });

  it('a consent naming an account the PSU does not hold is rejected at the authorisation; an expiry in the past is refused', async () => {
    const tpp = await PaymentsTpp.open(sandbox);
    const token = await tpp.clientCredentials('fundsconfirmations');
    const url = `${tpp.cbpii(version)}/funds-confirmation-consents`;
    const foreign = await tpp.post(
      url,
      token,
      { Data: { DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '10000109010102', Name: 'Mitsuhirato' } } },
      { key: null, signature: false },
    );
    const consentId = String(foreign.json<{ Data: Json }>().Data.ConsentId);
    const refused = await tpp.authorize({ consentId, scope: 'openid fundsconfirmations' });
    expect(refused.params.get('error')).toBe('access_denied');
    expect((await tpp.get(`${url}/${consentId}`, token)).json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'RJCT' : 'Rejected');
    const past = await tpp.post(
      url,
      token,
      {
        Data: {
          ExpirationDateTime: '2025-05-02T00:00:00+00:00',
          DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '10000109010102' },
        },
      },
      { key: null, signature: false },
    );
    expectAnswer(version, 'POST', '/funds-confirmation-consents', 400, past);
    expect(past.json<{ Errors: Json[] }>().Errors[0]?.Path).toBe('Data.ExpirationDateTime');
  });
});
