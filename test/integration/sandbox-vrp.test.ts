// Domestic variable recurring payments at the emulator (docs/sandbox-vrp.md), v3.1.11 and v4.0 (with a commercial
// cVRP mandate) over real mutual TLS: the consent, the PSU's authorisation, funds confirmation, payments and their
// reads, the debits AIS shows, the TPP's DELETE; and the refusals of a payment that does not match its consent. Every
// answer is checked against the official OpenAPI file of its version (a cVRP consent's against obl-cvrp-v4.0.yaml) and
// every signed answer's x-jws-signature with Node's crypto against the key the issuer's JWKS publishes.

import { describe, expect, it } from 'vitest';

import { apiProblems } from '../helpers/obie-payments.js';
import type { PaymentApi } from '../helpers/obie-payments.js';
import { VERSIONS, verifyBankSignature } from '../helpers/payments-client.js';
import type { Version } from '../helpers/payments-client.js';
import { BANK_FINANCIAL_ID, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';
import { CREDITOR, VrpTpp, vrpConsentRequest } from '../helpers/vrp-client.js';

const sandbox = useTestSandbox({ apis: ['accounts', 'payments', 'vrp'], seed: 'vrp-integration' });

type Json = Record<string, unknown>;

/** The answer is the file's for (method, template, status), and where it has a body, signed by the bank. */
async function expectAnswer(
  tpp: VrpTpp,
  version: Version,
  method: string,
  template: string,
  status: number,
  response: WireResponse,
  api: PaymentApi = 'vrp',
): Promise<void> {
  expect(response.status, `${method} ${template}: ${response.text}`).toBe(status);
  expect(apiProblems(api, version, method, template, status, response.text, response.headers)).toEqual([]);
  if (response.text !== '')
    expect(verifyBankSignature(response.headers['x-jws-signature'] as string | undefined, response.text, await tpp.jwks())).toMatchObject({
      alg: 'PS256',
      'http://openbanking.org.uk/iss': BANK_FINANCIAL_ID,
    });
}

/** The error codes of a refusal (its Errors' ErrorCode and Path). */
function errorsOf(response: WireResponse): string[] {
  return response
    .json<{ Errors: { ErrorCode: string; Path?: string }[] }>()
    .Errors.map((error) => `${error.ErrorCode} ${error.Path ?? ''}`.trim());
}

const WORDS = {
  '3.1': {
    awaiting: 'AwaitingAuthorisation',
    authorised: 'Authorised',
    received: 'AcceptedSettlementInProcess',
    settled: 'AcceptedSettlementCompleted',
    consentStatus: 'UK.OBIE.Resource.InvalidConsentStatus',
    mismatch: 'UK.OBIE.Resource.ConsentMismatch',
    limits: 'UK.OBIE.Rules.FailsControlParameters',
    notFound: 'UK.OBIE.Resource.NotFound',
    exists: 'UK.OBIE.Rules.ResourceAlreadyExists',
  },
  '4.0': {
    awaiting: 'AWAU',
    authorised: 'AUTH',
    received: 'RCVD',
    settled: 'ACSC',
    consentStatus: 'U009',
    mismatch: 'U008',
    limits: 'U014',
    notFound: 'U011',
    exists: 'U029',
  },
} as const;

describe.each(VERSIONS)('domestic VRP, v%s', (version) => {
  const words = WORDS[version];

  it('consent → authorisation → funds → payments → reads → DELETE; the debits show in AIS; the consent stays AUTH', async () => {
    const tpp = await VrpTpp.openVrp(sandbox);
    const request = vrpConsentRequest(version);
    const token = await tpp.clientCredentials('payments');
    const created = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents`, token, request);
    await expectAnswer(tpp, version, 'POST', '/domestic-vrp-consents', 201, created);
    const consent = created.json<{ Data: Json }>().Data;
    // "contains the full original payload": ControlParameters and Initiation as sent.
    expect(consent).toMatchObject({ Status: words.awaiting, ...(request.Data as Json) });
    const consentId = String(consent.ConsentId);
    expect(consentId).toMatch(/^vrc-/);

    const payer = await tpp.authorised(consentId, 'openid payments');
    const authorised = await tpp.get(`${tpp.pisp(version)}/domestic-vrp-consents/${consentId}`, token);
    await expectAnswer(tpp, version, 'GET', '/domestic-vrp-consents/{ConsentId}', 200, authorised);
    const debtor = authorised.json<{ Data: { Status: string; DebtorAccount: Json } }>().Data;
    expect(debtor).toMatchObject({ Status: words.authorised, DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber' } });

    const fundsBody = { Data: { ConsentId: consentId, Reference: 'CHECK-1', InstructedAmount: { Amount: '25.00', Currency: 'GBP' } } };
    const funds = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents/${consentId}/funds-confirmation`, payer, fundsBody, {
      key: null,
    });
    await expectAnswer(tpp, version, 'POST', '/domestic-vrp-consents/{ConsentId}/funds-confirmation', 201, funds);
    expect(funds.json<{ Data: Json }>().Data).toMatchObject({
      ConsentId: consentId,
      Reference: 'CHECK-1',
      FundsAvailableResult: { FundsAvailable: 'Available' },
      InstructedAmount: fundsBody.Data.InstructedAmount,
    });
    // Far beyond the account and its overdraft: NotAvailable (funds, not the mandate, are checked here).
    const rich = { Data: { ...fundsBody.Data, InstructedAmount: { Amount: '99999999.00', Currency: 'GBP' } } };
    const poor = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents/${consentId}/funds-confirmation`, payer, rich, { key: null });
    expect(poor.json<{ Data: { FundsAvailableResult: Json } }>().Data.FundsAvailableResult.FundsAvailable).toBe('NotAvailable');

    const made: string[] = [];
    for (const amount of ['20.00', '30.00']) {
      const paid = await tpp.pay(version, payer, tpp.vrpPayment(consentId, request, amount));
      await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 201, paid);
      const data = paid.json<{ Data: Json }>().Data;
      expect(data).toMatchObject({ ConsentId: consentId, Status: words.received, DebtorAccount: debtor.DebtorAccount });
      made.push(String(data.DomesticVRPId));
    }
    const [first = ''] = made;
    expect(first).toMatch(/^vrp-/);
    const read = await tpp.get(`${tpp.pisp(version)}/domestic-vrps/${first}`, token);
    await expectAnswer(tpp, version, 'GET', '/domestic-vrps/{DomesticVRPId}', 200, read);
    expect(read.json<{ Data: Json }>().Data).toMatchObject({ DomesticVRPId: first, Status: words.settled });
    const details = await tpp.get(`${tpp.pisp(version)}/domestic-vrps/${first}/payment-details`, token);
    await expectAnswer(tpp, version, 'GET', '/domestic-vrps/{DomesticVRPId}/payment-details', 200, details);
    expect(details.json<{ Data: { PaymentStatus: Json[] } }>().Data.PaymentStatus).toEqual([
      expect.objectContaining({ PaymentTransactionId: first, Status: words.settled }),
    ]);

    // VRP consents are long-lived: no COND after a payment.
    const after = await tpp.get(`${tpp.pisp(version)}/domestic-vrp-consents/${consentId}`, token);
    expect(after.json<{ Data: Json }>().Data.Status).toBe(words.authorised);

    // The debits in AIS: each payment a Booked debit with its id, paid to the creditor, the balance moved by 50.00.
    const ais = await tpp.headlessFlow();
    const headers = { 'x-fapi-financial-id': BANK_FINANCIAL_ID };
    const accounts = (await tpp.get(`${tpp.aisBase()}/accounts`, ais.accessToken, headers)).json<{
      Data: { Account: { AccountId: string; Account: { Identification: string }[] }[] };
    }>().Data.Account;
    const account = accounts.find((candidate) => candidate.Account[0]?.Identification === debtor.DebtorAccount.Identification);
    const transactions = (await tpp.get(`${tpp.aisBase()}/accounts/${account?.AccountId ?? ''}/transactions`, ais.accessToken, headers))
      .json<{ Data: { Transaction: { TransactionId: string; Amount: { Amount: string }; TransactionInformation: string }[] } }>()
      .Data.Transaction.filter((entry) => made.includes(entry.TransactionId));
    expect(transactions.map((entry) => [entry.TransactionId, entry.Amount.Amount, entry.TransactionInformation]).sort()).toEqual(
      [
        [made[0], '20.00', `FASTER PAYMENT TO ${CREDITOR.Name.toUpperCase()}`],
        [made[1], '30.00', `FASTER PAYMENT TO ${CREDITOR.Name.toUpperCase()}`],
      ].sort(),
    );

    // DELETE revokes: 204, then no payment and no funds check; v4.0 reads it CANC, v3.1.11 (no such status) not at all.
    const deleted = await tpp.fetch('DELETE', `${tpp.pisp(version)}/domestic-vrp-consents/${consentId}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    await expectAnswer(tpp, version, 'DELETE', '/domestic-vrp-consents/{ConsentId}', 204, deleted);
    const refused = await tpp.pay(version, payer, tpp.vrpPayment(consentId, request, '1.00'));
    await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 400, refused);
    expect(errorsOf(refused)).toEqual([words.consentStatus]);
    const noFunds = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents/${consentId}/funds-confirmation`, payer, fundsBody, {
      key: null,
    });
    await expectAnswer(tpp, version, 'POST', '/domestic-vrp-consents/{ConsentId}/funds-confirmation', 400, noFunds);
    expect(errorsOf(noFunds)).toEqual([words.consentStatus]);
    const gone = await tpp.get(`${tpp.pisp(version)}/domestic-vrp-consents/${consentId}`, token);
    if (version === '4.0') {
      await expectAnswer(tpp, version, 'GET', '/domestic-vrp-consents/{ConsentId}', 200, gone);
      expect(gone.json<{ Data: Json }>().Data.Status).toBe('CANC');
    } else {
      await expectAnswer(tpp, version, 'GET', '/domestic-vrp-consents/{ConsentId}', 400, gone);
      expect(errorsOf(gone)).toEqual([words.notFound]);
    }
    // The payments stay readable.
    expect((await tpp.get(`${tpp.pisp(version)}/domestic-vrps/${first}`, token)).status).toBe(200);
  }, 60_000);

  it('a payment that does not match its consent is refused naming the field; nothing is paid', async () => {
    const tpp = await VrpTpp.openVrp(sandbox);
    const { consentId, payer, request } = await tpp.mandate(version);
    const initiation = (request.Data as { Initiation: Json }).Initiation;
    const cases: [string, Json, string][] = [
      [
        'another ConsentId',
        (() => {
          const body = tpp.vrpPayment(consentId, request, '5.00');
          (body.Data as Json).ConsentId = 'vrc-another';
          return body;
        })(),
        `${words.mismatch} Data.ConsentId`,
      ],
      [
        'another Initiation',
        tpp.vrpPayment(
          consentId,
          {
            ...request,
            Data: { ...(request.Data as Json), Initiation: { ...initiation, CreditorAccount: { ...CREDITOR, Name: 'Other Name' } } },
          },
          '5.00',
        ),
        `${words.mismatch} Data.Initiation.CreditorAccount.Name`,
      ],
      [
        'another Risk',
        { ...tpp.vrpPayment(consentId, request, '5.00'), Risk: { PaymentContextCode: 'TransferToThirdParty' } },
        `${words.mismatch} Risk.PaymentContextCode`,
      ],
      [
        'another creditor in the Instruction',
        tpp.vrpPayment(consentId, request, '5.00', { CreditorAccount: { ...CREDITOR, Identification: '20000399999999' } }),
        `${words.mismatch} Data.Instruction.CreditorAccount.Identification`,
      ],
      [
        "the consent's remittance information left out of the Instruction",
        tpp.vrpPayment(consentId, request, '5.00', { RemittanceInformation: undefined }),
        `${words.mismatch} Data.Instruction.RemittanceInformation`,
      ],
    ];
    for (const [what, body, error] of cases) {
      const refused = await tpp.pay(version, payer, body);
      await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 400, refused);
      expect(errorsOf(refused), what).toEqual([error]);
    }
    // A creditor named with a different Name but the same account is the same creditor.
    const renamed = await tpp.pay(
      version,
      payer,
      tpp.vrpPayment(consentId, request, '5.00', { CreditorAccount: { ...CREDITOR, Name: 'SWEEP SAVINGS' } }),
    );
    await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 201, renamed);
  }, 60_000);

  it('idempotent: a replay answers the first payment (never a second); the key with another body is 409', async () => {
    const tpp = await VrpTpp.openVrp(sandbox);
    const { consentId, payer, request } = await tpp.mandate(version);
    const body = tpp.vrpPayment(consentId, request, '7.00');
    const first = await tpp.pay(version, payer, body, { key: 'vrp-replay-key' });
    await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 201, first);
    const replay = await tpp.pay(version, payer, body, { key: 'vrp-replay-key' });
    await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 201, replay);
    expect(replay.json<{ Data: Json }>().Data).toMatchObject({
      DomesticVRPId: first.json<{ Data: Json }>().Data.DomesticVRPId,
      Status: words.settled,
    });
    const reused = await tpp.pay(version, payer, tpp.vrpPayment(consentId, request, '8.00'), { key: 'vrp-replay-key' });
    await expectAnswer(tpp, version, 'POST', '/domestic-vrps', 409, reused);
    expect(errorsOf(reused)).toEqual([words.exists]);
    const consentBody = vrpConsentRequest(version);
    const cc = await tpp.clientCredentials('payments');
    const one = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents`, cc, consentBody, { key: 'vrp-consent-key' });
    const two = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents`, cc, consentBody, { key: 'vrp-consent-key' });
    expect(two.json<{ Data: Json }>().Data.ConsentId).toBe(one.json<{ Data: Json }>().Data.ConsentId);
    const other = await tpp.post(`${tpp.pisp(version)}/domestic-vrp-consents`, cc, vrpConsentRequest(version, { maximum: '1.00' }), {
      key: 'vrp-consent-key',
    });
    await expectAnswer(tpp, version, 'POST', '/domestic-vrp-consents', 409, other);
  }, 60_000);

  it('refuses what the version does not define and what a consent cannot do in its status', async () => {
    const tpp = await VrpTpp.openVrp(sandbox);
    const cc = await tpp.clientCredentials('payments');
    const bad = await tpp.post(
      `${tpp.pisp(version)}/domestic-vrp-consents`,
      cc,
      vrpConsentRequest(version, { limits: [{ PeriodType: 'Fortnight', PeriodAlignment: 'Calendar', Amount: '10' }] }),
    );
    await expectAnswer(tpp, version, 'POST', '/domestic-vrp-consents', 400, bad);
    expect(errorsOf(bad)).toEqual([
      `${version === '4.0' ? 'U002' : 'UK.OBIE.Field.Invalid'} Data.ControlParameters.PeriodicLimits[0].PeriodAlignment`,
    ]);
    // A consent awaiting authorisation confirms no funds (its authorization-code token does not exist yet: another
    // consent's token is refused for it).
    const { consentId: pending } = await tpp.vrpConsent(version);
    const { payer } = await tpp.mandate(version);
    const wrong = await tpp.post(
      `${tpp.pisp(version)}/domestic-vrp-consents/${pending}/funds-confirmation`,
      payer,
      { Data: { ConsentId: pending, InstructedAmount: { Amount: '1.00', Currency: 'GBP' } } },
      { key: null },
    );
    await expectAnswer(tpp, version, 'POST', '/domestic-vrp-consents/{ConsentId}/funds-confirmation', 403, wrong);
    // The v4.0 migration operations are not implemented: 405 with Allow (docs/sandbox-vrp.md).
    for (const method of ['PUT', 'PATCH'] as const) {
      const answer = await tpp.fetch(method, `${tpp.pisp(version)}/domestic-vrp-consents/${pending}`, {
        headers: { authorization: `Bearer ${cc}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD, DELETE');
    }
    // A client-credentials token pays nothing (POST /domestic-vrps is authorization code, the v4.0 pages).
    expect((await tpp.pay(version, cc, tpp.vrpPayment(pending, vrpConsentRequest(version), '1.00'))).status).toBe(401);
  }, 60_000);
});

describe('commercial VRP (v4.0, obl-cvrp-v4.0.yaml)', () => {
  it("a cVRP mandate without a creditor: each payment names it; its answers are the cVRP file's; v3.1 has no such type", async () => {
    const tpp = await VrpTpp.openVrp(sandbox);
    const request = vrpConsentRequest('4.0', {
      types: ['UK.OBIE.VRPType.CVRP1', 'UK.OBIE.VRPType.CVRP3'],
      methods: ['UK.OBIE.SCA'],
      initiation: { CreditorAccount: undefined },
    });
    const token = await tpp.clientCredentials('payments');
    const created = await tpp.post(`${tpp.pisp('4.0')}/domestic-vrp-consents`, token, request);
    await expectAnswer(tpp, '4.0', 'POST', '/domestic-vrp-consents', 201, created, 'cvrp');
    const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
    const payer = await tpp.authorised(consentId, 'openid payments');
    const body = tpp.vrpPayment(
      consentId,
      request,
      '12.00',
      { CreditorAccount: { ...CREDITOR, Identification: '30000398765432', Name: 'Merchant plc' } },
      { VRPType: 'UK.OBIE.VRPType.CVRP3' },
    );
    const paid = await tpp.pay('4.0', payer, body);
    await expectAnswer(tpp, '4.0', 'POST', '/domestic-vrps', 201, paid, 'cvrp');
    const id = paid.json<{ Data: { DomesticVRPId: string } }>().Data.DomesticVRPId;
    await expectAnswer(
      tpp,
      '4.0',
      'GET',
      '/domestic-vrps/{DomesticVRPId}',
      200,
      await tpp.get(`${tpp.pisp('4.0')}/domestic-vrps/${id}`, token),
      'cvrp',
    );
    await expectAnswer(
      tpp,
      '4.0',
      'GET',
      '/domestic-vrps/{DomesticVRPId}/payment-details',
      200,
      await tpp.get(`${tpp.pisp('4.0')}/domestic-vrps/${id}/payment-details`, token),
      'cvrp',
    );
    const cvrpOnV31 = await tpp.post(
      `${tpp.pisp('3.1')}/domestic-vrp-consents`,
      token,
      vrpConsentRequest('3.1', { types: ['UK.OBIE.VRPType.CVRP1'] }),
    );
    await expectAnswer(tpp, '3.1', 'POST', '/domestic-vrp-consents', 400, cvrpOnV31);
    expect(errorsOf(cvrpOnV31)).toEqual(['UK.OBIE.Field.Invalid Data.ControlParameters.VRPType[0]']);
  }, 60_000);

  it('the permissive profile drops members the version does not define; the strict one refuses them', async () => {
    const request = vrpConsentRequest('4.0', { control: { Cap: 'x' } });
    for (const [profile, status] of [
      ['permissive-headless', 201],
      ['strict-headless', 400],
    ] as const) {
      const tpp = await VrpTpp.openVrp(sandbox, undefined, profile);
      const created = await tpp.post(`${tpp.pisp('4.0')}/domestic-vrp-consents`, await tpp.clientCredentials('payments'), request);
      await expectAnswer(tpp, '4.0', 'POST', '/domestic-vrp-consents', status, created);
    }
  }, 60_000);
});
