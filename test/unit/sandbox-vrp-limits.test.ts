// The VRP mandate's limits (src/sandbox/resource/vrp-limits.ts) over the bank's calendar (src/sandbox/bank-time.ts):
// the periods of each PeriodType and PeriodAlignment, their dates in Europe/London across both clock changes, the
// pro-rated first calendar period of the VRP pages' examples, and each rule of LIMIT_RULES — one scenario per rule
// that breaches it and one that just fits, so removing any rule fails its scenario.

import { describe, expect, it } from 'vitest';

import { addMonths, bankDateOf, isoDate, startOfBankDay } from '../../src/sandbox/bank-time.js';
import type { CalendarDate } from '../../src/sandbox/bank-time.js';
import type { VrpMandate } from '../../src/sandbox/contracts.js';
import { firstBreach, LIMIT_RULE_NAMES, LIMIT_RULES, windowOf } from '../../src/sandbox/resource/vrp-limits.js';
import type { LimitRuleName, PaidEntry, PaymentFacts } from '../../src/sandbox/resource/vrp-limits.js';

const date = (text: string): CalendarDate => {
  const [year = 0, month = 0, day = 0] = text.split('-').map(Number);
  return { year, month, day };
};
const at = (iso: string): number => Date.parse(iso);

describe("the bank's calendar (Europe/London)", () => {
  it('reads an instant as the London date: BST moves late UTC evenings to the next day, GMT does not', () => {
    // 23:30 UTC on 30 June is 00:30 BST on 1 July; on 30 December it is still 30 December (GMT).
    expect(bankDateOf(at('2026-06-30T23:30:00Z'))).toEqual(date('2026-07-01'));
    expect(bankDateOf(at('2026-12-30T23:30:00Z'))).toEqual(date('2026-12-30'));
  });

  it('starts each day at local midnight, whatever the clocks did that night (a 23-hour and a 25-hour day)', () => {
    // The clocks go forward at 01:00 UTC on Sunday 29 March 2026 and back at 01:00 UTC on Sunday 25 October 2026.
    expect(new Date(startOfBankDay(date('2026-03-29'))).toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(new Date(startOfBankDay(date('2026-03-30'))).toISOString()).toBe('2026-03-29T23:00:00.000Z');
    expect(startOfBankDay(date('2026-03-30')) - startOfBankDay(date('2026-03-29'))).toBe(23 * 3600_000);
    expect(new Date(startOfBankDay(date('2026-10-25'))).toISOString()).toBe('2026-10-24T23:00:00.000Z');
    expect(startOfBankDay(date('2026-10-26')) - startOfBankDay(date('2026-10-25'))).toBe(25 * 3600_000);
  });

  it('adds months on the anchor day, or the month end when the month is shorter', () => {
    expect(addMonths(date('2026-01-31'), 1, 31)).toEqual(date('2026-02-28'));
    expect(addMonths(date('2026-01-31'), 2, 31)).toEqual(date('2026-03-31'));
    expect(addMonths(date('2028-01-31'), 1, 31)).toEqual(date('2028-02-29'));
    expect(addMonths(date('2026-11-15'), 3, 15)).toEqual(date('2027-02-15'));
  });
});

describe('the period of a limit that holds a date', () => {
  const limit = (PeriodType: string, PeriodAlignment: string, amount: number) => ({ PeriodType, PeriodAlignment, amountMinor: amount });
  const dates = (window: ReturnType<typeof windowOf>): string[] => [isoDate(window.startDate), isoDate(window.endDate)];

  it.each([
    // [type, alignment, created, on, start, end (exclusive)]
    ['Day', 'Consent', '2026-06-05', '2026-06-09', '2026-06-09', '2026-06-10'],
    ['Day', 'Calendar', '2026-06-05', '2026-06-09', '2026-06-09', '2026-06-10'],
    ['Week', 'Calendar', '2026-06-05', '2026-06-10', '2026-06-08', '2026-06-15'], // Monday 8 June to Sunday 14 June
    ['Week', 'Consent', '2026-06-05', '2026-06-12', '2026-06-12', '2026-06-19'], // Friday to Thursday
    ['Week', 'Consent', '2026-06-05', '2026-06-11', '2026-06-05', '2026-06-12'],
    ['Fortnight', 'Consent', '2026-06-05', '2026-06-19', '2026-06-19', '2026-07-03'],
    ['Month', 'Calendar', '2026-06-06', '2026-07-31', '2026-07-01', '2026-08-01'],
    // VRP pages, Example 2: "created on 05-Jun-2021": 05-Jun to 04-Jul, then 05-Jul to 04-Aug.
    ['Month', 'Consent', '2021-06-05', '2021-07-04', '2021-06-05', '2021-07-05'],
    ['Month', 'Consent', '2021-06-05', '2021-07-05', '2021-07-05', '2021-08-05'],
    ['Month', 'Consent', '2026-01-31', '2026-03-01', '2026-02-28', '2026-03-31'],
    ['Half-year', 'Calendar', '2026-03-05', '2026-09-30', '2026-07-01', '2027-01-01'],
    ['Half-year', 'Consent', '2026-03-05', '2026-09-30', '2026-09-05', '2027-03-05'],
    ['Year', 'Calendar', '2026-03-05', '2027-02-01', '2027-01-01', '2028-01-01'],
    ['Year', 'Consent', '2026-03-05', '2027-03-04', '2026-03-05', '2027-03-05'],
  ])('%s %s created %s: on %s the period is %s to %s', (type, alignment, created, on, start, end) => {
    expect(dates(windowOf(limit(type, alignment, 100_00), date(created), date(on)))).toEqual([start, end]);
  });

  it('pro-rates the first calendar period to the days left (VRP pages, Example 1: 300.00 a month from 6 June is 250.00 until 30 June)', () => {
    const first = windowOf(limit('Month', 'Calendar', 300_00), date('2021-06-06'), date('2021-06-20'));
    expect(first).toMatchObject({ limitMinor: 250_00, prorated: true });
    expect(windowOf(limit('Month', 'Calendar', 300_00), date('2021-06-06'), date('2021-07-01'))).toMatchObject({
      limitMinor: 300_00,
      prorated: false,
    });
    // Example 3: 500.00 a calendar year, its first period 06-Jun to 31-Dec: 500 × 209 / 365 = 286.30 (rounded down).
    expect(windowOf(limit('Year', 'Calendar', 500_00), date('2021-06-06'), date('2021-12-31')).limitMinor).toBe(286_30);
    // A consent created on the first day of a calendar period has it whole; consent-aligned periods never pro-rate.
    expect(windowOf(limit('Month', 'Calendar', 300_00), date('2021-06-01'), date('2021-06-20'))).toMatchObject({
      limitMinor: 300_00,
      prorated: false,
    });
    expect(windowOf(limit('Month', 'Consent', 300_00), date('2021-06-06'), date('2021-06-20')).limitMinor).toBe(300_00);
  });

  it('counts a calendar day by London midnights across the spring change (23 hours) and the autumn one (25 hours)', () => {
    const day = limit('Day', 'Calendar', 100_00);
    const spring = windowOf(day, date('2026-03-01'), bankDateOf(at('2026-03-29T22:30:00Z')));
    expect([new Date(spring.start).toISOString(), new Date(spring.end).toISOString()]).toEqual([
      '2026-03-29T00:00:00.000Z',
      '2026-03-29T23:00:00.000Z',
    ]);
    const autumn = windowOf(day, date('2026-10-01'), bankDateOf(at('2026-10-25T23:30:00Z')));
    expect([new Date(autumn.start).toISOString(), new Date(autumn.end).toISOString()]).toEqual([
      '2026-10-24T23:00:00.000Z',
      '2026-10-26T00:00:00.000Z',
    ]);
  });
});

// ---- each rule: a payment that breaches it, and one that just fits --------------------------------------------

const MANDATE: VrpMandate = {
  vrpTypes: ['UK.OBIE.VRPType.Sweeping'],
  authenticationMethods: ['UK.OBIE.SCANotRequired'],
  interactionTypes: ['OffSession'],
  validFrom: '2026-06-05T15:00:00.000Z',
  validTo: '2026-09-30T08:00:00.000Z',
  currency: 'GBP',
  maximumIndividualMinor: 50_00,
  periodicLimits: [
    { PeriodType: 'Day', PeriodAlignment: 'Calendar', amountMinor: 100_00 },
    { PeriodType: 'Month', PeriodAlignment: 'Consent', amountMinor: 150_00 },
  ],
};
const CREATED = at('2026-06-01T10:00:00Z');
const PAYMENT: PaymentFacts = {
  at: at('2026-06-10T12:00:00Z'),
  amountMinor: 20_00,
  currency: 'GBP',
  vrpType: 'UK.OBIE.VRPType.Sweeping',
  authenticationMethod: 'UK.OBIE.SCANotRequired',
  interactionType: 'OffSession',
};

interface Scenario {
  rule: LimitRuleName;
  path: string;
  breaches: Partial<PaymentFacts>;
  fits: Partial<PaymentFacts>;
  paid?: PaidEntry[];
}

const SCENARIOS: readonly Scenario[] = [
  // ValidFromDateTime is 16:00 BST on 5 June: the whole of 5 June counts ("the time element … disregarded").
  { rule: 'valid-from', path: 'ValidFromDateTime', breaches: { at: at('2026-06-04T22:59:00Z') }, fits: { at: at('2026-06-04T23:00:00Z') } },
  // ValidToDateTime is 09:00 BST on 30 September: the whole of 30 September counts, 1 October does not.
  { rule: 'valid-to', path: 'ValidToDateTime', breaches: { at: at('2026-09-30T23:00:00Z') }, fits: { at: at('2026-09-30T22:59:00Z') } },
  { rule: 'vrp-type', path: 'VRPType', breaches: { vrpType: 'UK.OBIE.VRPType.Other' }, fits: {} },
  {
    rule: 'psu-authentication-method',
    path: 'PSUAuthenticationMethods',
    breaches: { authenticationMethod: 'UK.OBIE.SCA' },
    fits: {},
  },
  { rule: 'psu-interaction-type', path: 'PSUInteractionTypes', breaches: { interactionType: 'InSession' }, fits: {} },
  { rule: 'currency', path: 'MaximumIndividualAmount.Currency', breaches: { currency: 'EUR' }, fits: {} },
  {
    rule: 'maximum-individual-amount',
    path: 'MaximumIndividualAmount.Amount',
    breaches: { amountMinor: 50_01 },
    fits: { amountMinor: 50_00 },
  },
  // 80.00 paid today (BST): 20.00 more fits the day's 100.00, 20.01 does not. A payment of yesterday (London) counts
  // for yesterday's window only, although it is today in UTC terms.
  {
    rule: 'periodic-limit',
    path: 'PeriodicLimits[0].Amount',
    paid: [
      { time: at('2026-06-09T23:30:00Z'), amountMinor: 40_00 },
      { time: at('2026-06-10T08:00:00Z'), amountMinor: 40_00 },
      { time: at('2026-06-09T22:30:00Z'), amountMinor: 30_00 },
    ],
    breaches: { amountMinor: 20_01 },
    fits: { amountMinor: 20_00 },
  },
];

describe('each limit rule', () => {
  it('has a scenario here, and the rules run in the documented order', () => {
    expect(LIMIT_RULES.map((rule) => rule.name)).toEqual([...LIMIT_RULE_NAMES]);
    expect(SCENARIOS.map((scenario) => scenario.rule).sort()).toEqual([...LIMIT_RULE_NAMES].sort());
  });

  it.each(SCENARIOS)('$rule: refused naming Data.ControlParameters.$path; the payment just inside fits', (scenario) => {
    const paid = scenario.paid ?? [];
    const breach = firstBreach(MANDATE, CREATED, { ...PAYMENT, ...scenario.breaches }, paid);
    expect(breach).toMatchObject({ rule: scenario.rule, path: `Data.ControlParameters.${scenario.path}` });
    expect(breach?.message.length).toBeLessThanOrEqual(500);
    expect(firstBreach(MANDATE, CREATED, { ...PAYMENT, ...scenario.fits }, paid)).toBeUndefined();
  });

  it("the list rules name the value sent and the consent's list (an interaction type not sent reads OffSession)", () => {
    const said = (breaches: Partial<PaymentFacts>): string | undefined =>
      firstBreach(MANDATE, CREATED, { ...PAYMENT, ...breaches }, [])?.message;
    expect(said({ vrpType: 'UK.OBIE.VRPType.Other' })).toBe(
      `Data.VRPType UK.OBIE.VRPType.Other is not one of the consent's VRPType (${MANDATE.vrpTypes.join(', ')})`,
    );
    expect(said({ authenticationMethod: 'UK.OBIE.SCA' })).toBe(
      `Data.PSUAuthenticationMethod UK.OBIE.SCA is not one of the consent's PSUAuthenticationMethods (${MANDATE.authenticationMethods.join(', ')})`,
    );
    expect(said({ interactionType: 'InSession' })).toBe(
      `Data.PSUInteractionType InSession (OffSession when not given) is not one of the consent's PSUInteractionTypes (${(MANDATE.interactionTypes ?? []).join(', ')})`,
    );
  });

  it('the consent-aligned month counts from the creation date: 150.00 from 1 June to 30 June, then afresh', () => {
    const paid = [
      { time: at('2026-06-02T12:00:00Z'), amountMinor: 50_00 },
      { time: at('2026-06-03T12:00:00Z'), amountMinor: 50_00 },
      { time: at('2026-06-04T12:00:00Z'), amountMinor: 40_00 },
    ];
    expect(firstBreach(MANDATE, CREATED, { ...PAYMENT, amountMinor: 10_00 }, paid)).toBeUndefined();
    expect(firstBreach(MANDATE, CREATED, { ...PAYMENT, amountMinor: 10_01 }, paid)).toMatchObject({
      rule: 'periodic-limit',
      path: 'Data.ControlParameters.PeriodicLimits[1].Amount',
    });
    // 1 July (London) opens the next month of the consent.
    expect(firstBreach(MANDATE, CREATED, { ...PAYMENT, amountMinor: 50_00, at: at('2026-06-30T23:00:00Z') }, paid)).toBeUndefined();
    expect(firstBreach(MANDATE, CREATED, { ...PAYMENT, amountMinor: 50_00, at: at('2026-06-30T22:59:00Z') }, paid)).toMatchObject({
      rule: 'periodic-limit',
    });
  });

  it('a mandate with no interaction types, validity dates or second limit leaves those rules out', () => {
    const open: VrpMandate = { ...MANDATE, periodicLimits: [MANDATE.periodicLimits[0]!] };
    delete open.interactionTypes;
    delete open.validFrom;
    delete open.validTo;
    expect(firstBreach(open, CREATED, { ...PAYMENT, interactionType: 'InSession', at: at('2030-01-01T12:00:00Z') }, [])).toBeUndefined();
  });
});
