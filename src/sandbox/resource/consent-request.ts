// Validation of POST /account-access-consents bodies (OBReadConsent1) as AIS v3.1 "Account Access Consents" and the
// Account and Transaction API Profile require, as pure functions: every fault becomes an OBError1 with a UK.OBIE.*
// code and the JSON path at fault.

import type { ProfileName } from '../contracts.js';
import { tolerates } from '../policy.js';
import { isoInstant } from '../time.js';
import type { ObError } from '../http/io.js';

/** OBExternalPermissions1Code (AIS v3.1). */
export const PERMISSIONS = [
  'ReadAccountsBasic',
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadBeneficiariesBasic',
  'ReadBeneficiariesDetail',
  'ReadDirectDebits',
  'ReadOffers',
  'ReadPAN',
  'ReadParty',
  'ReadPartyPSU',
  'ReadProducts',
  'ReadScheduledPaymentsBasic',
  'ReadScheduledPaymentsDetail',
  'ReadStandingOrdersBasic',
  'ReadStandingOrdersDetail',
  'ReadStatementsBasic',
  'ReadStatementsDetail',
  'ReadTransactionsBasic',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
  'ReadTransactionsDetail',
] as const;

export interface ConsentRequest {
  Permissions: string[];
  ExpirationDateTime?: string;
  TransactionFromDateTime?: string;
  TransactionToDateTime?: string;
}

export type ConsentValidation = { ok: true; request: ConsentRequest } | { ok: false; errors: ObError[] };

const DATE_FIELDS = ['ExpirationDateTime', 'TransactionFromDateTime', 'TransactionToDateTime'] as const;
const DATA_FIELDS = new Set<string>(['Permissions', ...DATE_FIELDS]);

// ISO 8601 date-time as OBIE writes it; the offset is required (RFC 3339 §5.6) unless `lenient`.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/i;

/** Parses an ISO 8601 date-time; undefined when malformed or not a real calendar instant. */
export function parseDateTime(text: string, lenient: boolean): Date | undefined {
  return parseDateTimeParts(text, lenient)?.date;
}

/** parseDateTime, with the fractional seconds as written (`.415`, or '' when none) so the instant can be echoed. */
function parseDateTimeParts(text: string, lenient: boolean): { date: Date; fraction: string } | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zone] = match;
  if (zone === undefined && !lenient) return undefined;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(local);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    return undefined;
  const date = new Date(zone === undefined ? `${text}Z` : text);
  return Number.isNaN(date.getTime()) ? undefined : { date, fraction };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Validates an OBReadConsent1 body for a client of `profile`. Unknown fields are refused unless the profile tolerates
 * consent-unknown-fields (then ignored), and date-times without an offset unless it tolerates consent-local-time (then
 * read as UTC): src/sandbox/policy.ts.
 */
export function validateConsentRequest(body: unknown, now: Date, profile: ProfileName): ConsentValidation {
  const tolerate = { unknownFields: tolerates(profile, 'consent-unknown-fields'), localTime: tolerates(profile, 'consent-local-time') };
  const errors: ObError[] = [];
  if (!isPlainObject(body))
    return {
      ok: false,
      errors: [{ ErrorCode: 'UK.OBIE.Field.Invalid', Message: 'The request body must be a JSON object (OBReadConsent1)', Path: '$' }],
    };
  const data = body.Data;
  if (data === undefined) errors.push({ ErrorCode: 'UK.OBIE.Field.Missing', Message: 'Data is required', Path: 'Data' });
  else if (!isPlainObject(data)) errors.push({ ErrorCode: 'UK.OBIE.Field.Invalid', Message: 'Data must be an object', Path: 'Data' });
  if (body.Risk === undefined)
    errors.push({ ErrorCode: 'UK.OBIE.Field.Missing', Message: 'Risk is required (an empty object for account access)', Path: 'Risk' });
  else if (!isPlainObject(body.Risk)) errors.push({ ErrorCode: 'UK.OBIE.Field.Invalid', Message: 'Risk must be an object', Path: 'Risk' });
  if (!tolerate.unknownFields) {
    for (const key of Object.keys(body))
      if (key !== 'Data' && key !== 'Risk')
        errors.push({ ErrorCode: 'UK.OBIE.Field.Unexpected', Message: `${key} is not a field of OBReadConsent1`, Path: key });
    // OBRisk2 has no properties in AIS v3.1.
    if (isPlainObject(body.Risk))
      for (const key of Object.keys(body.Risk))
        errors.push({ ErrorCode: 'UK.OBIE.Field.Unexpected', Message: `Risk.${key} is not a field of OBRisk2`, Path: `Risk.${key}` });
  }
  if (!isPlainObject(data)) return { ok: false, errors };
  if (!tolerate.unknownFields)
    for (const key of Object.keys(data))
      if (!DATA_FIELDS.has(key))
        errors.push({ ErrorCode: 'UK.OBIE.Field.Unexpected', Message: `Data.${key} is not a field of OBReadData1`, Path: `Data.${key}` });

  const permissions: string[] = [];
  const raw = data.Permissions;
  if (raw === undefined)
    errors.push({ ErrorCode: 'UK.OBIE.Field.Missing', Message: 'Data.Permissions is required', Path: 'Data.Permissions' });
  else if (!Array.isArray(raw) || raw.length === 0)
    errors.push({ ErrorCode: 'UK.OBIE.Field.Invalid', Message: 'Data.Permissions must be a non-empty array', Path: 'Data.Permissions' });
  else {
    raw.forEach((permission: unknown, index) => {
      if (typeof permission !== 'string' || !(PERMISSIONS as readonly string[]).includes(permission)) {
        errors.push({
          ErrorCode: 'UK.OBIE.Field.Invalid',
          Message: `${JSON.stringify(permission)} is not an OBExternalPermissions1Code`,
          Path: `Data.Permissions[${index}]`,
        });
      } else if (!permissions.includes(permission)) permissions.push(permission);
    });
    if (!errors.some((error) => error.Path?.startsWith('Data.Permissions['))) {
      const has = (name: string): boolean => permissions.includes(name);
      // Account and Transaction API Profile, "Permissions": Basic/Detail need Credits and/or Debits and vice versa.
      const txnLevel = has('ReadTransactionsBasic') || has('ReadTransactionsDetail');
      const txnDirection = has('ReadTransactionsCredits') || has('ReadTransactionsDebits');
      if (txnLevel && !txnDirection)
        errors.push({
          ErrorCode: 'UK.OBIE.Field.Invalid',
          Message: 'ReadTransactionsBasic/Detail need ReadTransactionsCredits and/or ReadTransactionsDebits',
          Path: 'Data.Permissions',
        });
      if (txnDirection && !txnLevel)
        errors.push({
          ErrorCode: 'UK.OBIE.Field.Invalid',
          Message: 'ReadTransactionsCredits/Debits need ReadTransactionsBasic or ReadTransactionsDetail',
          Path: 'Data.Permissions',
        });
      // Every AIS read is scoped to accounts: this bank requires ReadAccountsBasic or ReadAccountsDetail.
      if (permissions.length > 0 && !has('ReadAccountsBasic') && !has('ReadAccountsDetail'))
        errors.push({
          ErrorCode: 'UK.OBIE.Field.Invalid',
          Message: 'Data.Permissions must include ReadAccountsBasic or ReadAccountsDetail',
          Path: 'Data.Permissions',
        });
    }
  }
  const request: ConsentRequest = { Permissions: permissions };
  const dates: Partial<Record<(typeof DATE_FIELDS)[number], Date>> = {};
  for (const field of DATE_FIELDS) {
    const value = data[field];
    if (value === undefined) continue;
    const parsed = typeof value === 'string' ? parseDateTimeParts(value, tolerate.localTime) : undefined;
    if (!parsed) {
      errors.push({
        ErrorCode: 'UK.OBIE.Field.InvalidDate',
        Message: `Data.${field} must be an ISO 8601 date-time with a time zone, e.g. 2017-04-05T10:43:07+00:00`,
        Path: `Data.${field}`,
      });
      continue;
    }
    dates[field] = parsed.date;
    // The same instant the TPP asked for, fractional seconds included (AIS v3.1 ISODateTime), in UTC.
    request[field] = isoInstant(parsed.date, parsed.fraction);
  }
  if (dates.ExpirationDateTime && dates.ExpirationDateTime.getTime() <= now.getTime()) {
    errors.push({
      ErrorCode: 'UK.OBIE.Field.InvalidDate',
      Message: 'Data.ExpirationDateTime must be in the future',
      Path: 'Data.ExpirationDateTime',
    });
  }
  if (
    dates.TransactionFromDateTime &&
    dates.TransactionToDateTime &&
    dates.TransactionFromDateTime.getTime() > dates.TransactionToDateTime.getTime()
  ) {
    errors.push({
      ErrorCode: 'UK.OBIE.Field.InvalidDate',
      Message: 'Data.TransactionToDateTime must not be before Data.TransactionFromDateTime',
      Path: 'Data.TransactionToDateTime',
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, request };
}
