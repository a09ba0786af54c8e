// The OpenID Provider configuration (OpenID Connect Discovery 1.0 §3) of one profile's issuer, with the fields a UK
// Open Banking bank publishes (cf. the model bank's published discovery document): scopes, the two response types,
// openbanking_intent_id and acr claims, `none` among the request-object algorithms, the client authentication methods
// this bank accepts (client_secret_basic, private_key_jwt, tls_client_auth unless narrowed), PS256.

import type { ParMode, Profile, TokenAuthMethod } from '../contracts.js';
import { tolerates } from '../policy.js';
import { FAPI_MODE_ROWS, type FapiModeRow } from './fapi.js';

export interface IssuerEndpoints {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  registrationEndpoint: string;
}

export function buildDiscovery(
  profile: Profile,
  endpoints: IssuerEndpoints,
  tokenAuthMethods: readonly TokenAuthMethod[],
  par: ParMode = 'off',
  fapi: FapiModeRow = FAPI_MODE_ROWS.interface,
): Record<string, unknown> {
  // RFC 9126 §5 (when `--par` offers it); RFC 8414 §2 code_challenge_methods_supported beside it, as FAPI 2.0 clients
  // read it. Left out with PAR off, so the default document stays as it was.
  const pushed =
    par === 'off'
      ? {}
      : {
          pushed_authorization_request_endpoint: `${endpoints.issuer}/par`,
          require_pushed_authorization_requests: par === 'required',
          // FAPI 2.0 Security Profile §5.3.2.2: S256 only, in every profile.
          code_challenge_methods_supported:
            fapi.pkce === 'per-profile' && tolerates(profile.name, 'pkce-plain') ? ['S256', 'plain'] : ['S256'],
        };
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorizationEndpoint,
    token_endpoint: endpoints.tokenEndpoint,
    jwks_uri: endpoints.jwksUri,
    registration_endpoint: endpoints.registrationEndpoint,
    scopes_supported: ['openid', 'accounts', 'payments'],
    // The mode's (FAPI 2.0 Security Profile §5.3.2.2: code only, no hybrid, so no fragment either).
    response_types_supported: [...fapi.responseTypes],
    response_modes_supported: [...fapi.discovery.responseModes],
    authorization_signing_alg_values_supported: ['PS256'],
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    subject_types_supported: ['public'],
    acr_values_supported: ['urn:openbanking:psd2:sca'],
    claims_parameter_supported: true,
    claims_supported: ['openbanking_intent_id', 'acr'],
    claim_types_supported: ['normal'],
    request_parameter_supported: true,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    // The sandbox's registration asks for unsigned request objects (bank-interface §5.2); PS256 ones are verified
    // with the software statement's keys.
    request_object_signing_alg_values_supported: ['none', 'PS256'],
    id_token_signing_alg_values_supported: ['PS256'],
    // As the model bank publishes it (private_key_jwt assertions and the registration JWT are PS256 only).
    token_endpoint_auth_signing_alg_values_supported: ['PS256'],
    // What this bank accepts (`--token-auth`), client_secret_post beside client_secret_basic where tolerated.
    token_endpoint_auth_methods_supported: tokenAuthMethods.flatMap((method) =>
      method === 'client_secret_basic' && tolerates(profile.name, 'client-secret-post') ? [method, 'client_secret_post'] : [method],
    ),
    tls_client_certificate_bound_access_tokens: fapi.boundTokens,
    ...pushed,
    // RFC 9207 §3: every authorization response carries iss (FAPI 2.0 Security Profile §5.3.2.2).
    ...(fapi.discovery.issParameter ? { authorization_response_iss_parameter_supported: true } : {}),
  };
}
