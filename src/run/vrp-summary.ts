// The mandate as a person reads it, from the state the VRP steps write (vrp_control_parameters: the consent's limits as
// the bank created them; vrp_walk: each payment made or refused, in order): each limit, how much of it the run used and
// which payment hit it. The terminal summary prints it (src/run/summary.ts); docs/collections.md, "The mandate walk".

/** One limit of the mandate and what the run did against it. */
export interface VrpLimitUse {
  /** `MaximumIndividualAmount` or `PeriodicLimits[i]`. */
  member: string;
  /** "at most 10.00 GBP a payment", "25.00 GBP a Day (Consent)". */
  label: string;
  /** For a periodic limit: what the payments made add up to (they all fall in the run's period); for the individual
   *  maximum: the largest payment made. */
  usedMinor: number;
  limitMinor: number;
  currency: string;
  /** The payments refused at this limit, each with what had been made before it. */
  refused: { amount: string; beforeMinor: number; errorCode: string }[];
}

export interface VrpMandateRow {
  consentId?: string;
  consentStatus?: string;
  vrpType?: string;
  made: number;
  madeMinor: number;
  refused: number;
  /** A refusal the plan expected that the bank did not make (a payment made past a limit). */
  madePastLimit: number;
  limits: VrpLimitUse[];
}

type Values = readonly { key: string; value: string; type?: string }[];

function text(values: Values, key: string): string | undefined {
  const entry = values.find((candidate) => candidate.key === key && candidate.type !== 'secret');
  return entry === undefined || entry.value === '' ? undefined : entry.value;
}

function json(values: Values, key: string): unknown {
  const value = text(values, key);
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** An OBActiveCurrencyAndAmount text in hundredths (the config holds VRP amounts to two decimals). */
function minor(amount: unknown): number {
  if (typeof amount !== 'string' || !/^\d+(\.\d+)?$/.test(amount)) return 0;
  const [units = '0', decimals = ''] = amount.split('.');
  return Number(units) * 100 + Number(decimals.padEnd(2, '0').slice(0, 2));
}

export function money(minorUnits: number): string {
  return `${Math.floor(minorUnits / 100)}.${String(minorUnits % 100).padStart(2, '0')}`;
}

interface WalkEntry {
  Amount?: unknown;
  Outcome?: unknown;
  Limit?: unknown;
  ErrorCode?: unknown;
}
interface Control {
  VRPType?: unknown;
  MaximumIndividualAmount?: { Amount?: unknown; Currency?: unknown };
  PeriodicLimits?: { Amount?: unknown; Currency?: unknown; PeriodType?: unknown; PeriodAlignment?: unknown }[];
}

/** The mandate the run used, when it reached the VRP consent; `current(key)` says whether a value is this run's. */
export function vrpMandateFromValues(values: Values, current: (key: string) => boolean = () => true): VrpMandateRow | undefined {
  const control = (current('vrp_control_parameters') ? json(values, 'vrp_control_parameters') : undefined) as Control | undefined;
  if (control === undefined || control === null) return undefined;
  const walked = current('vrp_walk') ? json(values, 'vrp_walk') : undefined;
  const walk = (Array.isArray(walked) ? walked : []) as WalkEntry[];
  const currency = String(control.MaximumIndividualAmount?.Currency ?? '');
  const madeAmounts: number[] = [];
  const refusals = new Map<string, VrpLimitUse['refused']>();
  let madePastLimit = 0;
  let refused = 0;
  for (const entry of walk) {
    const amount = minor(entry.Amount);
    const limit = typeof entry.Limit === 'string' ? entry.Limit : undefined;
    if (entry.Outcome === 'made') {
      if (limit !== undefined) madePastLimit++;
      madeAmounts.push(amount);
    } else if (limit !== undefined) {
      refused++;
      const list = refusals.get(limit) ?? [];
      list.push({
        amount: String(entry.Amount),
        beforeMinor: madeAmounts.reduce((sum, value) => sum + value, 0),
        errorCode: String(entry.ErrorCode ?? ''),
      });
      refusals.set(limit, list);
    }
  }
  const total = madeAmounts.reduce((sum, value) => sum + value, 0);
  const limits: VrpLimitUse[] = [
    {
      member: 'MaximumIndividualAmount',
      label: `at most ${String(control.MaximumIndividualAmount?.Amount ?? '')} ${currency} a payment`,
      usedMinor: Math.max(0, ...madeAmounts),
      limitMinor: minor(control.MaximumIndividualAmount?.Amount),
      currency,
      refused: refusals.get('MaximumIndividualAmount') ?? [],
    },
    ...(control.PeriodicLimits ?? []).map((limit, index): VrpLimitUse => {
      const member = `PeriodicLimits[${index}]`;
      return {
        member,
        label: `${String(limit.Amount ?? '')} ${String(limit.Currency ?? '')} a ${String(limit.PeriodType ?? '')} (${String(limit.PeriodAlignment ?? '')})`,
        usedMinor: total,
        limitMinor: minor(limit.Amount),
        currency: String(limit.Currency ?? ''),
        refused: refusals.get(member) ?? [],
      };
    }),
  ];
  const consentId = text(values, 'consent_id');
  const consentStatus = current('vrp_consent_status') ? text(values, 'vrp_consent_status') : undefined;
  const types = Array.isArray(control.VRPType) ? control.VRPType.map(String).join(', ') : undefined;
  return {
    ...(consentId !== undefined ? { consentId } : {}),
    ...(consentStatus !== undefined ? { consentStatus } : {}),
    ...(types !== undefined ? { vrpType: types } : {}),
    made: madeAmounts.length,
    madeMinor: total,
    refused,
    madePastLimit,
    limits,
  };
}

/** The terminal's lines: the mandate, then one line per limit (used, and the payments refused there). */
export function vrpMandateLines(row: VrpMandateRow): string[] {
  const currency = row.limits[0]?.currency ?? '';
  const head =
    `VRP mandate${row.consentId !== undefined ? ` ${row.consentId}` : ''}${row.vrpType !== undefined ? ` (${row.vrpType})` : ''}` +
    `${row.consentStatus !== undefined ? `, consent ${row.consentStatus}` : ''}: ${row.made} payment${row.made === 1 ? '' : 's'} made ` +
    `(${money(row.madeMinor)} ${currency}), ${row.refused} refused at a limit` +
    `${row.madePastLimit > 0 ? `, ${row.madePastLimit} made past a limit` : ''}`;
  return [
    head,
    ...row.limits.map((limit) => {
      const used =
        limit.member === 'MaximumIndividualAmount'
          ? `largest payment ${money(limit.usedMinor)} ${limit.currency}`
          : `${money(limit.usedMinor)} of ${money(limit.limitMinor)} ${limit.currency} used`;
      const hit = limit.refused
        .map((refusal) => `${refusal.amount} ${limit.currency} refused after ${money(refusal.beforeMinor)} (${refusal.errorCode})`)
        .join('; ');
      return `  ${limit.member}, ${limit.label}: ${used}${hit === '' ? '' : `; ${hit}`}`;
    }),
  ];
}
