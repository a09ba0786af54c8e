// The bank's OpenID provider configuration (OIDC Discovery §3; docs/bank-interface.md §4.3): the addresses the flow
// uses, read once per session (src/pipeline/session.ts).

import type { Dispatcher } from 'undici';
import { ObflowError } from '../errors.js';
import { getJson } from './http.js';

/** The addresses of an OpenID provider configuration (OIDC Discovery §3) that the flow uses. */
export interface DiscoveryAddresses {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  jwks_uri?: string;
  /** OIDC Discovery §3 grant_types_supported, when published. */
  grant_types_supported?: string[];
  /** OIDC Discovery §3 token_endpoint_auth_methods_supported, when published (absent means client_secret_basic). */
  token_endpoint_auth_methods_supported?: string[];
  /** RFC 9126 §5, when published (flow.par). */
  pushed_authorization_request_endpoint?: string;
  require_pushed_authorization_requests?: boolean;
  /** OIDC Discovery §3 / RFC 8414 §2 / RFC 9207 §3, when published (what flow.jarm, PKCE and FAPI 2.0 need). */
  response_modes_supported?: string[];
  code_challenge_methods_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
}

/** GET {auth_url}/.well-known/openid-configuration (§4.3). */
export async function fetchDiscovery(discoveryUrl: string, dispatcher: Dispatcher): Promise<DiscoveryAddresses> {
  const { status, body } = await getJson(discoveryUrl, dispatcher, 'discovery');
  const doc = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const str = (key: string): string | undefined => (typeof doc[key] === 'string' ? (doc[key] as string) : undefined);
  // A published list of strings (anything else in it dropped), as its own key; nothing when not published.
  const listed = <K extends string>(key: K): Partial<Record<K, string[]>> => {
    const list = doc[key];
    return Array.isArray(list)
      ? ({ [key]: list.filter((item): item is string => typeof item === 'string') } as Partial<Record<K, string[]>>)
      : {};
  };
  const issuer = str('issuer');
  const authorization = str('authorization_endpoint');
  const token = str('token_endpoint');
  if (status !== 200 || issuer === undefined || authorization === undefined || token === undefined) {
    throw new ObflowError(
      'ERR_DISCOVERY_INVALID',
      `discovery at ${discoveryUrl} answered ${status} without issuer/authorization_endpoint/token_endpoint`,
      {
        hint: 'Check auth_url in the config: discovery lives at {auth_url}/.well-known/openid-configuration.',
      },
    );
  }
  const registration = str('registration_endpoint');
  const jwks = str('jwks_uri');
  return {
    issuer,
    authorization_endpoint: authorization,
    token_endpoint: token,
    ...(registration !== undefined ? { registration_endpoint: registration } : {}),
    ...(jwks !== undefined ? { jwks_uri: jwks } : {}),
    ...listed('grant_types_supported'),
    ...(str('pushed_authorization_request_endpoint') !== undefined
      ? { pushed_authorization_request_endpoint: str('pushed_authorization_request_endpoint') as string }
      : {}),
    ...(doc.require_pushed_authorization_requests === true ? { require_pushed_authorization_requests: true } : {}),
    ...listed('response_modes_supported'),
    ...listed('code_challenge_methods_supported'),
    ...(doc.authorization_response_iss_parameter_supported === true ? { authorization_response_iss_parameter_supported: true } : {}),
    ...listed('token_endpoint_auth_methods_supported'),
  };
}
