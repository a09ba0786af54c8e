// Pieces the payments (PISP) and funds (CBPII) steps share: one row per API version of what they write differently
// (base path, schemas, error shape, the status words of each state, the refusals the standard allows), the headers of
// their calls, and a signed, idempotent POST (OB R/W Data API Profile, "Message Signing" and "Idempotency").
// Family-agnostic where it can be: a VRP family is another base path, its schemas and its status words.

import { API_FAMILIES, type ApiFamily } from '../../api-families.js';
import { apiBasePath, apiLabel, type ApiVersion } from '../api-versions.js';
import type { Checks, RequestBody, RequestItemSpec, ResponseSchema, ScriptPart, StepContext } from '../model.js';
import type { FamilyV31SchemaName } from '../schemas.js';
import { AIS_CONTENT_TYPE, checks, v4SchemaOf } from './common.js';

/** What a family's steps write differently per API version (src/generate/api-versions.ts has the version's own row). */
export interface FamilyVersion {
  /** `{{rs}}` and the family's base path in the version (its OpenAPI file's `servers`). */
  base: string;
  /** How descriptions name the API (`PIS v4.0`). */
  label: string;
  /** The version's schema of a response (templates/schemas/). */
  schema(name: FamilyV31SchemaName): ResponseSchema;
  /** The error shape and schema of the version's answers with another status. */
  errors: Pick<Checks, 'errors' | 'errorSchema'>;
}

/** The status words of a payment consent and a payment in a version (v3.1.11 names; v4.0 ISO 20022 codes of
 *  OBInternalConsentStatus1Code and ExternalPaymentTransactionStatus1Code: the files' enums). */
export interface PaymentStatuses {
  consentAwaiting: string;
  consentAuthorised: string;
  consentConsumed: string;
  /** A payment the bank did not make (its files' rejected states). */
  paymentNotMade: readonly string[];
}

/** The refusals the standard allows for a request refused on its content: the 4xx statuses the version's file
 *  documents for the operation, but 401, 405, 406, 415 and 429, which say something else (authentication, method,
 *  media types, rate). test/unit/payments-flow.test.ts derives them from the files. */
export interface Refusals {
  consent: readonly number[];
  payment: readonly number[];
}

export interface PaymentVersion extends FamilyVersion {
  statuses: PaymentStatuses;
  refusals: Refusals;
  /** The body template of the version's Initiation (templates/bodies/): v4.0's RemittanceInformation is structured. */
  body: string;
}

export interface FundsVersion extends FamilyVersion {
  consentAwaiting: string;
  consentAuthorised: string;
}

export function familyVersion(family: ApiFamily, version: ApiVersion, v4: boolean, error: FamilyV31SchemaName): FamilyVersion {
  const schema = (name: FamilyV31SchemaName): ResponseSchema => (v4 ? v4SchemaOf(name) : name);
  return {
    base: `{{rs}}${apiBasePath(family, version)}`,
    label: apiLabel(family, version),
    schema,
    errors: { errors: v4 ? 'obie-v4' : 'obie', errorSchema: schema(error) },
  };
}

/** One row per version of the payments steps. */
export const PAYMENT_VERSIONS: Readonly<Record<ApiVersion, PaymentVersion>> = {
  '3.1': {
    ...familyVersion(API_FAMILIES.payments, '3.1', false, 'obie-pis-error'),
    statuses: {
      consentAwaiting: 'AwaitingAuthorisation',
      consentAuthorised: 'Authorised',
      consentConsumed: 'Consumed',
      paymentNotMade: ['Rejected'],
    },
    refusals: { consent: [400, 403], payment: [400, 403] },
    body: 'domestic-payment-v3.1',
  },
  '4.0': {
    ...familyVersion(API_FAMILIES.payments, '4.0', true, 'obie-pis-error'),
    statuses: { consentAwaiting: 'AWAU', consentAuthorised: 'AUTH', consentConsumed: 'COND', paymentNotMade: ['RJCT', 'BLCK'] },
    // v4.0 adds 409 to POST /domestic-payments ("a resource with same parameters already exists", U029).
    refusals: { consent: [400, 403], payment: [400, 403, 409] },
    body: 'domestic-payment-v4.0',
  },
};

/** One row per version of the funds steps. */
export const FUNDS_VERSIONS: Readonly<Record<ApiVersion, FundsVersion>> = {
  '3.1': {
    ...familyVersion(API_FAMILIES.funds, '3.1', false, 'obie-cof-error'),
    consentAwaiting: 'AwaitingAuthorisation',
    consentAuthorised: 'Authorised',
  },
  '4.0': { ...familyVersion(API_FAMILIES.funds, '4.0', true, 'obie-cof-error'), consentAwaiting: 'AWAU', consentAuthorised: 'AUTH' },
};

export function pis(context: Pick<StepContext, 'apiVersion'>): PaymentVersion {
  return PAYMENT_VERSIONS[context.apiVersion];
}

export function cof(context: Pick<StepContext, 'apiVersion'>): FundsVersion {
  return FUNDS_VERSIONS[context.apiVersion];
}

/** Content-Type of the requests with a body and of every answer with one (the files: application/json; charset=utf-8). */
export const PAYMENT_CONTENT_TYPE = AIS_CONTENT_TYPE;

/** The headers of a payments or funds call: neither version's files define x-fapi-financial-id for these APIs; the
 *  interaction id is Postman's fresh `{{$guid}}` (a header: no signed body holds a dynamic variable). */
export function familyHeaders(
  tokenVariable: 'access_token' | 'client_credentials_token',
  extra: readonly (readonly [string, string])[] = [],
): readonly (readonly [string, string])[] {
  return [
    ['Accept', 'application/json'],
    ['Authorization', `Bearer {{${tokenVariable}}}`],
    ['x-fapi-interaction-id', '{{$guid}}'],
    ...extra,
  ];
}

/** The checks of an answer of the version's API: its status, the interaction id echoed, the content type, the schema,
 *  and the error shape of another status. */
export function answerChecks(version: FamilyVersion, status: number, schema?: FamilyV31SchemaName): ScriptPart[] {
  return checks({
    status,
    echo: 'required',
    ...(schema !== undefined ? { schema: version.schema(schema), contentType: PAYMENT_CONTENT_TYPE } : {}),
    ...version.errors,
  });
}

/** The bank's x-jws-signature on every answer with a body, refusals too (OB R/W Data API Profile, "Message Signing":
 *  "The TPP should verify the signature of API responses"); templates/scripts/jws-verify.test.js. */
export const BANK_SIGNATURE: ScriptPart = { template: 'jws-verify.test', answer: 'any' };

/** The pre-request part that signs the body as sent (templates/scripts/jws-sign.prerequest.js). */
export const SIGN_BODY: ScriptPart = { template: 'jws-sign.prerequest' };

/** A signed, idempotent POST (the payments' two: the consent and the payment): the body template, the key's variable;
 *  the item's own pre-request parts run first (they set the ids the body names), then the signature. */
export function signedPost(input: {
  url: string;
  tokenVariable: 'access_token' | 'client_credentials_token';
  keyVariable: string;
  body: Extract<RequestBody, { mode: 'raw' }>;
  prerequest: readonly ScriptPart[];
}): Pick<RequestItemSpec, 'method' | 'url' | 'headers' | 'body' | 'prerequest'> {
  return {
    method: 'POST',
    url: input.url,
    headers: familyHeaders(input.tokenVariable, [
      ['Content-Type', PAYMENT_CONTENT_TYPE],
      ['x-idempotency-key', `{{${input.keyVariable}}}`],
    ]),
    body: input.body,
    prerequest: [...input.prerequest, SIGN_BODY],
  };
}

/** The payment's body (the consent's, and with `payment` the payment's, which names the consent), with the amount of
 *  `amountVariable` (another amount: the changed body the replay checks send under the same key). */
export function paymentBody(
  context: Pick<StepContext, 'apiVersion'>,
  options: { payment: boolean; amountVariable: 'payment_amount' | 'payment_changed_amount' },
): Extract<RequestBody, { mode: 'raw' }> {
  return {
    mode: 'raw',
    template: pis(context).body,
    contentType: PAYMENT_CONTENT_TYPE,
    params: { payment: options.payment, amount: `{{${options.amountVariable}}}` },
  };
}
