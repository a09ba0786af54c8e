// The rules of the payments family over real mutual TLS (docs/sandbox-payments.md), each answer checked against the
// official OpenAPI file of its version: message signing (every fault refused with the version's code), idempotency
// (replay, another body, 50 POSTs at once making one payment), a payment that does not match its consent, one without
// the funds, the debtor a consent names, the scope a token needs, another client's or version's resources, the
// endpoints this bank does not implement, and the family not served at all.

import { randomUUID } from 'node:crypto';

import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';

import { ibanOf } from '../../src/sandbox/data/identification.js';
import { apiProblems } from '../helpers/obie-payments.js';
import {
  detachedSignature,
  OB_CRIT,
  OB_IAT,
  OB_ISS,
  PaymentsTpp,
  paymentConsentRequest,
  paymentsIdentity,
  VERSIONS,
} from '../helpers/payments-client.js';
import type { Version } from '../helpers/payments-client.js';
import { startTestSandbox, useTestSandbox, wire } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';

const sandbox = useTestSandbox({ apis: ['accounts', 'payments', 'funds'], seed: 'payments-rules' });

type Json = Record<string, unknown>;

/** The v3.1 name of a code, or its v4.0 code (refusals.ts, v4-codes.ts). */
const CODE: Readonly<Record<string, Record<Version, string>>> = {
  missing: { '3.1': 'UK.OBIE.Signature.Missing', '4.0': 'U019' },
  malformed: { '3.1': 'UK.OBIE.Signature.Malformed', '4.0': 'U018' },
  missingClaim: { '3.1': 'UK.OBIE.Signature.MissingClaim', '4.0': 'U017' },
  invalidClaim: { '3.1': 'UK.OBIE.Signature.InvalidClaim', '4.0': 'U016' },
  invalid: { '3.1': 'UK.OBIE.Signature.Invalid', '4.0': 'U015' },
  headerInvalid: { '3.1': 'UK.OBIE.Header.Invalid', '4.0': 'U006' },
  headerMissing: { '3.1': 'UK.OBIE.Header.Missing', '4.0': 'U007' },
  mismatch: { '3.1': 'UK.OBIE.Resource.ConsentMismatch', '4.0': 'U008' },
  consentStatus: { '3.1': 'UK.OBIE.Resource.InvalidConsentStatus', '4.0': 'U009' },
  notFound: { '3.1': 'UK.OBIE.Resource.NotFound', '4.0': 'U011' },
};

function refusedWith(version: Version, response: WireResponse, status: number, code: string, template: string, method = 'POST'): void {
  expect(response.status, response.text).toBe(status);
  expect(apiProblems('pisp', version, method, template, status, response.text, response.headers)).toEqual([]);
  expect(response.json<{ Errors: Json[] }>().Errors[0]?.ErrorCode, response.text).toBe(code);
}

describe.each(VERSIONS)('v%s', (version) => {
  describe('message signing: every fault of the request signature is refused, 400, with the version’s code', () => {
    const consents = `/domestic-payment-consents`;
    it.each([
      ['no x-jws-signature', { signature: false as const }, 'missing', 'x-jws-signature'],
      ['a JWS with its payload attached', { rawSignature: 'abc.def.ghi' }, 'malformed', 'x-jws-signature'],
      ['a kid of no key of the statement', { signature: { kid: 'not-our-key' } }, 'invalidClaim', 'kid'],
      ['b64 in the header', { signature: { b64: false } }, 'invalidClaim', 'b64'],
      ['no crit', { signature: { crit: undefined } }, 'missingClaim', 'crit'],
      ['crit without tan', { signature: { crit: OB_CRIT.slice(0, 2) } }, 'invalidClaim', 'crit'],
      ['crit with an extra claim', { signature: { crit: [...OB_CRIT, 'exp'] } }, 'invalidClaim', 'crit'],
      ['another iss', { signature: { [OB_ISS]: '0015800001041RHAAY/another-software' } }, 'invalidClaim', OB_ISS],
      ['an iat in the future', { signature: { [OB_IAT]: Math.floor(Date.now() / 1000) + 3600 } }, 'invalidClaim', OB_IAT],
      [
        'a changed body',
        { signedText: JSON.stringify(paymentConsentRequest(version, { EndToEndIdentification: 'other' })) },
        'invalid',
        'x-jws-signature',
      ],
    ])('%s', async (_case, options, code, path) => {
      const tpp = await PaymentsTpp.open(sandbox);
      const response = await tpp.post(
        `${tpp.pisp(version)}${consents}`,
        await tpp.clientCredentials('payments'),
        paymentConsentRequest(version),
        options,
      );
      refusedWith(version, response, 400, CODE[code]?.[version] ?? code, consents);
      expect(response.json<{ Errors: Json[] }>().Errors[0]?.Path).toBe(path);
    });

    it("a signature under the statement's kid made with another key (another statement's) does not verify", async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const body = JSON.stringify(paymentConsentRequest(version));
      const response = await tpp.post(`${tpp.pisp(version)}${consents}`, await tpp.clientCredentials('payments'), body, {
        rawSignature: detachedSignature(body, tpp.identity, {}, { key: sandbox.identity.pem.signingKey }),
      });
      refusedWith(version, response, 400, CODE.invalid?.[version] ?? '', consents);
    });
  });

  describe('idempotency', () => {
    it('the same key and body answers the consent made first (201); another body is refused and changes nothing', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const token = await tpp.clientCredentials('payments');
      const key = randomUUID();
      const request = paymentConsentRequest(version);
      const url = `${tpp.pisp(version)}/domestic-payment-consents`;
      const first = await tpp.post(url, token, request, { key });
      const again = await tpp.post(url, token, JSON.stringify(request, null, 2), { key });
      expect(again.status).toBe(201);
      expect(apiProblems('pisp', version, 'POST', '/domestic-payment-consents', 201, again.text, again.headers)).toEqual([]);
      expect(again.json<{ Data: Json }>().Data.ConsentId).toBe(first.json<{ Data: Json }>().Data.ConsentId);
      // OB R/W Data API Profile v4.0 "Idempotency"; the consent POST documents no 409 in either file (refusals.ts).
      const changed = await tpp.post(url, token, paymentConsentRequest(version, { EndToEndIdentification: 'changed' }), { key });
      refusedWith(version, changed, 400, CODE.headerInvalid?.[version] ?? '', '/domestic-payment-consents');
      // Another client may use the same key.
      const other = await PaymentsTpp.open(sandbox);
      const theirs = await other.post(url, await other.clientCredentials('payments'), request, { key });
      expect(theirs.status).toBe(201);
      expect(theirs.json<{ Data: Json }>().Data.ConsentId).not.toBe(first.json<{ Data: Json }>().Data.ConsentId);
    });

    it('a key over 40 characters, or none, is refused 400 (a strict profile)', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const token = await tpp.clientCredentials('payments');
      const url = `${tpp.pisp(version)}/domestic-payment-consents`;
      refusedWith(
        version,
        await tpp.post(url, token, paymentConsentRequest(version), { key: 'k'.repeat(41) }),
        400,
        CODE.headerInvalid?.[version] ?? '',
        '/domestic-payment-consents',
      );
      refusedWith(
        version,
        await tpp.post(url, token, paymentConsentRequest(version), { key: null }),
        400,
        CODE.headerMissing?.[version] ?? '',
        '/domestic-payment-consents',
      );
    });

    it('a payment replayed answers the payment made first, as it is now; another body with its key is refused', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const request = paymentConsentRequest(version);
      const { consentId } = await tpp.paymentConsent(version, request);
      const payer = await tpp.authorised(consentId, 'openid payments');
      const url = `${tpp.pisp(version)}/domestic-payments`;
      const key = randomUUID();
      const made = await tpp.post(url, payer, tpp.paymentRequest(consentId, request), { key });
      expect(made.status, made.text).toBe(201);
      const replayed = await tpp.post(url, payer, tpp.paymentRequest(consentId, request), { key });
      expect(replayed.status).toBe(201);
      expect(apiProblems('pisp', version, 'POST', '/domestic-payments', 201, replayed.text, replayed.headers)).toEqual([]);
      expect(replayed.json<{ Data: Json }>().Data.DomesticPaymentId).toBe(made.json<{ Data: Json }>().Data.DomesticPaymentId);
      // The current status: settled (the POST answered the status it was created in).
      expect(replayed.json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'ACSC' : 'AcceptedSettlementCompleted');
      const changed = await tpp.post(
        url,
        payer,
        { ...tpp.paymentRequest(consentId, request), Risk: { PaymentContextCode: 'TransferToSelf' } },
        { key },
      );
      // v4.0 adds 409 (U029, ResourceAlreadyExists) to POST /domestic-payments; v3.1.11 has no 409: 400.
      if (version === '4.0') refusedWith(version, changed, 409, 'U029', '/domestic-payments');
      else refusedWith(version, changed, 400, 'UK.OBIE.Header.Invalid', '/domestic-payments');
    });

    it('50 POSTs at once with one key make exactly one payment, and every one answers it', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const request = paymentConsentRequest(version, { InstructedAmount: { Amount: '1.01', Currency: 'GBP' } });
      const { consentId, token } = await tpp.paymentConsent(version, request);
      const payer = await tpp.authorised(consentId, 'openid payments');
      const key = randomUUID();
      const body = JSON.stringify(tpp.paymentRequest(consentId, request));
      const signature = detachedSignature(body, tpp.identity);
      // Many connections, so the requests really arrive together (not one keep-alive connection in turn).
      const agent = new Agent({
        connections: 50,
        connect: {
          ca: [tpp.identity.pem.rootCa, tpp.identity.pem.issuingCa],
          cert: tpp.identity.pem.transportCert,
          key: tpp.identity.pem.transportKey,
        },
      });
      try {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () =>
            wire(agent, 'POST', `${tpp.pisp(version)}/domestic-payments`, {
              headers: {
                authorization: `Bearer ${payer}`,
                'content-type': 'application/json',
                accept: 'application/json',
                'x-idempotency-key': key,
                'x-jws-signature': signature,
              },
              body,
            }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 50 }, () => 201));
        const ids = new Set(answers.map((answer) => answer.json<{ Data: Json }>().Data.DomesticPaymentId));
        expect(ids.size).toBe(1);
      } finally {
        await agent.close();
      }
      const consent = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}`, token);
      expect(consent.json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'COND' : 'Consumed');
    }, 60_000);
  });

  describe('a payment and its consent', () => {
    it('a payment whose Initiation, Risk or ConsentId differs from the consent is refused (ConsentMismatch, the path)', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const request = paymentConsentRequest(version);
      const { consentId, token } = await tpp.paymentConsent(version, request);
      const payer = await tpp.authorised(consentId, 'openid payments');
      const url = `${tpp.pisp(version)}/domestic-payments`;
      const base = tpp.paymentRequest(consentId, request) as { Data: { Initiation: Json } };
      const more = {
        ...base,
        Data: { ...base.Data, Initiation: { ...base.Data.Initiation, InstructedAmount: { Amount: '99.99', Currency: 'GBP' } } },
      };
      const amount = await tpp.post(url, payer, more);
      refusedWith(version, amount, 400, CODE.mismatch?.[version] ?? '', '/domestic-payments');
      expect(amount.json<{ Errors: Json[] }>().Errors[0]?.Path).toBe('Data.Initiation.InstructedAmount.Amount');
      const risk = await tpp.post(url, payer, { ...base, Risk: { PaymentContextCode: 'TransferToSelf' } });
      expect(risk.json<{ Errors: Json[] }>().Errors[0]).toMatchObject({
        ErrorCode: CODE.mismatch?.[version],
        Path: 'Risk.PaymentContextCode',
      });
      const other = await tpp.post(url, payer, { ...base, Data: { ...base.Data, ConsentId: 'pdc-another' } });
      expect(other.json<{ Errors: Json[] }>().Errors[0]).toMatchObject({ ErrorCode: CODE.mismatch?.[version], Path: 'Data.ConsentId' });
      // Nothing was paid: the consent is still Authorised.
      expect((await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}`, token)).json<{ Data: Json }>().Data.Status).toBe(
        version === '4.0' ? 'AUTH' : 'Authorised',
      );
    });

    it('without the funds: funds-confirmation false, and the payment is made rejected (no debit)', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const request = paymentConsentRequest(version, { InstructedAmount: { Amount: '9999999.00', Currency: 'GBP' } });
      const { consentId } = await tpp.paymentConsent(version, request);
      const payer = await tpp.authorised(consentId, 'openid payments');
      const funds = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${consentId}/funds-confirmation`, payer);
      expect(funds.json<{ Data: { FundsAvailableResult: Json } }>().Data.FundsAvailableResult.FundsAvailable).toBe(false);
      const payment = await tpp.post(`${tpp.pisp(version)}/domestic-payments`, payer, tpp.paymentRequest(consentId, request));
      expect(apiProblems('pisp', version, 'POST', '/domestic-payments', 201, payment.text, payment.headers)).toEqual([]);
      const data = payment.json<{ Data: Json }>().Data;
      if (version === '4.0') expect(data).toMatchObject({ Status: 'RJCT', StatusReason: [{ StatusReasonCode: 'AM04' }] });
      else expect(data.Status).toBe('Rejected');
      const details = await tpp.get(
        `${tpp.pisp(version)}/domestic-payments/${String(data.DomesticPaymentId)}/payment-details`,
        await tpp.clientCredentials('payments'),
      );
      expect(
        apiProblems('pisp', version, 'GET', '/domestic-payments/{DomesticPaymentId}/payment-details', 200, details.text, details.headers),
      ).toEqual([]);
    });

    it('funds-confirmation needs an Authorised consent and a token issued for it', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const first = await tpp.paymentConsent(version);
      const payer = await tpp.authorised(first.consentId, 'openid payments');
      const second = await tpp.paymentConsent(version);
      const other = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${second.consentId}/funds-confirmation`, payer);
      expect(other.status).toBe(403);
      expect(
        apiProblems('pisp', version, 'GET', '/domestic-payment-consents/{ConsentId}/funds-confirmation', 403, other.text, other.headers),
      ).toEqual([]);
    });

    it('the consent names the debtor account: the PSU’s own (sort code or IBAN) is the one debited; another’s is rejected', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const ais = await tpp.headlessFlow();
      const accounts = (await tpp.get(`${tpp.aisBase()}/accounts`, ais.accessToken, { 'x-fapi-financial-id': '0015800001041RHAAY' }))
        .json<{ Data: { Account: { Account: { Identification: string }[] }[] } }>()
        .Data.Account.map((account) => account.Account[0]?.Identification ?? '');
      const savings = accounts[1] ?? '';
      const iban = ibanOf({ sortCode: savings.slice(0, 6), accountNumber: savings.slice(6) });
      const named = await tpp.paymentConsent(
        version,
        paymentConsentRequest(version, { DebtorAccount: { SchemeName: 'UK.OBIE.IBAN', Identification: iban } }),
      );
      await tpp.authorised(named.consentId, 'openid payments');
      const read = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${named.consentId}`, named.token);
      expect(read.json<{ Data: { Debtor: Json } }>().Data.Debtor).toMatchObject({ Identification: savings });

      const foreign = await tpp.paymentConsent(
        version,
        paymentConsentRequest(version, {
          DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '99999912345678' },
        }),
      );
      const refused = await tpp.authorize({ consentId: foreign.consentId, scope: 'openid payments' });
      expect(refused.params.get('error')).toBe('access_denied');
      const rejected = await tpp.get(`${tpp.pisp(version)}/domestic-payment-consents/${foreign.consentId}`, foreign.token);
      expect(rejected.json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'RJCT' : 'Rejected');
    });
  });

  describe('who may see what', () => {
    it('a token without the payments scope is refused 403; an account-access consent is not authorised with payments, nor a payment consent with accounts', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const accounts = await tpp.clientCredentials('accounts');
      const response = await tpp.post(`${tpp.pisp(version)}/domestic-payment-consents`, accounts, paymentConsentRequest(version));
      expect(response.status).toBe(403);
      expect(apiProblems('pisp', version, 'POST', '/domestic-payment-consents', 403, response.text, response.headers)).toEqual([]);
      const { consentId } = await tpp.paymentConsent(version);
      const wrongScope = await tpp.authorize({ consentId, scope: 'openid accounts' });
      expect(wrongScope.params.get('error')).toBe('invalid_scope');
      const aisConsent = await tpp.createConsent();
      expect((await tpp.authorize({ consentId: aisConsent, scope: 'openid payments' })).params.get('error')).toBe('invalid_scope');
    });

    it('an operation refuses a token of the other grant (401, no body)', async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const request = paymentConsentRequest(version);
      const { consentId, token } = await tpp.paymentConsent(version, request);
      const refused = await tpp.post(`${tpp.pisp(version)}/domestic-payments`, token, tpp.paymentRequest(consentId, request));
      expect(refused.status).toBe(401);
      expect(refused.text).toBe('');
      expect(refused.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    });

    it("another client's consent and payment, and the other version's, do not exist (400 NotFound)", async () => {
      const tpp = await PaymentsTpp.open(sandbox);
      const request = paymentConsentRequest(version);
      const { consentId } = await tpp.paymentConsent(version, request);
      const payer = await tpp.authorised(consentId, 'openid payments');
      const paymentId = String(
        (await tpp.post(`${tpp.pisp(version)}/domestic-payments`, payer, tpp.paymentRequest(consentId, request))).json<{ Data: Json }>()
          .Data.DomesticPaymentId,
      );
      const other = await PaymentsTpp.open(sandbox);
      const theirs = await other.clientCredentials('payments');
      refusedWith(
        version,
        await other.get(`${other.pisp(version)}/domestic-payment-consents/${consentId}`, theirs),
        400,
        CODE.notFound?.[version] ?? '',
        '/domestic-payment-consents/{ConsentId}',
        'GET',
      );
      refusedWith(
        version,
        await other.get(`${other.pisp(version)}/domestic-payments/${paymentId}`, theirs),
        400,
        CODE.notFound?.[version] ?? '',
        '/domestic-payments/{DomesticPaymentId}',
        'GET',
      );
      const elsewhere: Version = version === '3.1' ? '4.0' : '3.1';
      const mine = await tpp.clientCredentials('payments');
      refusedWith(
        elsewhere,
        await tpp.get(`${tpp.pisp(elsewhere)}/domestic-payment-consents/${consentId}`, mine),
        400,
        CODE.notFound?.[elsewhere] ?? '',
        '/domestic-payment-consents/{ConsentId}',
        'GET',
      );
    });
  });

  it('every other path of the Payment Initiation API answers 404 without a body, before authentication', async () => {
    const tpp = await PaymentsTpp.open(sandbox);
    for (const path of [
      '/international-payments',
      '/domestic-scheduled-payments/x',
      '/file-payment-consents/x/file',
      '/domestic-standing-orders',
    ]) {
      const response = await tpp.fetch('GET', `${tpp.pisp(version)}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.text).toBe('');
    }
  });
});

describe('the bank publishes its message-signing key', () => {
  it('in every issuer’s JWKS beside the ID-token key (kid, use sig) while payments are served, and keeps it across a restart', async () => {
    const tpp = await PaymentsTpp.open(sandbox);
    const jwks = await tpp.jwks();
    expect(jwks.keys).toHaveLength(2);
    for (const key of jwks.keys) expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'PS256', kid: expect.any(String) });
    expect(jwks.keys[0]?.kid).not.toBe(jwks.keys[1]?.kid);
  });

  it('only while an API that signs is served: the accounts-only bank publishes the ID-token key alone, and keeps paths of payments 404', async () => {
    const plain = await startTestSandbox();
    const identity = await paymentsIdentity();
    const tpp = new PaymentsTpp(plain.urls, identity);
    try {
      await tpp.register({ scope: 'openid accounts payments' });
      expect((await tpp.jwks()).keys).toHaveLength(1);
      const response = await tpp.post(
        `${tpp.pisp('4.0')}/domestic-payment-consents`,
        await tpp.clientCredentials('payments'),
        paymentConsentRequest('4.0'),
      );
      expect(response.status).toBe(404);
      expect(response.text).toBe('');
    } finally {
      await tpp.close();
      await plain.close();
    }
  });
});
