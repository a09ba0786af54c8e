// Refusals per version, as data: what a refusal that is not a plain field error (a consent that cannot serve the
// read, a permission it lacks, an idempotency key reused with another body) answers on each version, and how a v3.1 refusal becomes its v4.0 twin. v4.0 error
// bodies carry OBExternalStatusReason1Code values whose HTTP category (OB Internal code set) matches the status;
// where the v4.0 OpenAPI defines no body for a status (401, 404, 405, 406, 415, 429), none is sent, and where it
// defines one (400, 403, 500), one is.

import type { AisApiVersion } from '../contracts.js';
import { ObieError } from '../http/errors.js';
import type { ObError } from '../http/io.js';
import { ERROR_CODE, inCategory } from './v4-codes.js';
import type { V31ErrorCode } from './v4-codes.js';

/** One version's answer to a refusal: a status, and the (v3.1-named) error code of its body; none: an empty body. On
 *  v4.0 the code is one of ERROR_CODE's, translated by toV4Error like any other. */
interface RefusalAnswer {
  status: number;
  errorCode: string | undefined;
}

/**
 * The refusals whose answer differs by version. v3.1 (bank-interface §4.5): 403 with a body for each. v4.0: the code
 * set gives UK.OBIE.Resource.InvalidConsentStatus (U009) the 400 category and names it for "a consent not in a status
 * that would allow … a request to be executed"; the v4.0 OpenAPI file documents an OBErrorResponse1 body for 403, and
 * the one code of the 403 category is UK.OBIE.Reauthenticate (U028, "re-authentication by the PSU is required"): an
 * expired consent, and a token whose consent or scope lacks what the read needs (the PSU must authorise one that has it).
 */
export const REFUSALS = {
  'consent-not-authorised': {
    '3.1': { status: 403, errorCode: 'UK.OBIE.Resource.InvalidConsentStatus' },
    '4.0': { status: 400, errorCode: 'UK.OBIE.Resource.InvalidConsentStatus' },
  },
  'consent-expired': {
    '3.1': { status: 403, errorCode: 'UK.OBIE.Resource.InvalidConsentStatus' },
    '4.0': { status: 403, errorCode: 'UK.OBIE.Reauthenticate' },
  },
  'consent-other-version': {
    '3.1': { status: 403, errorCode: 'UK.OBIE.Resource.InvalidConsentStatus' },
    '4.0': { status: 400, errorCode: 'UK.OBIE.Resource.InvalidConsentStatus' },
  },
  'permission-missing': {
    '3.1': { status: 403, errorCode: 'UK.OBIE.Resource.ConsentMismatch' },
    '4.0': { status: 403, errorCode: 'UK.OBIE.Reauthenticate' },
  },
  'scope-missing': {
    '3.1': { status: 403, errorCode: 'UK.OBIE.UnexpectedError' },
    '4.0': { status: 403, errorCode: 'UK.OBIE.Reauthenticate' },
  },
  // OB R/W Data API Profile v4.0, "Idempotency": a key reused with another body must not modify the resource; the
  // answer is the files'. POST /domestic-payment-consents documents no 409 in either file: 400 naming the header.
  'consent-key-reused': {
    '3.1': { status: 400, errorCode: 'UK.OBIE.Header.Invalid' },
    '4.0': { status: 400, errorCode: 'UK.OBIE.Header.Invalid' },
  },
  // POST /domestic-payments: v3.1.11 documents no 409 (400 naming the header); v4.0 adds 409 (409Error, an
  // OBErrorResponse1) and the code set gives U029 (UK.OBIE.Rules.ResourceAlreadyExists, "a resource with same
  // parameters already exists") the 409 category.
  'payment-key-reused': {
    '3.1': { status: 400, errorCode: 'UK.OBIE.Header.Invalid' },
    '4.0': { status: 409, errorCode: 'UK.OBIE.Rules.ResourceAlreadyExists' },
  },
  // POST /domestic-vrp-consents and POST /domestic-vrps: both VRP files (v3.1.11 and v4.0) document 409 for them, and
  // the v3.1.11 file's OBError1 list has UK.OBIE.Rules.ResourceAlreadyExists (v4.0 U029).
  'vrp-key-reused': {
    '3.1': { status: 409, errorCode: 'UK.OBIE.Rules.ResourceAlreadyExists' },
    '4.0': { status: 409, errorCode: 'UK.OBIE.Rules.ResourceAlreadyExists' },
  },
} as const satisfies Record<string, { '3.1': RefusalAnswer; '4.0': { status: number; errorCode: V31ErrorCode | undefined } }>;

export type RefusalKind = keyof typeof REFUSALS;

/** A refusal of a kind in REFUSALS, answered as its version's row says. */
export class AisRefusal extends ObieError {
  constructor(
    readonly kind: RefusalKind,
    version: AisApiVersion,
    message: string,
  ) {
    const answer: RefusalAnswer = REFUSALS[kind][version];
    super(answer.status, message, answer.errorCode === undefined ? [] : [{ ErrorCode: answer.errorCode, Message: message }]);
  }
}

/**
 * The v4.0 twin of an error a handler threw: each OBError1's code as its OBExternalStatusReason1Code value. A code
 * that has no v4.0 value, or whose category does not match the status, is a TypeError (an emulator bug, answered 500
 * U000 by the caller): the table, not the call site, decides what v4.0 says.
 */
export function toV4Error(error: ObieError): ObieError {
  if (error.errors.length === 0) return error;
  const errors: ObError[] = error.errors.map((entry) => {
    const row = (ERROR_CODE as Record<string, { code: string; category: string } | undefined>)[entry.ErrorCode];
    if (row === undefined) throw new TypeError(`no v4.0 ErrorCode for ${entry.ErrorCode}`);
    if (!inCategory(error.status, row.category))
      throw new TypeError(`${entry.ErrorCode} (${row.code}) is a ${row.category} code, not for a ${error.status}`);
    return { ...entry, ErrorCode: row.code };
  });
  return new ObieError(error.status, error.message, errors, error.headers, error.reference);
}
