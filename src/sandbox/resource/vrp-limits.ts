// A VRP mandate's limits (pure): which period of each periodic limit a payment falls in, the limit that period has,
// and the rules every payment under the mandate is checked against, one row each in LIMIT_RULES (VRP v4.0
// domestic-vrps: "The ASPSP must ensure that the payment instruction adheres to the limitations set by the
// corresponding VRP consent's ControlParameters"). Periods are dates of the bank's calendar (bank-time.ts,
// Europe/London): a day starts at local midnight whatever the clocks did. The store runs the check and the payment's
// insertion as one transaction (resource/vrp.ts); docs/sandbox-vrp.md is the contract.

import type { VrpMandate } from '../contracts.js';
import {
  addDays,
  addMonths,
  bankDateOf,
  compareDates,
  daysBetween,
  isoDate,
  isoWeekday,
  monthsBetween,
  startOfBankDay,
} from '../bank-time.js';
import type { CalendarDate } from '../bank-time.js';

/**
 * The PeriodTypes (OBDomesticVRPControlParameters PeriodicLimits.PeriodType: Day, Week, Fortnight, Month, Half-year,
 * Year), one row each: how long a period is, where a calendar period starts (ISO 8601 weeks start on Monday; half-years
 * on 1 January and 1 July), and how the consent page names it. A Fortnight has no calendar start: "As the ISO calendar
 * does not support or provide any guidance on when a fortnight should start, hence for a PeriodType of Fortnight the
 * PeriodAlignment must be Consent."
 */
export interface PeriodTypeRow {
  step: { days: number } | { months: number };
  calendarStart?: (date: CalendarDate) => CalendarDate;
  /** "day", "week", …: the page's words. */
  noun: string;
}

export const PERIOD_TYPES = {
  Day: { step: { days: 1 }, calendarStart: (date) => date, noun: 'day' },
  Week: { step: { days: 7 }, calendarStart: (date) => addDays(date, 1 - isoWeekday(date)), noun: 'week' },
  Fortnight: { step: { days: 14 }, noun: 'fortnight' },
  Month: { step: { months: 1 }, calendarStart: (date) => ({ ...date, day: 1 }), noun: 'month' },
  'Half-year': { step: { months: 6 }, calendarStart: (date) => ({ ...date, month: date.month <= 6 ? 1 : 7, day: 1 }), noun: 'half-year' },
  Year: { step: { months: 12 }, calendarStart: (date) => ({ ...date, month: 1, day: 1 }), noun: 'year' },
} as const satisfies Record<string, PeriodTypeRow>;

export type PeriodType = keyof typeof PERIOD_TYPES;
export const PERIOD_TYPE_NAMES = Object.keys(PERIOD_TYPES) as PeriodType[];

/** PeriodAlignment: a period "starts on the date of consent creation or lines up with a calendar". */
export const PERIOD_ALIGNMENTS = ['Consent', 'Calendar'] as const;
export type PeriodAlignment = (typeof PERIOD_ALIGNMENTS)[number];

export function periodTypeRow(name: string): PeriodTypeRow | undefined {
  return (PERIOD_TYPES as Readonly<Record<string, PeriodTypeRow>>)[name];
}

/** One period of a periodic limit: its dates (end exclusive), its instants, and the limit it has. */
export interface LimitWindow {
  startDate: CalendarDate;
  endDate: CalendarDate;
  start: number;
  end: number;
  limitMinor: number;
  /** Pro-rated: the consent was created inside this calendar period, after its first day. */
  prorated: boolean;
}

type Limit = VrpMandate['periodicLimits'][number];

function advance(date: CalendarDate, step: PeriodTypeRow['step'], times: number, day: number): CalendarDate {
  return 'days' in step ? addDays(date, step.days * times) : addMonths(date, step.months * times, day);
}

/**
 * The period of `limit` that holds the bank's date `on`, for a consent created on the bank's date `created`.
 * Consent alignment: periods of the type's length from `created` (a month from 31 January ends on the last day of
 * February, the next on 31 March). Calendar alignment: the calendar period holding `on`; the one holding `created`
 * is pro-rated "to the remaining number of days" (OBDomesticVRPControlParameters PeriodicLimits, its Example 1: a
 * monthly 300.00 created on 6 June has 250.00 until 30 June — the creation day counts), rounded down to the penny so
 * the mandate is never exceeded.
 */
export function windowOf(limit: Limit, created: CalendarDate, on: CalendarDate): LimitWindow {
  const row = periodTypeRow(limit.PeriodType);
  if (row === undefined) throw new TypeError(`unknown PeriodType ${limit.PeriodType}`);
  const { step } = row;
  let startDate: CalendarDate;
  let endDate: CalendarDate;
  if (limit.PeriodAlignment === 'Calendar' && row.calendarStart !== undefined) {
    startDate = row.calendarStart(on);
    endDate = advance(startDate, step, 1, 1);
  } else {
    const length = 'days' in step ? step.days : step.months;
    let index = Math.floor(('days' in step ? daysBetween(created, on) : monthsBetween(created, on)) / length);
    if (compareDates(advance(created, step, index, created.day), on) > 0) index -= 1;
    startDate = advance(created, step, index, created.day);
    endDate = advance(created, step, index + 1, created.day);
  }
  const prorated = limit.PeriodAlignment === 'Calendar' && compareDates(startDate, created) < 0 && compareDates(created, endDate) < 0;
  const limitMinor = prorated
    ? Number((BigInt(limit.amountMinor) * BigInt(daysBetween(created, endDate))) / BigInt(daysBetween(startDate, endDate)))
    : limit.amountMinor;
  return { startDate, endDate, start: startOfBankDay(startDate), end: startOfBankDay(endDate), limitMinor, prorated };
}

/** What a payment under the mandate is, as the limits see it. */
export interface PaymentFacts {
  /** When it is made (epoch ms, the bank's clock). */
  at: number;
  amountMinor: number;
  currency: string;
  vrpType: string;
  authenticationMethod: string;
  /** PSUInteractionType, OffSession when the payment gives none ("If not provided the default is OffSession"). */
  interactionType: string;
}

/** A payment already accepted under the mandate (rejected ones moved no money and count against nothing). */
export interface PaidEntry {
  time: number;
  amountMinor: number;
}

/** A limit the payment breaches: the control parameter at fault (the error's Path) and what happened. */
export interface LimitBreach {
  rule: LimitRuleName;
  path: string;
  message: string;
}

interface LimitContext {
  mandate: VrpMandate;
  /** The bank's date the consent was created on (CreationDateTime). */
  created: CalendarDate;
  payment: PaymentFacts;
  paid: readonly PaidEntry[];
}

/** Amounts in minor units as the wire writes them: 1234 → 12.34. */
export function minorText(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

const CONTROL = 'Data.ControlParameters';

/** The rules' names, in the order they are checked (docs/sandbox-vrp.md, "Limits on each payment"). */
export const LIMIT_RULE_NAMES = [
  'valid-from',
  'valid-to',
  'vrp-type',
  'psu-authentication-method',
  'psu-interaction-type',
  'currency',
  'maximum-individual-amount',
  'periodic-limit',
] as const;
export type LimitRuleName = (typeof LIMIT_RULE_NAMES)[number];

interface LimitRule {
  name: LimitRuleName;
  check(context: LimitContext): LimitBreach | undefined;
}

/** The rule that the payment's Data.`field` (PaymentFacts `given`) is one of the consent's ControlParameters.`parameter`
 *  (the mandate's `allowed`; absent: the consent does not restrict it); `defaulted` says, in the refusal, what stands for
 *  a value the payment did not send. */
function oneOf(
  name: LimitRuleName,
  field: string,
  parameter: string,
  allowed: 'vrpTypes' | 'authenticationMethods' | 'interactionTypes',
  given: 'vrpType' | 'authenticationMethod' | 'interactionType',
  defaulted = '',
): LimitRule {
  return {
    name,
    check: ({ mandate, payment }) => {
      const list = mandate[allowed];
      const value = payment[given];
      if (list === undefined || list.includes(value)) return undefined;
      return breach(
        name,
        `${CONTROL}.${parameter}`,
        `Data.${field} ${value}${defaulted} is not one of the consent's ${parameter} (${list.join(', ')})`,
      );
    },
  };
}

/**
 * The rules, in the order they are checked; the first one a payment breaches is its refusal (UK.OBIE.Rules.
 * FailsControlParameters, v4.0 U014: "When a payment would breach a limitation set by one or more ControlParameters,
 * the ASPSP must return an error with code U014 and pass in the control parameter field that caused the error").
 * ValidFromDateTime and ValidToDateTime count by date: "The time element of the date should be disregarded in
 * computing the date range".
 */
export const LIMIT_RULES: readonly LimitRule[] = [
  {
    name: 'valid-from',
    check: ({ mandate, payment }) => {
      if (mandate.validFrom === undefined) return undefined;
      const first = bankDateOf(Date.parse(mandate.validFrom));
      if (payment.at >= startOfBankDay(first)) return undefined;
      return breach(
        'valid-from',
        `${CONTROL}.ValidFromDateTime`,
        `payments under this consent start on ${isoDate(first)} (ValidFromDateTime, the bank's date in Europe/London)`,
      );
    },
  },
  {
    name: 'valid-to',
    check: ({ mandate, payment }) => {
      if (mandate.validTo === undefined) return undefined;
      const last = bankDateOf(Date.parse(mandate.validTo));
      if (payment.at < startOfBankDay(addDays(last, 1))) return undefined;
      return breach(
        'valid-to',
        `${CONTROL}.ValidToDateTime`,
        `payments under this consent ended with ${isoDate(last)} (ValidToDateTime, the bank's date in Europe/London)`,
      );
    },
  },
  oneOf('vrp-type', 'VRPType', 'VRPType', 'vrpTypes', 'vrpType'),
  oneOf(
    'psu-authentication-method',
    'PSUAuthenticationMethod',
    'PSUAuthenticationMethods',
    'authenticationMethods',
    'authenticationMethod',
  ),
  oneOf(
    'psu-interaction-type',
    'PSUInteractionType',
    'PSUInteractionTypes',
    'interactionTypes',
    'interactionType',
    ' (OffSession when not given)',
  ),
  {
    name: 'currency',
    check: ({ mandate, payment }) =>
      payment.currency === mandate.currency
        ? undefined
        : breach(
            'currency',
            `${CONTROL}.MaximumIndividualAmount.Currency`,
            `Data.Instruction.InstructedAmount.Currency ${payment.currency} is not the consent's currency ${mandate.currency}`,
          ),
  },
  {
    name: 'maximum-individual-amount',
    check: ({ mandate, payment }) =>
      payment.amountMinor <= mandate.maximumIndividualMinor
        ? undefined
        : breach(
            'maximum-individual-amount',
            `${CONTROL}.MaximumIndividualAmount.Amount`,
            `Data.Instruction.InstructedAmount ${minorText(payment.amountMinor)} ${payment.currency} is above MaximumIndividualAmount ${minorText(mandate.maximumIndividualMinor)} ${mandate.currency}`,
          ),
  },
  {
    name: 'periodic-limit',
    check: ({ mandate, created, payment, paid }) => {
      const on = bankDateOf(payment.at);
      for (const [index, limit] of mandate.periodicLimits.entries()) {
        const window = windowOf(limit, created, on);
        const sum = paid.reduce(
          (total, entry) => (entry.time >= window.start && entry.time < window.end ? total + entry.amountMinor : total),
          0,
        );
        if (sum + payment.amountMinor <= window.limitMinor) continue;
        const period = `${limit.PeriodAlignment === 'Calendar' ? 'calendar' : 'consent-aligned'} ${limit.PeriodType} ${isoDate(window.startDate)} to ${isoDate(addDays(window.endDate, -1))}`;
        const money = (minor: number): string => `${minorText(minor)} ${mandate.currency}`;
        const prorated = window.prorated ? ' (pro-rated: the consent was created inside this period)' : '';
        return breach(
          'periodic-limit',
          `${CONTROL}.PeriodicLimits[${index}].Amount`,
          `Data.Instruction.InstructedAmount ${money(payment.amountMinor)} would take the payments of the ${period} to ` +
            `${money(sum + payment.amountMinor)}, above its limit of ${money(window.limitMinor)}${prorated} (PeriodicLimits[${index}])`,
        );
      }
      return undefined;
    },
  },
];

function breach(rule: LimitRuleName, path: string, message: string): LimitBreach {
  return { rule, path, message: message.slice(0, 500) };
}

/** The first limit `payment` breaches under `mandate` (created at `createdAt`), given the payments accepted before it;
 *  undefined when it fits every one. */
export function firstBreach(
  mandate: VrpMandate,
  createdAt: number,
  payment: PaymentFacts,
  paid: readonly PaidEntry[],
): LimitBreach | undefined {
  const context: LimitContext = { mandate, created: bankDateOf(createdAt), payment, paid };
  for (const rule of LIMIT_RULES) {
    const found = rule.check(context);
    if (found !== undefined) return found;
  }
  return undefined;
}
