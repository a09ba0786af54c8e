// Pieces every step uses: the AIS base URL, the headers of each kind of call, the standard checks part.

import { CLIENT_ASSERTION_LIFETIME_SECONDS, CLIENT_ASSERTION_TYPE, DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD } from '../../client-auth.js';
import { API_FAMILIES } from '../../api-families.js';
import type { FapiProfile } from '../../fapi-profile.js';
import { aisBasePath, apiLabel, API_VERSION_ROWS, DEFAULT_API_VERSION, type ApiVersion } from '../api-versions.js';
import type { Checks, RequestItemSpec, ResponseSchema, ScriptPart, StepContext } from '../model.js';
import type { V31SchemaName, V4SchemaName } from '../schemas.js';

/** The v4.0 schema of a v3.1 one (obie-accounts → obie-v4-accounts: src/generate/schemas.ts V4_SCHEMA_TARGETS). Here,
 *  not in schemas.ts: the flow's steps load with the core, and schemas.ts brings the YAML parser. */
export function v4SchemaOf(name: V31SchemaName): V4SchemaName {
  return name.replace(/^obie-/, 'obie-v4-') as V4SchemaName;
}

/** AIS v3.1 base path on the resource server (docs/bank-interface.md §4.5). */
export const AIS_BASE = `{{rs}}${aisBasePath(DEFAULT_API_VERSION)}`;

/** What a step writes differently per API version: one row per version, the steps ask `ais(context)`. The version's
 *  own facts (path, label, balance type, awaiting status) come from its row in src/generate/api-versions.ts; what only
 *  the collections need (a header, the schemas, the error shape) is here. */
export interface AisVersion {
  /** `{{rs}}` and the version's base path (its OpenAPI file's `servers`). */
  base: string;
  /** How descriptions name the API. */
  label: string;
  /** v3.1.1 requires x-fapi-financial-id; v4.0 has no such header. */
  financialId: boolean;
  /** The response schema of a v3.1 schema's endpoint in this version (templates/schemas/). */
  schema(name: V31SchemaName): ResponseSchema;
  /** The error shape of the version's answers with another status. */
  errors: 'obie' | 'obie-v4';
  /** The balance type obflow reads (docs/bank-interface.md §2.3): InterimAvailable, ISO 20022 ITAV in v4.0. */
  balanceType: string;
  /** A consent's status before the PSU acts: AwaitingAuthorisation, OBInternalConsentStatus1Code AWAU in v4.0. */
  awaitingStatus: string;
}

/** The version's row as the AIS steps read it. */
function aisVersion(version: ApiVersion, own: Pick<AisVersion, 'financialId' | 'schema' | 'errors'>): AisVersion {
  const row = API_VERSION_ROWS[version];
  return {
    base: `{{rs}}${aisBasePath(version)}`,
    label: apiLabel(API_FAMILIES.accounts, version),
    ...own,
    balanceType: row.balanceType,
    awaitingStatus: row.awaitingStatus,
  };
}

export const AIS_VERSIONS: Readonly<Record<ApiVersion, AisVersion>> = {
  '3.1': aisVersion('3.1', { financialId: true, schema: (name) => name, errors: 'obie' }),
  '4.0': aisVersion('4.0', { financialId: false, schema: v4SchemaOf, errors: 'obie-v4' }),
};

/** The row of the context's version. */
export function ais(context: Pick<StepContext, 'apiVersion'>): AisVersion {
  return AIS_VERSIONS[context.apiVersion];
}

/** Content-Type of every AIS response the bank sends (AIS v3.1 "Content-Type"; docs/bank-interface.md §4.5). */
export const AIS_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Every AIS call (docs/bank-interface.md §5.3 step 6; v3.1.1 requires x-fapi-financial-id). The interaction id is
 *  Postman's dynamic `{{$guid}}`, a fresh UUID per request (FAPI 1 Baseline §6.2.2 item 4) without a pre-request
 *  script; the echo checks read the header as sent (templates/scripts/check-echo.test.js). */
export function aisHeaders(
  tokenVariable: 'access_token' | 'client_credentials_token',
  version: AisVersion = AIS_VERSIONS[DEFAULT_API_VERSION],
): readonly (readonly [string, string])[] {
  return [
    ['Accept', 'application/json'],
    ['Authorization', `Bearer {{${tokenVariable}}}`],
    ...(version.financialId ? ([['x-fapi-financial-id', '{{obParticipantId}}']] as const) : []),
    ['x-fapi-interaction-id', '{{$guid}}'],
  ];
}

/** Calls to the authorisation server (discovery, token): no x-fapi-financial-id, the interaction id all the same. */
export function authServerHeaders(): readonly (readonly [string, string])[] {
  return [
    ['Accept', 'application/json'],
    ['x-fapi-interaction-id', '{{$guid}}'],
  ];
}

/** The part that checks the status; the parts after it check the expected answer only (src/generate/collections.ts). */
export const STATUS_PART = 'check-status.test';

/** An answer with another status, against the error shape the standard gives it. */
const ERROR_PARTS: Record<NonNullable<Checks['errors']>, ScriptPart> = {
  /** RFC 6749 §5.2: the token endpoint's error response. */
  oauth: { template: 'check-schema.test', schema: 'oauth-error', answer: 'error' },
  /** OBIE AIS v3.1: OBErrorResponse1, or no body, by status. */
  obie: { template: 'check-obie-error.test', schema: 'obie-error', answer: 'error' },
  /** OBL AIS v4.0: the same by status, each ErrorCode an OBExternalStatusReason1Code of the status's HTTP category. */
  'obie-v4': { template: 'check-obie-v4-error.test', schema: 'obie-v4-error', answer: 'error' },
};

/** The part that checks an error answer against the shape the standard gives its status (and the API's own error
 *  schema where it is not AIS's); undefined when no shape is named. */
export function errorAnswerPart(options: Pick<Checks, 'errors' | 'errorSchema'>): ScriptPart | undefined {
  if (options.errors === undefined) return undefined;
  return { ...ERROR_PARTS[options.errors], ...(options.errorSchema !== undefined ? { schema: options.errorSchema } : {}) };
}

// Lifetime of a private_key_jwt client assertion (RFC 7523 §3: exp; short, it is single use): src/client-auth.ts.
export { CLIENT_ASSERTION_LIFETIME_SECONDS };

/** The token request's client authentication as registered (templates/scripts/client-auth.prerequest.js); a
 *  private_key_jwt assertion's `aud` is the token endpoint (FAPI 1 Advanced, RFC 7523 §3). */
export const CLIENT_AUTH_PREREQUEST: ScriptPart = {
  template: 'client-auth.prerequest',
  params: {
    lifetimeSeconds: CLIENT_ASSERTION_LIFETIME_SECONDS,
    audienceVariable: 'tokenEndpoint',
    defaultAuthMethod: DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD,
    assertionType: CLIENT_ASSERTION_TYPE,
  },
};

/** Whether the profile types its request objects other than the JWT libraries' `JWT` (FapiProfile.requestObjectTyp):
 *  its collections carry the libraries with a `typ` parameter (collections.ts withTypedJwtLibraries). */
export function typesRequestObjects(fapi: Pick<FapiProfile, 'requestObjectTyp'>): boolean {
  return fapi.requestObjectTyp !== 'JWT';
}

/** The client authentication of the context's profile: the assertion's `aud` is the token endpoint, or the issuer
 *  identifier alone at the token and the PAR endpoint where the profile says so (FAPI 2.0 Security Profile §5.3.2.1
 *  has servers accept it). */
export function clientAuthPrerequest(context: Pick<StepContext, 'fapi'>): ScriptPart {
  return context.fapi.assertionAudience === 'issuer'
    ? { ...CLIENT_AUTH_PREREQUEST, params: { ...CLIENT_AUTH_PREREQUEST.params, audienceVariable: 'issuer' } }
    : CLIENT_AUTH_PREREQUEST;
}

/**
 * The standard checks, one row per part (templates/scripts/check-*.test.js), in the order their tests appear: a row
 * gives a step its part only when the step's options ask for that check, so no script carries a check it never runs.
 */
const CHECK_PARTS: readonly ((options: Checks) => ScriptPart | undefined)[] = [
  (options) => (options.status === undefined ? undefined : { template: STATUS_PART, params: { status: options.status } }),
  // FAPI 1 Baseline §6.2.1 item 11: every answer echoes the interaction id, an error answer too.
  (options) => ({ template: options.echo === 'required' ? 'check-echo.test' : 'check-echo-if-present.test', answer: 'any' }),
  (options) =>
    options.contentType === undefined ? undefined : { template: 'check-content-type.test', params: { contentType: options.contentType } },
  (options) => (options.schema === undefined ? undefined : { template: 'check-schema.test', schema: options.schema }),
  (options) => (options.status === undefined ? undefined : errorAnswerPart(options)),
];

export function checks(options: Checks): ScriptPart[] {
  return CHECK_PARTS.map((part) => part(options)).filter((part) => part !== undefined);
}

/** The token endpoint's request for one grant, authenticated with client_secret_basic (docs/bank-interface.md §5.2,
 *  RFC 6749 §2.3.1): method, address, headers and form. The step adds its name and scripts, CLIENT_AUTH_PREREQUEST
 *  among them (it swaps Basic for the registered method at run time). */
export function tokenPost(pairs: readonly (readonly [string, string])[]): Pick<RequestItemSpec, 'method' | 'url' | 'headers' | 'body'> {
  return {
    method: 'POST',
    url: '{{tokenEndpoint}}',
    headers: [...authServerHeaders(), ['Authorization', 'Basic {{basicToken}}']],
    body: { mode: 'urlencoded', pairs },
  };
}

/** A read of the version's AIS API with the PSU's token: method, URL and headers, and the standard checks of a 200
 *  against `schema` (the v3.1 name; the version's twin is used) before the step's own `test` parts. */
export function aisRead(
  context: Pick<StepContext, 'apiVersion'>,
  path: string,
  schema: V31SchemaName,
  test: readonly ScriptPart[],
): Pick<RequestItemSpec, 'method' | 'url' | 'headers' | 'test'> {
  const version = ais(context);
  return {
    method: 'GET',
    url: `${version.base}${path}`,
    headers: aisHeaders('access_token', version),
    test: [
      ...checks({ status: 200, echo: 'required', schema: version.schema(schema), contentType: AIS_CONTENT_TYPE, errors: version.errors }),
      ...test,
    ],
  };
}

/** One item that reads a resource of every account of account_ids, looping on itself (templates/scripts/account-loop.*):
 *  `path` is the resource's under /accounts/{AccountId} ('' for the account itself), `check` the step's own test. */
export function eachAccountRead(
  context: Pick<StepContext, 'apiVersion'>,
  item: { step: string; path: string; description: string; schema: V31SchemaName; check: ScriptPart },
): RequestItemSpec {
  const name = `${item.step}: GET /accounts/{AccountId}${item.path}`;
  return {
    name,
    description: item.description,
    ...aisRead(context, `/accounts/{{account_id}}${item.path}`, item.schema, [
      item.check,
      { template: 'account-loop.test', params: { item: name } },
    ]),
    prerequest: [{ template: 'account-loop.prerequest' }],
  };
}

/** GET /accounts with the PSU's token, checked as every AIS Accounts read is; `test` is what the step adds. */
export function accountsRead(
  test: ScriptPart,
  context: Pick<StepContext, 'apiVersion'> = { apiVersion: DEFAULT_API_VERSION },
): Pick<RequestItemSpec, 'method' | 'url' | 'headers' | 'prerequest' | 'test'> {
  return { ...aisRead(context, '/accounts', 'obie-accounts', [test]), prerequest: [] };
}
