// Pieces every step uses: the AIS base URL, the headers of each kind of call, the standard checks part.

import type { Checks, RequestItemSpec, ScriptPart } from '../model.js';

/** AIS v3.1 base path on the resource server (docs/bank-interface.md §4.5). */
export const AIS_BASE = '{{rs}}/open-banking/v3.1/aisp';

/** Content-Type of every AIS response the bank sends (AIS v3.1 "Content-Type", issue 4 §4). */
export const AIS_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Every AIS call (docs/bank-interface.md §5.3 step 6; v3.1.1 requires x-fapi-financial-id). */
export function aisHeaders(tokenVariable: 'access_token' | 'client_credentials_token'): readonly (readonly [string, string])[] {
  return [
    ['Accept', 'application/json'],
    ['Authorization', `Bearer {{${tokenVariable}}}`],
    ['x-fapi-financial-id', '{{obParticipantId}}'],
    ['x-fapi-interaction-id', '{{x_fapi_interaction_id}}'],
  ];
}

/** Calls to the authorisation server (discovery, token): no x-fapi-financial-id, the interaction id all the same. */
export function authServerHeaders(): readonly (readonly [string, string])[] {
  return [
    ['Accept', 'application/json'],
    ['x-fapi-interaction-id', '{{x_fapi_interaction_id}}'],
  ];
}

export const FAPI_PREREQUEST: ScriptPart = { template: 'fapi.prerequest' };

/** Lifetime of a private_key_jwt client assertion (RFC 7523 §3: exp; short, it is single use). */
export const CLIENT_ASSERTION_LIFETIME_SECONDS = 300;

/** The token request's client authentication as registered (templates/scripts/client-auth.prerequest.js). */
export const CLIENT_AUTH_PREREQUEST: ScriptPart = {
  template: 'client-auth.prerequest',
  params: { lifetimeSeconds: CLIENT_ASSERTION_LIFETIME_SECONDS },
};

/**
 * The standard checks, one row per part (templates/scripts/check-*.test.js), in the order their tests appear: a row
 * gives a step its part only when the step's options ask for that check, so no script carries a check it never runs.
 */
const CHECK_PARTS: readonly ((options: Checks) => ScriptPart | undefined)[] = [
  (options) => (options.status === undefined ? undefined : { template: 'check-status.test', params: { status: options.status } }),
  (options) => ({ template: options.echo === 'required' ? 'check-echo.test' : 'check-echo-if-present.test' }),
  (options) =>
    options.contentType === undefined ? undefined : { template: 'check-content-type.test', params: { contentType: options.contentType } },
  (options) => (options.schema === undefined ? undefined : { template: 'check-schema.test', schema: options.schema }),
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

/** GET /accounts with the PSU's token, checked as every AIS v3.1 Accounts read is; `test` is what the step adds. */
export function accountsRead(test: ScriptPart): Pick<RequestItemSpec, 'method' | 'url' | 'headers' | 'prerequest' | 'test'> {
  return {
    method: 'GET',
    url: `${AIS_BASE}/accounts`,
    headers: aisHeaders('access_token'),
    prerequest: [FAPI_PREREQUEST],
    test: [...checks({ status: 200, echo: 'required', schema: 'obie-accounts', contentType: AIS_CONTENT_TYPE }), test],
  };
}
