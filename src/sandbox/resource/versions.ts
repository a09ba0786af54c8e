// What differs between the two versions the payments and funds families serve (v3.1 = 3.1.11, v4.0), one row each
// (pure): how a refusal reads, the status of a body over the limit, how a consent's status is written, and the order of
// the versions. The handlers ask the row of their call's version; no version literal is compared anywhere else.

import type { AisApiVersion, AnyConsentRecord } from '../contracts.js';
import type { ObieError } from '../http/errors.js';
import { toV4Error } from './refusals.js';
import { consentStatusV4 } from './render-v4.js';

export interface VersionRow {
  /** Older versions rank lower (a v3.1 consent serves v4.0, docs/sandbox-payments.md). */
  rank: number;
  /** A refusal in the version's words: v3.1 as thrown (the v3.1.11 files' ErrorCodes); v4.0 each code its
   *  OBExternalStatusReason1Code (refusals.ts toV4Error). */
  worded(error: ObieError): ObieError;
  /** The status of a body over the emulator's limit: 413 where the files allow it, else 400 (v4.0 documents no 413). */
  tooLargeStatus: number;
  /** A consent's `Status` (and `StatusReason`) as the version writes them. */
  consentStatus(consent: AnyConsentRecord, now: Date): Record<string, unknown>;
}

export const VERSION_ROWS: Readonly<Record<AisApiVersion, VersionRow>> = {
  '3.1': {
    rank: 0,
    worded: (error) => error,
    tooLargeStatus: 413,
    consentStatus: (consent) => ({ Status: consent.Status }),
  },
  '4.0': {
    rank: 1,
    worded: toV4Error,
    tooLargeStatus: 400,
    consentStatus: (consent, now) => {
      const { code, reason } = consentStatusV4(consent, now);
      return {
        Status: code,
        ...(reason === undefined ? {} : { StatusReason: [{ StatusReasonCode: reason.code, StatusReasonDescription: reason.name }] }),
      };
    },
  },
};

/** The oldest version: what a record that names none was made on (consents stored before v4.0 was served). */
const FIRST_VERSION: AisApiVersion = (Object.entries(VERSION_ROWS) as [AisApiVersion, VersionRow][]).reduce((oldest, row) =>
  row[1].rank < oldest[1].rank ? row : oldest,
)[0];

/** The version a consent was created on. */
export function createdOn(consent: AnyConsentRecord): AisApiVersion {
  return consent.apiVersion ?? FIRST_VERSION;
}
