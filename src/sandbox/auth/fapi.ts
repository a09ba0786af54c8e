// The FAPI profile the authorisation server is certified for (`obflow sandbox --fapi`, docs/sandbox.md "FAPI modes"):
// `interface` is the bank interface as written (plain `code`, hybrid, every client authentication method);
// `1-advanced` refuses plain `code` without JARM as certified FAPI 1 Advanced servers do; `2.0` is the FAPI 2.0
// Security Profile (final): PAR required, PKCE S256, `code` only, the `iss` response parameter, private_key_jwt or
// tls_client_auth. What each mode changes is decided here and asked for by the handlers.

import type { FapiMode, ParMode, TokenAuthMethod } from '../contracts.js';

/** FAPI 2.0 Security Profile §5.3.2.1: clients authenticate with mutual TLS or private_key_jwt only. */
const FAPI2_AUTH_METHODS: readonly TokenAuthMethod[] = ['private_key_jwt', 'tls_client_auth'];

/** RFC 9101 §4 and §10.8 (explicit typing against cross-JWT confusion): the request object's media type. */
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';

export interface ResolvedFapi {
  fapi: FapiMode;
  par: ParMode;
  tokenAuthMethods: readonly TokenAuthMethod[];
}

/**
 * The emulator's options under a FAPI mode. FAPI 2.0 Security Profile §5.3.2.2 (authorization servers shall require
 * PAR): `par` absent means `required`; `optional` or `off` beside `2.0` is programmer misuse (the CLI and the config
 * refuse it first, naming both settings). The client authentication methods narrow to the two 2.0 allows.
 */
export function resolveFapi(
  fapi: FapiMode | undefined,
  par: ParMode | undefined,
  tokenAuthMethods: readonly TokenAuthMethod[],
): ResolvedFapi {
  const mode = fapi ?? 'interface';
  if (mode !== '2.0') return { fapi: mode, par: par ?? 'off', tokenAuthMethods };
  if (par !== undefined && par !== 'required') throw new TypeError(`fapi 2.0 requires pushed authorization requests, not par ${par}`);
  const methods = tokenAuthMethods.filter((method) => FAPI2_AUTH_METHODS.includes(method));
  if (methods.length === 0)
    throw new TypeError(`fapi 2.0 accepts private_key_jwt or tls_client_auth; tokenAuthMethods has only ${tokenAuthMethods.join(', ')}`);
  return { fapi: mode, par: 'required', tokenAuthMethods: methods };
}

/** RFC 7515 §4.1.9: a `typ` may leave out `application/` and is compared case-insensitively. */
export function isRequestObjectTyp(typ: string): boolean {
  const lower = typ.toLowerCase();
  return lower === REQUEST_OBJECT_TYP || lower === `application/${REQUEST_OBJECT_TYP}`;
}
