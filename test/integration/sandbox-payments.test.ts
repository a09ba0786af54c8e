// Domestic payments at the emulator (docs/sandbox-payments.md), v3.1 and v4.0 over real mutual TLS: consent, the PSU's
// authorisation, funds confirmation, payment, its reads, the consent used up, and the debit AIS shows. Every answer is
// checked against the official OpenAPI file of its version (tests/helpers/obie-payments.ts), and every signed answer's
// x-jws-signature with Node's crypto against the key the issuer's JWKS publishes.

import { describe, expect, it } from 'vitest';

import { apiProblems } from '../helpers/obie-payments.js';
import { PaymentsTpp, paymentConsentRequest, VERSIONS, verifyBankSignature } from '../helpers/payments-client.js';
import type { Version } from '../helpers/payments-client.js';
import { BANK_FINANCIAL_ID, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';

const sandbox = useTestSandbox({ apis: ['accounts', 'payments', 'funds'], seed: 'payments-integration' });

type Json = Record<string, unknown>;

/** The answer is the file's for (method, template, status), and where signed, signed by the bank. */
async function expectAnswer(
  tpp: PaymentsTpp,
  version: Version,
  method: string,
  template: string,
  status: number,
  response: WireResponse,
): Promise<void> {
  expect(response.status, `${method} ${template}: ${response.text}`).toBe(status);
  expect(apiProblems('pisp', version, method, template, status, response.text, response.headers)).toEqual([]);
  if (response.text !== '') {
    const header = verifyBankSignature(response.headers['x-jws-signature'] as string | undefined, response.text, await tpp.jwks());
    expect(header).toMatchObject({
      alg: 'PS256',
      'http://openbanking.org.uk/iss': BANK_FINANCIAL_ID,
      'http://openbanking.org.uk/tan': 'openbanking.org.uk',
      crit: ['http://openbanking.org.uk/iat', 'http://openbanking.org.uk/iss', 'http://openbanking.org.uk/tan'],
    });
    expect(header).not.toHaveProperty('b64');
  }
}

const WORDS = {
  '3.1': {
    awaiting: 'AwaitingAuthorisation',
    authorised: 'Authorised',
    consumed: 'Consumed',
    received: 'AcceptedSettlementInProcess',
    settled: 'AcceptedSettlementCompleted',
    consentStatus: 'UK.OBIE.Resource.InvalidConsentStatus',
  },
  '4.0': { awaiting: 'AWAU', authorised: 'AUTH', consumed: 'COND', received: 'RCVD', settled: 'ACSC', consentStatus: 'U009' },
} as const;

describe.each(VERSIONS)('domestic payments, v%s', (version) => {
  it('consent → authorisation → funds → payment → reads; the consent is used up and the debit shows in AIS', async () => {
    const tpp = await PaymentsTpp.open(sandbox);
    const words = WORDS[version];
    const request = paymentConsentRequest(version);
    const token = await tpp.clientCredentials('payments');
    const created = await tpp.post(`${tpp.pisp(version)}/domestic-payment-consents`, token, request);
    await expectAnswer(tpp, version, 'POST', '/domestic-payment-consents', 201, created);
    const consent = created.json<{ Data: Json }>().Data;
    expect(consent.Status).toBe(words.awaiting);
    expect(consent.Initiation).toEqual((request.Data as Json).Initiation);
    const consentId = String(consent.ConsentId);

    const read = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}`, token);
    await expectAnswer(tpp, version, 'GET', '/domestic-payment-consents/{ConsentId}', 200, read);

    const payer = await tpp.authorised(consentId, 'openid payments');
    const authorised = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}`, token);
    expect(authorised.json<{ Data: Json }>().Data).toMatchObject({
      Status: words.authorised,
      Debtor: { SchemeName: 'UK.OBIE.SortCodeAccountNumber' },
    });

    const funds = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}/funds-confirmation`, payer);
    await expectAnswer(tpp, version, 'GET', '/domestic-payment-consents/{ConsentId}/funds-confirmation', 200, funds);
    expect(funds.json<{ Data: { FundsAvailableResult: Json } }>().Data.FundsAvailableResult.FundsAvailable).toBe(true);

    // AIS before: alex's first current account (the headless default debtor).
    const ais = await tpp.headlessFlow();
    const balances = async (): Promise<number> => {
      const response = await tpp.get(`${tpp.aisBase()}/balances`, ais.accessToken, { 'x-fapi-financial-id': BANK_FINANCIAL_ID });
      const debtor = String(authorised.json<{ Data: { Debtor: Json } }>().Data.Debtor.Identification);
      const accounts = await tpp.get(`${tpp.aisBase()}/accounts`, ais.accessToken, { 'x-fapi-financial-id': BANK_FINANCIAL_ID });
      const account = accounts
        .json<{ Data: { Account: { AccountId: string; Account?: { Identification: string }[] }[] } }>()
        .Data.Account.find((candidate) => candidate.Account?.[0]?.Identification === debtor);
      const balance = response
        .json<{ Data: { Balance: { AccountId: string; Amount: { Amount: string }; CreditDebitIndicator: string }[] } }>()
        .Data.Balance.find((entry) => entry.AccountId === account?.AccountId);
      if (!balance) throw new Error('no balance for the debtor account');
      return Math.round(Number(balance.Amount.Amount) * 100) * (balance.CreditDebitIndicator === 'Debit' ? -1 : 1);
    };
    const before = await balances();

    const payment = await tpp.post(`${tpp.pisp(version)}/domestic-payments`, payer, tpp.paymentRequest(consentId, request));
    await expectAnswer(tpp, version, 'POST', '/domestic-payments', 201, payment);
    const made = payment.json<{ Data: Json }>().Data;
    expect(made).toMatchObject({ ConsentId: consentId, Status: words.received, Initiation: (request.Data as Json).Initiation });
    const paymentId = String(made.DomesticPaymentId);

    const got = await tpp.get(`${tpp.pisp(version)}/domestic-payments/${paymentId}`, token);
    await expectAnswer(tpp, version, 'GET', '/domestic-payments/{DomesticPaymentId}', 200, got);
    expect(got.json<{ Data: Json }>().Data.Status).toBe(words.settled);
    const details = await tpp.get(`${tpp.pisp(version)}/domestic-payments/${paymentId}/payment-details`, token);
    await expectAnswer(tpp, version, 'GET', '/domestic-payments/{DomesticPaymentId}/payment-details', 200, details);

    const used = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}`, token);
    expect(used.json<{ Data: Json }>().Data.Status).toBe(words.consumed);

    // A consumed consent refuses a second payment (another key: not a replay).
    const again = await tpp.post(`${tpp.pisp(version)}/domestic-payments`, payer, tpp.paymentRequest(consentId, request));
    await expectAnswer(tpp, version, 'POST', '/domestic-payments', 400, again);
    expect(again.json<{ Errors: Json[] }>().Errors[0]?.ErrorCode).toBe(words.consentStatus);

    // The debit: the balance moved by the amount, and the transaction reads with the payment's id.
    expect(before - (await balances())).toBe(1234);
    const debtorAccount = (await tpp.get(`${tpp.aisBase()}/accounts`, ais.accessToken, { 'x-fapi-financial-id': BANK_FINANCIAL_ID }))
      .json<{ Data: { Account: { AccountId: string; Account?: { Identification: string }[] }[] } }>()
      .Data.Account.find(
        (candidate) =>
          candidate.Account?.[0]?.Identification === (authorised.json<{ Data: { Debtor: Json } }>().Data.Debtor.Identification as string),
      );
    const transactions = await tpp.get(`${tpp.aisBase()}/accounts/${debtorAccount?.AccountId ?? ''}/transactions`, ais.accessToken, {
      'x-fapi-financial-id': BANK_FINANCIAL_ID,
    });
    const entry = transactions.json<{ Data: { Transaction: Json[] } }>().Data.Transaction[0];
    expect(entry).toMatchObject({ TransactionId: paymentId, CreditDebitIndicator: 'Debit', Amount: { Amount: '12.34', Currency: 'GBP' } });
  });
});
