// Every limit of a VRP mandate enforced on each payment over real mutual TLS, with the emulator's clock moved
// (startSandbox({ now }), docs/sandbox-vrp.md "The clock") so periods are crossed without waiting: validity dates,
// type, authentication method, interaction type, currency, the maximum per payment, and periodic limits of a day, week,
// month and year, consent-aligned and calendar-aligned (pro-rated first periods), in Europe/London across both clock
// changes. A refused payment, a payment rejected for want of funds and an idempotent replay count against nothing; 50
// payments at once never take more than the mandate allows. Every answer is its file's and signed.

import { describe, expect, it } from 'vitest';

import { apiProblems } from '../helpers/obie-payments.js';
import { VERSIONS, verifyBankSignature } from '../helpers/payments-client.js';
import type { Version } from '../helpers/payments-client.js';
import { BANK_FINANCIAL_ID, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';
import { BankClock, VrpTpp, vrpConsentRequest } from '../helpers/vrp-client.js';
import type { MandateOptions } from '../helpers/vrp-client.js';

const clock = new BankClock();
const sandbox = useTestSandbox({ apis: ['accounts', 'vrp'], seed: 'vrp-limits', now: clock.now });

type Json = Record<string, unknown>;

const LIMIT_CODE: Readonly<Record<Version, string>> = { '3.1': 'UK.OBIE.Rules.FailsControlParameters', '4.0': 'U014' };

/** A mandate of jo's company account (the most money) made at `created` on the bank's clock. */
async function mandateAt(tpp: VrpTpp, version: Version, created: string, options: MandateOptions) {
  clock.set(created);
  return tpp.mandate(version, vrpConsentRequest(version, options), 'jo');
}

/** Pays `amount` at `when` (the bank's clock) under the mandate; `changes` replace Data or Instruction members. */
async function payAt(
  tpp: VrpTpp,
  version: Version,
  mandate: { consentId: string; payer: string; request: Json },
  when: string,
  amount: string,
  changes: { data?: Json; instruction?: Json; key?: string } = {},
): Promise<WireResponse> {
  clock.set(when);
  const body = tpp.vrpPayment(mandate.consentId, mandate.request, amount, changes.instruction ?? {}, changes.data ?? {});
  const response = await tpp.pay(version, mandate.payer, body, changes.key === undefined ? {} : { key: changes.key });
  expect(apiProblems('vrp', version, 'POST', '/domestic-vrps', response.status, response.text, response.headers)).toEqual([]);
  verifyBankSignature(response.headers['x-jws-signature'] as string | undefined, response.text, await tpp.jwks());
  return response;
}

/** Accepted (201, not rejected), or refused with the version's FailsControlParameters code naming `path`. */
function accepted(response: WireResponse): void {
  expect(response.status, response.text).toBe(201);
  expect(response.json<{ Data: { Status: string } }>().Data.Status).not.toMatch(/^(RJCT|Rejected)$/);
}
function refused(response: WireResponse, version: Version, path: string, ...orPaths: string[]): string {
  expect(response.status, response.text).toBe(400);
  const [error, ...more] = response.json<{ Errors: { ErrorCode: string; Path: string; Message: string }[] }>().Errors;
  expect(more).toEqual([]);
  expect(error?.ErrorCode).toBe(LIMIT_CODE[version]);
  expect([path, ...orPaths].map((one) => `Data.ControlParameters.${one}`)).toContain(error?.Path);
  return error?.Message ?? '';
}

describe.each(VERSIONS)('v%s: each control parameter, on each payment', (version) => {
  it('validity dates, type, authentication method, interaction type, currency, maximum, a calendar day and a consent week', async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    // Monday 1 February 2027 (GMT: London dates are UTC dates all month).
    const mandate = await mandateAt(tpp, version, '2027-02-01T10:00:00Z', {
      maximum: '50.00',
      limits: [
        { PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '100.00' },
        { PeriodType: 'Week', PeriodAlignment: 'Consent', Amount: '150.00' },
      ],
      types: ['UK.OBIE.VRPType.Sweeping'],
      methods: ['UK.OBIE.SCANotRequired'],
      interactions: ['OffSession'],
      validFrom: '2027-02-03T15:00:00+00:00',
      validTo: '2027-02-20T09:00:00+00:00',
    });
    // Valid from the date of ValidFromDateTime, its time disregarded.
    refused(await payAt(tpp, version, mandate, '2027-02-02T23:59:00Z', '10.00'), version, 'ValidFromDateTime');
    accepted(await payAt(tpp, version, mandate, '2027-02-03T00:01:00Z', '10.00'));
    refused(
      await payAt(tpp, version, mandate, '2027-02-03T01:00:00Z', '10.00', { data: { VRPType: 'UK.OBIE.VRPType.Other' } }),
      version,
      'VRPType',
    );
    refused(
      await payAt(tpp, version, mandate, '2027-02-03T01:00:00Z', '10.00', { data: { PSUAuthenticationMethod: 'UK.OBIE.SCA' } }),
      version,
      'PSUAuthenticationMethods',
    );
    refused(
      await payAt(tpp, version, mandate, '2027-02-03T01:00:00Z', '10.00', { data: { PSUInteractionType: 'InSession' } }),
      version,
      'PSUInteractionTypes',
    );
    refused(
      await payAt(tpp, version, mandate, '2027-02-03T01:00:00Z', '10.00', {
        instruction: { InstructedAmount: { Amount: '10.00', Currency: 'EUR' } },
      }),
      version,
      'MaximumIndividualAmount.Currency',
    );
    refused(await payAt(tpp, version, mandate, '2027-02-03T01:00:00Z', '50.01'), version, 'MaximumIndividualAmount.Amount');
    // The calendar day's 100.00: 10 + 50 + 40 fit (the refused ones above counted nothing), one penny more does not.
    accepted(await payAt(tpp, version, mandate, '2027-02-03T02:00:00Z', '50.00'));
    accepted(await payAt(tpp, version, mandate, '2027-02-03T03:00:00Z', '40.00'));
    const day = refused(await payAt(tpp, version, mandate, '2027-02-03T23:59:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    expect(day).toContain('calendar Day 2027-02-03 to 2027-02-03');
    // The next day has its own 100.00, but the consent's week (Monday 1 to Sunday 7) its 150.00: 100 + 50, then no more.
    accepted(await payAt(tpp, version, mandate, '2027-02-04T00:00:30Z', '50.00'));
    const week = refused(await payAt(tpp, version, mandate, '2027-02-04T01:00:00Z', '0.01'), version, 'PeriodicLimits[1].Amount');
    expect(week).toContain('consent-aligned Week 2027-02-01 to 2027-02-07');
    refused(await payAt(tpp, version, mandate, '2027-02-07T23:59:00Z', '0.01'), version, 'PeriodicLimits[1].Amount');
    accepted(await payAt(tpp, version, mandate, '2027-02-08T00:00:30Z', '50.00'));
    // Valid to the end of the date of ValidToDateTime (09:00 on 20 February), not a day more.
    accepted(await payAt(tpp, version, mandate, '2027-02-20T23:59:00Z', '1.00'));
    refused(await payAt(tpp, version, mandate, '2027-02-21T00:00:30Z', '1.00'), version, 'ValidToDateTime');
    // Past it, the consent reads EXPD on v4.0 (Authorised on v3.1.11, which has no such status) and confirms no funds.
    const cc = await tpp.clientCredentials('payments');
    const read = await tpp.get(`${tpp.pisp(version)}/domestic-vrp-consents/${mandate.consentId}`, cc);
    expect(apiProblems('vrp', version, 'GET', '/domestic-vrp-consents/{ConsentId}', 200, read.text, read.headers)).toEqual([]);
    expect(read.json<{ Data: Json }>().Data.Status).toBe(version === '4.0' ? 'EXPD' : 'Authorised');
    const funds = await tpp.post(
      `${tpp.pisp(version)}/domestic-vrp-consents/${mandate.consentId}/funds-confirmation`,
      mandate.payer,
      { Data: { ConsentId: mandate.consentId, InstructedAmount: { Amount: '1.00', Currency: 'GBP' } } },
      { key: null },
    );
    expect(funds.status).toBe(400);
    expect(funds.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe(
      version === '4.0' ? 'U009' : 'UK.OBIE.Resource.InvalidConsentStatus',
    );
  }, 120_000);
});

describe('periods crossed with the clock moved (v4.0)', () => {
  const version = '4.0';

  it('a calendar month is pro-rated from the creation day; a consent month from 31 January ends with February', async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    // 310.00 a calendar month from 21 January: 11 of 31 days left, 110.00.
    const calendar = await mandateAt(tpp, version, '2027-01-21T12:00:00Z', {
      maximum: '500.00',
      limits: [{ PeriodType: 'Month', PeriodAlignment: 'Calendar', Amount: '310.00' }],
    });
    accepted(await payAt(tpp, version, calendar, '2027-01-25T12:00:00Z', '110.00'));
    expect(refused(await payAt(tpp, version, calendar, '2027-01-31T23:59:00Z', '0.01'), version, 'PeriodicLimits[0].Amount')).toContain(
      'pro-rated',
    );
    accepted(await payAt(tpp, version, calendar, '2027-02-01T00:00:30Z', '310.00'));
    refused(await payAt(tpp, version, calendar, '2027-02-28T23:59:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');

    const consent = await mandateAt(tpp, version, '2027-01-31T12:00:00Z', {
      maximum: '500.00',
      limits: [{ PeriodType: 'Month', PeriodAlignment: 'Consent', Amount: '100.00' }],
    });
    accepted(await payAt(tpp, version, consent, '2027-02-27T12:00:00Z', '100.00'));
    refused(await payAt(tpp, version, consent, '2027-02-27T23:59:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, consent, '2027-02-28T00:00:30Z', '100.00'));
    // The next month runs to 30 March; 31 March starts at 23:00 UTC (BST since 28 March).
    refused(await payAt(tpp, version, consent, '2027-03-30T22:30:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, consent, '2027-03-30T23:30:00Z', '100.00'));
  }, 120_000);

  it('a calendar week from a Wednesday has 5 of its 7 days; a calendar year from 1 December 31 of 365; a consent year ends the day before', async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    const week = await mandateAt(tpp, version, '2027-02-03T12:00:00Z', {
      maximum: '500.00',
      limits: [{ PeriodType: 'Week', PeriodAlignment: 'Calendar', Amount: '70.00' }],
    });
    accepted(await payAt(tpp, version, week, '2027-02-07T23:00:00Z', '50.00'));
    refused(await payAt(tpp, version, week, '2027-02-07T23:59:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, week, '2027-02-08T00:00:30Z', '70.00'));

    const year = await mandateAt(tpp, version, '2027-12-01T12:00:00Z', {
      maximum: '500.00',
      limits: [{ PeriodType: 'Year', PeriodAlignment: 'Calendar', Amount: '365.00' }],
    });
    accepted(await payAt(tpp, version, year, '2027-12-15T12:00:00Z', '31.00'));
    refused(await payAt(tpp, version, year, '2027-12-31T23:59:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, year, '2028-01-01T00:00:30Z', '365.00'));

    const consentYear = await mandateAt(tpp, version, '2027-03-10T12:00:00Z', {
      maximum: '500.00',
      limits: [{ PeriodType: 'Year', PeriodAlignment: 'Consent', Amount: '100.00' }],
    });
    accepted(await payAt(tpp, version, consentYear, '2027-03-10T13:00:00Z', '100.00'));
    refused(await payAt(tpp, version, consentYear, '2028-03-09T12:00:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, consentYear, '2028-03-10T00:00:30Z', '100.00'));
  }, 120_000);

  it("a calendar day is the bank's day in Europe/London: 23 hours when the clocks go forward, 25 when they go back", async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    const limits = [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '100.00' }];
    // Sunday 28 March 2027, 01:00 UTC: GMT → BST. 23:10 UTC is 00:10 on Monday 29 March in London.
    const spring = await mandateAt(tpp, version, '2027-03-27T12:00:00Z', { maximum: '100.00', limits });
    accepted(await payAt(tpp, version, spring, '2027-03-28T22:30:00Z', '100.00'));
    refused(await payAt(tpp, version, spring, '2027-03-28T22:50:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, spring, '2027-03-28T23:10:00Z', '100.00'));
    // Sunday 31 October 2027, 01:00 UTC: BST → GMT. 23:30 UTC on the 30th is 00:30 on the 31st; 23:30 UTC on the 31st
    // is still the 31st, 24 hours later.
    const autumn = await mandateAt(tpp, version, '2027-10-30T12:00:00Z', { maximum: '100.00', limits });
    accepted(await payAt(tpp, version, autumn, '2027-10-30T23:30:00Z', '100.00'));
    refused(await payAt(tpp, version, autumn, '2027-10-31T23:30:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
    accepted(await payAt(tpp, version, autumn, '2027-11-01T00:00:30Z', '100.00'));
  }, 120_000);
});

describe('what counts against a limit (v4.0)', () => {
  const version = '4.0';

  it('a payment rejected for want of funds (RJCT, AM04) moved nothing and counts against nothing', async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    clock.set('2027-07-07T10:00:00Z');
    // alex's current account: a few thousand pounds and an overdraft, far from 999 999.00.
    const mandate = await tpp.mandate(
      version,
      vrpConsentRequest(version, {
        maximum: '1000000.00',
        limits: [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '1000000.00' }],
      }),
    );
    const poor = await payAt(tpp, version, mandate, '2027-07-07T11:00:00Z', '999999.00');
    expect(poor.status).toBe(201);
    expect(poor.json<{ Data: Json }>().Data).toMatchObject({ Status: 'RJCT', StatusReason: [{ StatusReasonCode: 'AM04' }] });
    accepted(await payAt(tpp, version, mandate, '2027-07-07T12:00:00Z', '10.00'));
  }, 120_000);

  it('an idempotent replay answers the first payment and counts once', async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    const mandate = await mandateAt(tpp, version, '2027-05-05T10:00:00Z', {
      maximum: '100.00',
      limits: [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '100.00' }],
    });
    clock.set('2027-05-05T11:00:00Z');
    const body = tpp.vrpPayment(mandate.consentId, mandate.request, '60.00');
    const first = await tpp.pay(version, mandate.payer, body, { key: 'limits-replay' });
    accepted(first);
    for (let replay = 0; replay < 2; replay++) {
      const again = await tpp.pay(version, mandate.payer, body, { key: 'limits-replay' });
      expect(again.json<{ Data: Json }>().Data.DomesticVRPId).toBe(first.json<{ Data: Json }>().Data.DomesticVRPId);
    }
    accepted(await payAt(tpp, version, mandate, '2027-05-05T12:00:00Z', '40.00'));
    refused(await payAt(tpp, version, mandate, '2027-05-05T13:00:00Z', '0.01'), version, 'PeriodicLimits[0].Amount');
  }, 120_000);

  it('50 payments at once: the sum accepted never passes a limit, and each refused one did not fit what was left', async () => {
    const tpp = await VrpTpp.openVrp(sandbox, clock);
    const mandate = await mandateAt(tpp, version, '2027-06-16T10:00:00Z', {
      maximum: '10.00',
      limits: [
        { PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '95.00' },
        { PeriodType: 'Month', PeriodAlignment: 'Consent', Amount: '90.00' },
      ],
    });
    clock.set('2027-06-16T11:00:00Z');
    const amounts = Array.from({ length: 50 }, (_, index) => ((index * 7) % 10) + 1);
    const answers = await Promise.all(
      amounts.map((amount) => tpp.pay(version, mandate.payer, tpp.vrpPayment(mandate.consentId, mandate.request, `${amount}.00`))),
    );
    const made = answers.flatMap((answer, index) =>
      answer.status === 201 ? [{ id: String(answer.json<{ Data: Json }>().Data.DomesticVRPId), amount: amounts[index] ?? 0 }] : [],
    );
    const spent = made.reduce((total, payment) => total + payment.amount, 0);
    expect(spent).toBeLessThanOrEqual(90);
    const refusedAmounts = answers.flatMap((answer, index) => {
      if (answer.status === 201) return [];
      // The first limit breached is named: the day's 95.00 when both would be passed, else the month's 90.00.
      refused(answer, version, 'PeriodicLimits[1].Amount', 'PeriodicLimits[0].Amount');
      return [amounts[index] ?? 0];
    });
    expect(made.length + refusedAmounts.length).toBe(50);
    // Room only shrinks: what is left at the end is less than any payment refused on the way.
    for (const amount of refusedAmounts) expect(90 - spent).toBeLessThan(amount);

    // The debits are exactly the accepted payments.
    const ais = await tpp.headlessFlow({ loginHint: 'jo' });
    const headers = { 'x-fapi-financial-id': BANK_FINANCIAL_ID };
    const debtor = (
      await tpp.get(`${tpp.pisp(version)}/domestic-vrps/${made[0]?.id ?? ''}`, await tpp.clientCredentials('payments'))
    ).json<{
      Data: { DebtorAccount: { Identification: string } };
    }>().Data.DebtorAccount.Identification;
    const account = (await tpp.get(`${tpp.aisBase()}/accounts`, ais.accessToken, headers))
      .json<{ Data: { Account: { AccountId: string; Account: { Identification: string }[] }[] } }>()
      .Data.Account.find((candidate) => candidate.Account[0]?.Identification === debtor);
    const ids = new Set(made.map((payment) => payment.id));
    const debits = (await tpp.get(`${tpp.aisBase()}/accounts/${account?.AccountId ?? ''}/transactions`, ais.accessToken, headers))
      .json<{ Data: { Transaction: { TransactionId: string; Amount: { Amount: string } }[] } }>()
      .Data.Transaction.filter((entry) => ids.has(entry.TransactionId));
    expect(debits).toHaveLength(made.length);
    expect(debits.reduce((total, entry) => total + Number(entry.Amount.Amount), 0)).toBe(spent);
  }, 120_000);
});
