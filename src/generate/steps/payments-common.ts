// Pieces the payments (PISP) and funds (CBPII) steps share: one row per API version of what they write differently
// (base path, schemas, error shape, the status words of each state, the refusals the standard allows), the headers of
// their calls, and the builders of the requests every such family makes: a signed, idempotent POST and its replay, a
// refusal's checks, a resource's GET, the consent's read and DELETE (OB R/W Data API Profile, "Message Signing" and
// "Idempotency"). Family-agnostic where it can be: a VRP family is another base path, its schemas and its status words.

import { API_FAMILIES, type ApiFamily } from '../../api-families.js';
import { apiBasePath, apiLabel, type ApiVersion } from '../api-versions.js';
import type { Checks, RequestBody, RequestItemSpec, ResponseSchema, ScriptPart, StepContext } from '../model.js';
import type { FamilyV31SchemaName } from '../schemas.js';
import { AIS_CONTENT_TYPE, authServerHeaders, checks, errorAnswerPart, v4SchemaOf } from './common.js';

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
  /** Whether the bank signs the family's answers (its row's signsMessages): every answer with a body is then checked
   *  for its x-jws-signature. */
  signed: boolean;
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
    signed: family.signsMessages,
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

/** A family's consent resource: its collection under the version's base, the schema of its read and the script that
 *  checks the status read. */
export interface ConsentResource<Schema extends string> {
  path: string;
  readSchema: Schema;
  readTest: string;
}

export const PAYMENT_CONSENT: ConsentResource<FamilyV31SchemaName> = {
  path: '/domestic-payment-consents',
  readSchema: 'obie-pis-consent-read',
  readTest: 'payment-consent-read.test',
};

export const FUNDS_CONSENT: ConsentResource<FamilyV31SchemaName> = {
  path: '/funds-confirmation-consents',
  readSchema: 'obie-cof-consent-read',
  readTest: 'funds-consent-read.test',
};

/** A GET of the family's consent, which must be in the status `status` (the family's consent state model). */
export function consentRead<Schema extends string>(
  version: AnswerRow<Schema> & Pick<FamilyVersion, 'base'>,
  consent: ConsentResource<NoInfer<Schema>>,
  item: { step: string; description: string; status: string },
): RequestItemSpec {
  return resourceGet(version, {
    name: `${item.step}: GET ${consent.path}/{ConsentId}`,
    description: item.description,
    url: `${version.base}${consent.path}/{{consent_id}}`,
    schema: consent.readSchema,
    check: { template: consent.readTest, params: { status: item.status } },
  });
}

export function pis(context: Pick<StepContext, 'apiVersion'>): PaymentVersion {
  return PAYMENT_VERSIONS[context.apiVersion];
}

export function cof(context: Pick<StepContext, 'apiVersion'>): FundsVersion {
  return FUNDS_VERSIONS[context.apiVersion];
}

/** Content-Type of the requests with a body and of every answer with one (the files: application/json; charset=utf-8). */
export const PAYMENT_CONTENT_TYPE = AIS_CONTENT_TYPE;

/** The token a call carries: the client's own (client credentials grant) or the PSU's (authorization code grant). */
export type TokenVariable = 'access_token' | 'client_credentials_token';

/** The headers of a payments or funds call: neither version's files define x-fapi-financial-id for these APIs; the
 *  interaction id is Postman's fresh `{{$guid}}` (a header: no signed body holds a dynamic variable). */
export function familyHeaders(
  tokenVariable: TokenVariable,
  extra: readonly (readonly [string, string])[] = [],
): readonly (readonly [string, string])[] {
  return [
    ['Accept', 'application/json'],
    ['Authorization', `Bearer {{${tokenVariable}}}`],
    ['x-fapi-interaction-id', '{{$guid}}'],
    ...extra,
  ];
}

/** A version's row as an answer's checks read it: a response's schema by the row's name for it (the payments and
 *  funds rows name the file's schema, the VRP row the kind of answer and picks the file), the error shape, and whether
 *  the bank signs the answers. */
export interface AnswerRow<Schema extends string> {
  schema(name: Schema): ResponseSchema;
  errors: Pick<Checks, 'errors' | 'errorSchema'>;
  signed: boolean;
}

/** The checks of an answer of the version's API: its status, the interaction id echoed, the content type, the schema,
 *  and the error shape of another status. */
export function answerChecks<Schema extends string>(
  version: Omit<AnswerRow<Schema>, 'signed'>,
  status: number,
  schema?: NoInfer<Schema>,
): ScriptPart[] {
  return checks({
    status,
    echo: 'required',
    ...(schema !== undefined ? { schema: version.schema(schema), contentType: PAYMENT_CONTENT_TYPE } : {}),
    ...version.errors,
  });
}

/** The checks of an answer with a body: the version's (answerChecks), the bank's signature where the family's answers
 *  are signed, then the step's own check of what the answer says. */
export function answered<Schema extends string>(
  version: AnswerRow<Schema>,
  status: number,
  schema: NoInfer<Schema>,
  check: ScriptPart,
): ScriptPart[] {
  return [...answerChecks(version, status, schema), ...(version.signed ? [BANK_SIGNATURE] : []), check];
}

/** The checks of a request the bank must refuse: the interaction id echoed, the step's check of the refusal, the bank's
 *  signature (a refusal is signed too: "Message Signing") and the version's error shape. */
export function refused(
  version: Pick<FamilyVersion, 'errors'>,
  check: ScriptPart,
  echo: 'required' | 'if-present' = 'required',
): ScriptPart[] {
  return [...checks({ echo }), check, BANK_SIGNATURE, ...[errorAnswerPart(version.errors)].filter((part) => part !== undefined)];
}

/** A GET of one of the family's resources: its answer checked by the row (answered), with the client's token unless
 *  the operation needs the PSU's. */
export function resourceGet<Schema extends string>(
  version: AnswerRow<Schema>,
  item: {
    name: string;
    description: string;
    url: string;
    schema: NoInfer<Schema>;
    check: ScriptPart;
    tokenVariable?: TokenVariable;
    skipOn?: RequestItemSpec['skipOn'];
  },
): RequestItemSpec {
  return {
    name: item.name,
    description: item.description,
    method: 'GET',
    url: item.url,
    headers: familyHeaders(item.tokenVariable ?? 'client_credentials_token'),
    prerequest: [],
    test: answered(version, 200, item.schema, item.check),
    ...(item.skipOn === undefined ? {} : { skipOn: item.skipOn }),
  };
}

/** A consent's DELETE (the PSU revoked it): 204 with no body, then the step's check (OB R/W Data API Profile,
 *  "Consent Revocation"). */
export function consentDelete(
  version: Pick<FamilyVersion, 'base' | 'errors'>,
  consent: Pick<ConsentResource<string>, 'path'>,
  item: { step: string; description: string; check: ScriptPart },
): RequestItemSpec {
  return {
    name: `${item.step}: DELETE ${consent.path}/{ConsentId}`,
    description: item.description,
    method: 'DELETE',
    url: `${version.base}${consent.path}/{{consent_id}}`,
    headers: familyHeaders('client_credentials_token'),
    prerequest: [],
    test: [...checks({ status: 204, echo: 'required', ...version.errors }), item.check],
  };
}

/** The payment's payment-details (optional for a bank: its 404 skips the step with that reason). `payments` is the
 *  payments' collection under the version's base, `idName` the id's name in the path, `idVariable` where it is kept. */
export function paymentDetailsGet<Schema extends string>(
  version: AnswerRow<Schema> & Pick<FamilyVersion, 'base'>,
  item: { step: string; payments: string; idName: string; idVariable: string; schema: NoInfer<Schema>; notMade: readonly string[] },
): RequestItemSpec {
  const path = `${item.payments}/{${item.idName}}/payment-details`;
  return resourceGet(version, {
    name: `${item.step}: GET ${path}`,
    description: 'The payment status details; none of them a rejection.',
    url: `${version.base}${item.payments}/{{${item.idVariable}}}/payment-details`,
    schema: item.schema,
    check: { template: 'payment-details.test', params: { notMade: item.notMade } },
    skipOn: {
      status: 404,
      reason:
        `the bank answered 404 to GET ${path}: it does not offer payment details ` +
        '(an endpoint a bank has not implemented is a 404, OB R/W Data API Profile "400 (Bad Request) v/s 404 (Not Found)")',
    },
  });
}

/** The bank's signing keys, GET before a family's first signed POST (templates/scripts/signing-keys.*). */
export function bankSigningKeysGet(step: string): RequestItemSpec {
  return {
    name: `${step}: GET bank signing keys`,
    description:
      'The keys the bank signs its answers with (OB R/W Data API Profile, "Message Signing", Key Stores): discovery\'s jwks_uri, or ' +
      'bank_jws_jwks_uri (flow.messageSigning.bankJwksUri) where the bank publishes them elsewhere.',
    method: 'GET',
    url: '{{jwksUri}}',
    headers: authServerHeaders(),
    prerequest: [{ template: 'signing-keys.prerequest' }],
    test: [...checks({ status: 200, echo: 'if-present' }), { template: 'signing-keys.test' }],
  };
}

/** What the same key and body sent again proves, by the resource the POST creates (OB R/W Data API Profile,
 *  "Idempotency"). */
const REPLAY_DESCRIPTIONS = {
  consent:
    'OB R/W Data API Profile, "Idempotency": the same key and body within 24 hours is answered 201 with the consent created first, never a second one.',
  payment: 'OB R/W Data API Profile, "Idempotency": answered 201 with the payment made first (its current status), never a second payment.',
} as const;

/** A signed, idempotent POST sent again with the same key and body: 201 with the resource created first, never a
 *  second one (templates/scripts/idempotent-replay.test.js). `post` is the request as first sent, without its own
 *  pre-request parts (the ids stay the first's). */
export function idempotentReplay<Schema extends string>(
  version: AnswerRow<Schema>,
  item: {
    step: string;
    path: string;
    post: SignedPost;
    resource: keyof typeof REPLAY_DESCRIPTIONS;
    schema: NoInfer<Schema>;
    idMember: string;
    idVariable: string;
    createdVariable: string;
  },
): RequestItemSpec {
  const { resource, idMember, idVariable, createdVariable } = item;
  return {
    name: `${item.step}: POST ${item.path} again, same x-idempotency-key and body`,
    description: REPLAY_DESCRIPTIONS[resource],
    ...item.post,
    test: answered(version, 201, item.schema, {
      template: 'idempotent-replay.test',
      params: { resource, idMember, idVariable, createdVariable },
    }),
  };
}

/** The bank's x-jws-signature on every answer with a body, refusals too (OB R/W Data API Profile, "Message Signing":
 *  "The TPP should verify the signature of API responses"); templates/scripts/jws-verify.test.js. */
export const BANK_SIGNATURE: ScriptPart = { template: 'jws-verify.test', answer: 'any' };

/** The pre-request part that signs the body as sent (templates/scripts/jws-sign.prerequest.js). */
export const SIGN_BODY: ScriptPart = { template: 'jws-sign.prerequest' };

/** A signed, idempotent POST (the payments' two: the consent and the payment): the body template, the key's variable;
 *  the item's own pre-request parts run first (they set the ids the body names), then the signature. */
export type SignedPost = Pick<RequestItemSpec, 'method' | 'url' | 'headers' | 'body' | 'prerequest'>;

export function signedPost(input: {
  url: string;
  tokenVariable: TokenVariable;
  keyVariable: string;
  body: Extract<RequestBody, { mode: 'raw' }>;
  prerequest: readonly ScriptPart[];
}): SignedPost {
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

/** The payments' two signed, idempotent POSTs, one row each: where, with whose token, the key's variable, and whether
 *  the body is the payment's (which names the consent) or the consent's. */
export const PAYMENT_POSTS = {
  consent: {
    path: PAYMENT_CONSENT.path,
    tokenVariable: 'client_credentials_token',
    keyVariable: 'payment_consent_idempotency_key',
    payment: false,
  },
  payment: { path: '/domestic-payments', tokenVariable: 'access_token', keyVariable: 'payment_idempotency_key', payment: true },
} as const;

/** One of the payments' POSTs (PAYMENT_POSTS) with the amount of `amountVariable` (another amount: the changed body
 *  the replay checks send under the same key), under the row's key or another (`{{$guid}}`: a new one). */
export function paymentPost(
  context: Pick<StepContext, 'apiVersion'>,
  resource: keyof typeof PAYMENT_POSTS,
  options: { amountVariable: 'payment_amount' | 'payment_changed_amount'; prerequest: readonly ScriptPart[]; keyVariable?: string },
): SignedPost {
  const row = PAYMENT_POSTS[resource];
  return signedPost({
    url: `${pis(context).base}${row.path}`,
    tokenVariable: row.tokenVariable,
    keyVariable: options.keyVariable ?? row.keyVariable,
    body: paymentBody(context, { payment: row.payment, amountVariable: options.amountVariable }),
    prerequest: options.prerequest,
  });
}

/** The payment's body (the consent's, and with `payment` the payment's, which names the consent), with the amount of
 *  `amountVariable` (another amount: the changed body the replay checks send under the same key). */
function paymentBody(
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
