// Step: PSU consent (docs/bank-interface.md §5.3 steps 3–4): build the consent URL with a request object (PS256 with the
// signing key, or unsigned when the registration asked for request_object_signing_alg none; pushed first with flow.par)
// and GET it without following redirects; headless: read code (+ id_token, or JARM's response) from Location;
// interactive: see psu-consent.test.

import { familyScope, SERVICE_SCOPE } from '../../api-families.js';
import type { FapiProfile } from '../../fapi-profile.js';
import type { RequestItemSpec, StepContext, StepSpec } from '../model.js';
import { authServerHeaders, checks, clientAuthPrerequest, typesRequestObjects } from './common.js';

/** Request object lifetime: the strict profile allows exp at most 60 minutes ahead (FAPI 1 Advanced §5.2.2 item 13). */
export const REQUEST_OBJECT_LIFETIME_SECONDS = 600;

/** RFC 9126 §2 (flow.par): the request the consent URL would carry, pushed with the client's authentication; its
 *  test writes consent_url = authEndpoint + client_id + request_uri. */
function pushedRequestItem(jarm: boolean, fapi: FapiProfile, scope: string): RequestItemSpec {
  return {
    name: 'psu-consent: POST pushed authorization request',
    description:
      'RFC 9126 §2: the authorization request (request object, PKCE S256 per RFC 7636) pushed with the registered client authentication; ' +
      'the answer names it by request_uri (§2.2), the only parameter of the consent URL besides client_id (§4).',
    method: 'POST',
    url: '{{parEndpoint}}',
    headers: [...authServerHeaders(), ['Authorization', 'Basic {{basicToken}}']],
    body: { mode: 'urlencoded', pairs: [] },
    prerequest: [
      {
        template: 'par.prerequest',
        // The profile's request object typ (FAPI 2.0: as RFC 9101 §10.8 recommends, withTypedJwtLibraries); '' keeps `JWT`.
        params: {
          lifetimeSeconds: REQUEST_OBJECT_LIFETIME_SECONDS,
          scope,
          jarm,
          typ: typesRequestObjects(fapi) ? fapi.requestObjectTyp : '',
        },
      },
      clientAuthPrerequest({ fapi }),
    ],
    test: [...checks({ status: 201, echo: 'if-present', errors: 'oauth' }), { template: 'par.test' }],
  };
}

/** The consent URL's scope: `openid` and the family's (OB R/W Data API Profile, "Consent Authorisation": `openid
 *  accounts`, `openid payments`, `openid fundsconfirmations`). */
export function consentScope(family: StepContext['family']): string {
  return `${SERVICE_SCOPE} ${familyScope(family)}`;
}

export function psuConsentStep(context: Pick<StepContext, 'par' | 'jarm' | 'fapi' | 'family'>): StepSpec {
  const scope = consentScope(context.family);
  const par = context.par === true;
  const jarm = context.jarm === true;
  const { fapi } = context;
  const step: StepSpec = {
    name: 'psu-consent',
    title: 'PSU consent',
    description:
      "Reads the bank's signing keys from jwksUri into bank_jwks. " +
      'Builds consent_url (authEndpoint + response_type, client_id, redirect_uri, scope, state, nonce, login_hint, request) and GETs it with redirects off. ' +
      'headless: checks the redirect and writes auth_code (+ id_token); interactive: checks it did not land ' +
      'on redirectUrl — the runner then opens consent_url in a browser and writes auth_code (+ id_token).',
    items: [
      {
        name: 'psu-consent: GET jwks',
        description:
          'OIDC Discovery 1.0 §3 jwks_uri (RFC 7517 JWK Set): the keys that verify the id_token signature (FAPI 1 Advanced §5.2.2.1).',
        method: 'GET',
        url: '{{jwksUri}}',
        headers: authServerHeaders(),
        prerequest: [],
        test: [...checks({ status: 200, echo: 'if-present' }), { template: 'jwks.test' }],
      },
      {
        name: 'psu-consent: GET authorization endpoint',
        description: 'OIDC Core §3.1.2.1 / §6.1; OB: openbanking_intent_id is an essential claim naming the consent.',
        method: 'GET',
        url: '{{consent_url}}',
        headers: [['x-fapi-interaction-id', '{{$guid}}']],
        followRedirects: false,
        // With PAR the pushed request's test has written consent_url already; interactive consent leaves its single-use
        // request_uri to the PSU's browser (par-interactive.prerequest skips this GET).
        prerequest: par
          ? [{ template: 'par-interactive.prerequest' }]
          : [
              {
                // flow.jarm adds response_mode=jwt (its lines marked `// obflow:if jarm` in the script).
                template: 'psu-consent.prerequest',
                params: { lifetimeSeconds: REQUEST_OBJECT_LIFETIME_SECONDS, scope, jarm },
              },
            ],
        // JARM (flow.jarm): the response JWT's checks replace the plain redirect's.
        test: [
          ...checks({ echo: 'if-present' }),
          { template: jarm ? 'psu-consent-jarm.test' : 'psu-consent.test' },
          // FAPI 2.0: the iss response parameter is required, not only checked when present (RFC 9207 §2.4).
          ...(fapi.issRequired ? [{ template: 'psu-consent-iss.test' }] : []),
          { template: 'id-token-signature.test' },
        ],
      },
    ],
  };
  if (!par) return step;
  const [jwks, authorize] = step.items;
  return {
    ...step,
    description: `${step.description} With PAR (flow.par): the request is first pushed to parEndpoint (RFC 9126) and consent_url carries client_id and request_uri only.`,
    items: [jwks as RequestItemSpec, pushedRequestItem(jarm, fapi, scope), authorize as RequestItemSpec],
  };
}
