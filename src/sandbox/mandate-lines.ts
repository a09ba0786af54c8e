// What the PSU's consent page says about a VRP mandate, as a person reads it (pure): the type of payments, who is
// paid, each limit in words with its amount (a calendar period's first, pro-rated amount said too), the dates it is
// valid (the bank's dates, Europe/London) and whether each payment asks the PSU. consent-kinds.ts gives these lines
// to the page (auth/pages.ts); docs/sandbox-vrp.md, "The PSU's authorisation".

/** A line of the page (consent-kinds.ts ConsentLine). */
interface ConsentLine {
  label: string;
  value: string;
}

import type { CashAccount, VrpConsentRecord } from './contracts.js';
import { addDays, bankDateOf, dateText } from './bank-time.js';
import { minorText, periodTypeRow, windowOf } from './resource/vrp-limits.js';
import { AUTHENTICATION_METHODS, vrpTypeRow } from './resource/vrp-tables.js';

/** "Per calendar month", "Per week, counted from 5 June 2026", "Per day". */
function periodLabel(type: string, alignment: string, created: string): string {
  const row = periodTypeRow(type);
  const noun = row?.noun ?? type;
  if (type === 'Day') return 'Per day';
  if (alignment === 'Calendar') {
    const detail = type === 'Week' ? ' (Monday to Sunday)' : type === 'Half-year' ? ' (January to June, July to December)' : '';
    return `Per calendar ${noun}${detail}`;
  }
  return `Per ${noun}, counted from ${created}`;
}

function accountText(account: Partial<CashAccount> | undefined): string | undefined {
  if (account === undefined) return undefined;
  const name = account.Name === undefined ? '' : `${account.Name}, `;
  return `${name}${account.SchemeName ?? ''} ${account.Identification ?? ''}`.trim();
}

/** The consent page's lines of a VRP consent. */
export function mandateLines(consent: VrpConsentRecord): ConsentLine[] {
  const { mandate } = consent;
  const created = bankDateOf(Date.parse(consent.CreationDateTime));
  const initiation = (consent.Data.Initiation ?? {}) as {
    CreditorAccount?: Partial<CashAccount>;
    RemittanceInformation?: Record<string, unknown>;
  };
  const money = (minor: number): string => `${minorText(minor)} ${mandate.currency}`;
  const limits = mandate.periodicLimits.map((limit): ConsentLine => {
    const first = windowOf(limit, created, created);
    const prorated = first.prorated ? `; ${money(first.limitMinor)} until ${dateText(addDays(first.endDate, -1))}` : '';
    return {
      label: periodLabel(limit.PeriodType, limit.PeriodAlignment, dateText(created)),
      value: `Up to ${money(limit.amountMinor)}${prorated}`,
    };
  });
  const reference = initiation.RemittanceInformation?.Reference;
  return [
    { label: 'Type', value: mandate.vrpTypes.map((type) => vrpTypeRow(type)?.label ?? type).join('; ') },
    { label: 'To', value: accountText(initiation.CreditorAccount) ?? 'The payee each payment names' },
    { label: 'Each payment', value: `Up to ${money(mandate.maximumIndividualMinor)}` },
    ...limits,
    { label: 'From', value: mandate.validFrom === undefined ? 'The day you agree' : dateText(bankDateOf(Date.parse(mandate.validFrom))) },
    {
      label: 'Until',
      value: mandate.validTo === undefined ? 'You cancel it' : `${dateText(bankDateOf(Date.parse(mandate.validTo)))}, end of the day`,
    },
    {
      label: 'Payments are made',
      value: mandate.authenticationMethods
        .map((method) => (AUTHENTICATION_METHODS as Readonly<Record<string, string>>)[method] ?? method)
        .join(', or '),
    },
    ...(typeof reference === 'string' ? [{ label: 'Reference', value: reference }] : []),
  ];
}
