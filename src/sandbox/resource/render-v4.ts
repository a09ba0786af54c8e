// AIS v4.0 payloads from the v3.1 ones (pure): the same accounts, balances, transactions and consents, with the
// v4.0 field names and ISO 20022 code values of src/sandbox/resource/v4-codes.ts. One function per payload; the
// mappings are the tables, not branches here.

import { consentKindOf } from '../contracts.js';
import type { AnyConsentRecord, ConsentKind, ConsentStatus } from '../contracts.js';
import { consentEndsAt } from '../store/consents.js';
import { ACCOUNT_CATEGORY, ACCOUNT_TYPE_CODE, BALANCE_TYPE, CONSENT_STATUS, ENTRY_STATUS, PAYMENT_CONSENT_STATUS } from './v4-codes.js';

type Json = Record<string, unknown>;

function mapped(table: Readonly<Record<string, string>>, value: unknown, what: string): string {
  const code = typeof value === 'string' ? table[value] : undefined;
  if (code === undefined) throw new TypeError(`no v4.0 code for ${what} ${String(value)}`);
  return code;
}

/** OBAccount6 (v4.0): AccountType → AccountCategory, AccountSubType → AccountTypeCode, in the v4.0 field order. */
export function accountV4(v31: Json): Json {
  const { AccountId, Currency, AccountType, AccountSubType, ...rest } = v31;
  return {
    AccountId,
    Currency,
    AccountCategory: mapped(ACCOUNT_CATEGORY, AccountType, 'AccountType'),
    AccountTypeCode: mapped(ACCOUNT_TYPE_CODE, AccountSubType, 'AccountSubType'),
    ...rest,
  };
}

/** OBReadBalance1 Balance (v4.0): Type as its ISO code (InterimAvailable → ITAV). */
export function balanceV4(v31: Json): Json {
  return { ...v31, Type: mapped(BALANCE_TYPE, v31.Type, 'balance Type') };
}

/** OBTransaction6 (v4.0): Status as ExternalEntryStatus1Code, the running Balance's Type as its ISO code. */
export function transactionV4(v31: Json): Json {
  const out: Json = { ...v31, Status: mapped(ENTRY_STATUS, v31.Status, 'transaction Status') };
  const balance = v31.Balance as Json | undefined;
  if (balance !== undefined) out.Balance = balanceV4(balance);
  return out;
}

type StatusRow = { readonly code: string; readonly reason: { readonly code: string; readonly name: string } | undefined };

/** Each kind's v4.0 status words (v4-codes.ts): a payment consent's, or the AIS ones (CBPII has the same). */
const STATUS_OF_KIND: Readonly<Record<ConsentKind, Readonly<Partial<Record<ConsentStatus | 'Expired', StatusRow>>>>> = {
  'account-access': CONSENT_STATUS,
  'funds-confirmation': CONSENT_STATUS,
  'domestic-payment': PAYMENT_CONSENT_STATUS,
  // VRP v4.0 domestic-vrp-consents, "State Model": AWAU, RJCT, AUTH, CANC, EXPD — the AIS words.
  'domestic-vrp': CONSENT_STATUS,
};

/** The consent's v4.0 status at `now`: a consent that has ended (its ExpirationDateTime, a VRP consent's ValidToDateTime:
 *  store/consents.ts consentEndsAt) is EXPD (v3.1 has no such status). */
export function consentStatusV4(consent: AnyConsentRecord, now: Date): StatusRow {
  const ends = consentEndsAt(consent);
  const expired = consent.Status === 'Authorised' && ends !== undefined && ends <= now.getTime();
  const row = STATUS_OF_KIND[consentKindOf(consent)][expired ? 'Expired' : consent.Status];
  if (row === undefined) throw new TypeError(`no v4.0 status for a ${consentKindOf(consent)} consent ${consent.Status}`);
  return row;
}

/** OBReadConsentResponse1 Data (v4.0): Status as OBInternalConsentStatus1Code, with its StatusReason when it has one. */
export function consentDataV4(v31: Json, consent: AnyConsentRecord, now: Date): Json {
  const status = consentStatusV4(consent, now);
  const { ConsentId, CreationDateTime, Status: _status, StatusUpdateDateTime, ...rest } = v31;
  return {
    ConsentId,
    CreationDateTime,
    Status: status.code,
    ...(status.reason === undefined
      ? {}
      : { StatusReason: [{ StatusReasonCode: status.reason.code, StatusReasonDescription: status.reason.name }] }),
    StatusUpdateDateTime,
    ...rest,
  };
}
