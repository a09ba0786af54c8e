// The code mappings between AIS v3.1 and v4.0 as data, one table per code set (pure, no behaviour): what the emulator
// writes on /open-banking/v4.0/aisp for a value it writes on v3.1. The left side is the v3.1 OpenAPI enum value, the
// right the v4.0 one; test/unit/sandbox-v4-codes.test.ts ties each right side to the official code set CSVs
// (../shared/specs/obl-internal-codeset.csv, obl-iso-external-codeset.csv) and the v4.0 OpenAPI file.

/** v3.1 OBBalanceType1Code (names) → v4.0 OBBalanceType1Code (ISO 20022 ExternalBalanceType1Code, whose code names
 *  are the v3.1 names; v3.1's *Cleared types have no ISO twin and are not mapped). */
export const BALANCE_TYPE = {
  ClosingAvailable: 'CLAV',
  ClosingBooked: 'CLBD',
  Expected: 'XPCD',
  ForwardAvailable: 'FWAV',
  Information: 'INFO',
  InterimAvailable: 'ITAV',
  InterimBooked: 'ITBD',
  OpeningAvailable: 'OPAV',
  OpeningBooked: 'OPBD',
  PreviouslyClosedBooked: 'PRCD',
} as const;

/** v3.1 OBExternalAccountType1Code → v4.0 AccountCategory (OBInternalAccountType1Code): the same two words. */
export const ACCOUNT_CATEGORY = { Business: 'Business', Personal: 'Personal' } as const;

/** v3.1 OBExternalAccountSubType1Code → v4.0 AccountTypeCode (OBExternalCashAccountType1Code, ISO 20022 names). Only
 *  the sub-types whose ISO name says the same thing; the bank's accounts use the first two. */
export const ACCOUNT_TYPE_CODE = {
  CurrentAccount: 'CACC',
  Savings: 'SVGS',
  CreditCard: 'CARD',
  Loan: 'LOAN',
  Mortgage: 'MORT',
} as const;

/** v3.1 OBEntryStatus1Code → v4.0 ExternalEntryStatus1Code (ISO code names = the v3.1 names). */
export const ENTRY_STATUS = { Booked: 'BOOK', Pending: 'PDNG', Rejected: 'RJCT' } as const;

/**
 * v3.1 consent Status (OBExternalRequestStatus1Code) → v4.0 OBInternalConsentStatus1Code, with the StatusReason the
 * consent carries in that status (OBExternalStatusReason1Code value and its code-set name), or none. A consent past
 * its ExpirationDateTime reads EXPD (the code set: "marked as expired after expiry of validity date"). Account-access
 * and funds-confirmation consents (the CBPII v4.0 Status enum is the AIS one).
 */
export const CONSENT_STATUS = {
  AwaitingAuthorisation: { code: 'AWAU', reason: { code: 'U036', name: 'Authorisation not completed' } },
  Authorised: { code: 'AUTH', reason: undefined },
  Rejected: { code: 'RJCT', reason: { code: 'U037', name: 'Authorisation failed' } },
  Revoked: { code: 'CANC', reason: undefined },
  Expired: { code: 'EXPD', reason: undefined },
} as const satisfies Record<string, { code: string; reason: { code: string; name: string } | undefined }>;

/** A domestic-payment consent's v4.0 Status (OBWriteDomesticConsentResponse5: AWAU, RJCT, AUTH, COND): the AIS rows
 *  it shares, and Consumed → COND ("consumed after payment request is submitted by the PISP") with U038. */
export const PAYMENT_CONSENT_STATUS = {
  AwaitingAuthorisation: CONSENT_STATUS.AwaitingAuthorisation,
  Authorised: CONSENT_STATUS.Authorised,
  Rejected: CONSENT_STATUS.Rejected,
  Consumed: { code: 'COND', reason: { code: 'U038', name: 'Consent consumed successfully' } },
} as const satisfies Record<string, { code: string; reason: { code: string; name: string } | undefined }>;

/**
 * The v3.1 error codes the emulator uses → v4.0 ErrorCode (OBExternalStatusReason1Code value) and the HTTP status
 * category the code set gives it. A v4.0 error body only ever carries a code whose category matches its status.
 */
export const ERROR_CODE = {
  'UK.OBIE.Field.Expected': { code: 'U001', category: '400' },
  'UK.OBIE.Field.Invalid': { code: 'U002', category: '400' },
  'UK.OBIE.Field.InvalidDate': { code: 'U003', category: '400' },
  'UK.OBIE.Field.Missing': { code: 'U004', category: '400' },
  'UK.OBIE.Field.Unexpected': { code: 'U005', category: '400' },
  'UK.OBIE.Header.Invalid': { code: 'U006', category: '400' },
  'UK.OBIE.Header.Missing': { code: 'U007', category: '400' },
  'UK.OBIE.Resource.ConsentMismatch': { code: 'U008', category: '400' },
  'UK.OBIE.Resource.InvalidConsentStatus': { code: 'U009', category: '400' },
  'UK.OBIE.Resource.InvalidFormat': { code: 'U010', category: '400' },
  'UK.OBIE.Resource.NotFound': { code: 'U011', category: '400' },
  'UK.OBIE.Signature.Invalid': { code: 'U015', category: '400' },
  'UK.OBIE.Signature.InvalidClaim': { code: 'U016', category: '400' },
  'UK.OBIE.Signature.MissingClaim': { code: 'U017', category: '400' },
  'UK.OBIE.Signature.Malformed': { code: 'U018', category: '400' },
  'UK.OBIE.Signature.Missing': { code: 'U019', category: '400' },
  'UK.OBIE.Unsupported.Currency': { code: 'U023', category: '400' },
  'UK.OBIE.Unsupported.Scheme': { code: 'U027', category: '400' },
  'UK.OBIE.Reauthenticate': { code: 'U028', category: '403' },
  // The VRP files' code for a payment outside its consent's ControlParameters (v3.1.11 OBError1 lists it; v4.0 U014).
  'UK.OBIE.Rules.FailsControlParameters': { code: 'U014', category: '400' },
  // No v3.1 file has this code (v3.1 answers a reused idempotency key 400, refusals.ts): the code set's name of U029.
  'UK.OBIE.Rules.ResourceAlreadyExists': { code: 'U029', category: '409' },
  'UK.OBIE.UnexpectedError': { code: 'U000', category: '5xx' },
} as const satisfies Record<string, { code: string; category: string }>;

export type V31ErrorCode = keyof typeof ERROR_CODE;

/** Does a status fall in a code set category ("400", "403", "5xx")? */
export function inCategory(status: number, category: string): boolean {
  return category.endsWith('xx') ? String(status).startsWith(category.slice(0, 1)) : String(status) === category;
}
