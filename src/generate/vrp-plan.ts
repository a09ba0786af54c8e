// The mandate walk (pure): from the consent's ControlParameters (flow.vrp), the payments the vrp-payment and vrp-mandate
// steps make under one consent, each with the answer the standard requires — made, or refused because it breaches a
// limit (VRP v4.0 domestic-vrps: "When a payment would breach a limitation set by one or more ControlParameters, the
// ASPSP must return an error with code U014"; v3.1.11: UK.OBIE.Rules.FailsControlParameters). The run does not move
// the bank's clock, so every payment falls in the consent's first day: a consent-aligned limit of any period and a
// calendar-aligned Day have their whole amount there; a longer calendar-aligned period's first amount is pro-rated to
// the run's date (OBDomesticVRPControlParameters PeriodicLimits, Example 1), which a plan made before the run cannot
// know — those limits are listed, not walked (the emulator's own tests move its clock through every period:
// test/integration/sandbox-vrp-limits.test.ts). docs/collections.md, "The mandate walk".

import { VRP_CONTROL_DEFAULTS, DEFAULT_VRP_TYPE, type VrpControlParameters, type VrpTypeName } from './vrp-types.js';

/** flow.vrp as the generator takes it. */
export interface VrpSettings {
  type: VrpTypeName;
  controlParameters: VrpControlParameters;
}

export const DEFAULT_VRP_SETTINGS: VrpSettings = { type: DEFAULT_VRP_TYPE, controlParameters: VRP_CONTROL_DEFAULTS };

/** One limit of the mandate as the plan sees it. */
export interface PlannedLimit {
  /** `MaximumIndividualAmount` or `PeriodicLimits[i]` (the ControlParameters member). */
  member: string;
  /** How a person reads it: "at most 10.00 GBP a payment", "25.00 GBP a day (from the consent's creation)". */
  label: string;
  amountMinor: number;
  /** Whether the walk crosses or can cross it within the run's day; otherwise why not. */
  walked: boolean;
  reason?: string;
}

export interface PlannedPayment {
  /** The decimal text sent (two decimals). */
  amount: string;
  amountMinor: number;
  expect: 'made' | 'refused';
  /** For a refusal: the limit it breaches (PlannedLimit.member) and that limit in words. */
  limit?: string;
  limitLabel?: string;
  why: string;
  /** What the consent's walked limits hold after it (the sum of the payments made so far). */
  spentMinor: number;
}

export interface VrpPlan {
  currency: string;
  limits: PlannedLimit[];
  /** The vrp-payment step's payment (made, read back, replayed). */
  first: PlannedPayment;
  /** The vrp-mandate step's payments, in order. */
  walk: PlannedPayment[];
}

/** The most payments the walk makes inside a limit before it gives up crossing it (a periodic limit many times the
 *  individual maximum would otherwise ask for thousands of payments). */
export const WALK_MAX_MADE = 20;

const PERIOD_NOUNS: Readonly<Record<string, string>> = {
  Day: 'day',
  Week: 'week',
  Fortnight: 'fortnight',
  Month: 'month',
  'Half-year': 'half-year',
  Year: 'year',
};

/** An amount of at most two decimals in minor units (the config holds VRP amounts to two decimals). */
export function toMinor(amount: string): number {
  const [units = '0', decimals = ''] = amount.split('.');
  return Number(units) * 100 + Number(decimals.padEnd(2, '0').slice(0, 2));
}

export function fromMinor(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** The mandate's limits, each with whether the walk can prove it in the run's day. */
export function plannedLimits(control: VrpControlParameters): PlannedLimit[] {
  const currency = control.MaximumIndividualAmount.Currency;
  const maximum: PlannedLimit = {
    member: 'MaximumIndividualAmount',
    label: `at most ${control.MaximumIndividualAmount.Amount} ${currency} a payment`,
    amountMinor: toMinor(control.MaximumIndividualAmount.Amount),
    walked: true,
  };
  return [
    maximum,
    ...control.PeriodicLimits.map((limit, index): PlannedLimit => {
      const noun = PERIOD_NOUNS[limit.PeriodType] ?? limit.PeriodType;
      const consent = limit.PeriodAlignment === 'Consent';
      const label = `${limit.Amount} ${limit.Currency} a ${noun} (${consent ? "counted from the consent's creation" : `the calendar ${noun}`})`;
      // The consent's first day is whole in its first period unless a longer calendar period pro-rates it.
      const walked = consent || limit.PeriodType === 'Day';
      return {
        member: `PeriodicLimits[${index}]`,
        label,
        amountMinor: toMinor(limit.Amount),
        walked,
        ...(walked
          ? {}
          : {
              reason:
                `its first ${noun} is pro-rated to the run's date (PeriodicLimits Example 1), unknown when the walk is planned; ` +
                "calendar periods are proven in the emulator's tests, which move its clock",
            }),
      };
    }),
  ];
}

/** Pure: the payments of the vrp-payment and vrp-mandate steps under `settings`' mandate. */
export function planMandate(settings: VrpSettings): VrpPlan {
  const control = settings.controlParameters;
  const limits = plannedLimits(control);
  const maximum = limits[0] as PlannedLimit;
  const max = maximum.amountMinor;
  // The periodic limit the walk crosses: the smallest one it can prove.
  const binding = limits
    .slice(1)
    .filter((limit) => limit.walked)
    .reduce<PlannedLimit | undefined>((low, limit) => (low === undefined || limit.amountMinor < low.amountMinor ? limit : low), undefined);
  const cap = binding?.amountMinor ?? Number.POSITIVE_INFINITY;
  let spent = 0;
  const made = (minor: number, why: string): PlannedPayment => {
    spent += minor;
    return { amount: fromMinor(minor), amountMinor: minor, expect: 'made', why, spentMinor: spent };
  };
  const refused = (minor: number, limit: PlannedLimit, why: string): PlannedPayment => ({
    amount: fromMinor(minor),
    amountMinor: minor,
    expect: 'refused',
    limit: limit.member,
    limitLabel: limit.label,
    why,
    spentMinor: spent,
  });
  const first = made(Math.min(max, cap), 'inside every limit');
  const walk: PlannedPayment[] = [];
  // Above the individual maximum, before the periodic limit is near (when the maximum is below it).
  walk.push(
    refused(
      max + 1,
      maximum,
      spent + max + 1 <= cap
        ? `one penny above MaximumIndividualAmount (${maximum.label})`
        : `one penny above MaximumIndividualAmount (${maximum.label}); it would also cross ${binding?.member ?? ''}`,
    ),
  );
  if (binding === undefined) return { currency: control.MaximumIndividualAmount.Currency, limits, first, walk };
  let count = 0;
  while (cap - spent >= max && count < WALK_MAX_MADE) {
    walk.push(made(max, `inside ${binding.member}: ${fromMinor(spent + max)} of ${fromMinor(cap)}`));
    count++;
  }
  if (cap - spent >= max) {
    binding.reason = `not reached within ${WALK_MAX_MADE + 1} payments of at most ${fromMinor(max)}`;
    binding.walked = false;
    return { currency: control.MaximumIndividualAmount.Currency, limits, first, walk };
  }
  const remaining = cap - spent;
  walk.push(
    refused(
      max,
      binding,
      `would take the payments to ${fromMinor(spent + max)}, above ${binding.member} (${binding.label}): the payment that crosses it`,
    ),
  );
  if (remaining > 0) walk.push(made(remaining, `exactly what is left of ${binding.member}: the limit reached, not passed`));
  walk.push(refused(1, binding, `one penny once ${binding.member} is used up (${binding.label})`));
  return { currency: control.MaximumIndividualAmount.Currency, limits, first, walk };
}
