// The FAPI modes of the authorisation server (`obflow sandbox --fapi`, docs/sandbox.md "FAPI modes"), one row per mode
// saying everything the mode changes: `interface` is the bank interface as written (plain `code`, hybrid, every client
// authentication method); `1-advanced` refuses plain `code` without JARM as certified FAPI 1 Advanced servers do;
// `2.0` is the FAPI 2.0 Security Profile (final): PAR required, PKCE S256, `code` only, the `iss` response parameter,
// private_key_jwt or tls_client_auth with the issuer as the assertion's audience, typed request objects. resolveFapi
// picks the row once at the start; the handlers (authorize, par, client-auth, registration, discovery) ask it and
// never compare a mode's name. The TPP side has its own table (src/fapi-profile.ts): the rooms meet only on the wire.

// It imports nothing: src/sandbox/contracts.ts takes its modes from here (SandboxOptions.fapi), so the emulator's
// vocabularies (PAR modes, client authentication methods) come in as type parameters, not imports.

/** The modes, in the order `--fapi` lists them; the first is the default. */
export const FAPI_MODES = ['interface', '1-advanced', '2.0'] as const;
export type FapiMode = (typeof FAPI_MODES)[number];

/** RFC 9101 §4 and §10.8 (explicit typing against cross-JWT confusion): the request object's media type. */
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';

/** OIDC Core §3.1.2.1 (code) and §3.3.2.1 (code id_token), as discovery lists them. */
type ResponseType = 'code' | 'code id_token';

export interface FapiModeRow {
  name: FapiMode;
  /** Pushed authorization requests (RFC 9126): as `--par` says (default off), or required (`--par off|optional`
   *  beside it is misuse). */
  par: 'as-configured' | 'required';
  /** PKCE (RFC 7636): optional, S256 only unless the profile tolerates `plain` (rows pkce-plain, par-pkce-optional);
   *  or required with S256 in every profile. */
  pkce: 'per-profile' | 'S256-required';
  /** The response types the authorization endpoint takes, registration accepts (and fills in, with
   *  registration-defaults) and discovery lists. */
  responseTypes: readonly ResponseType[];
  /** Plain `code` only with JARM (FAPI 1 Advanced Part 2 §5.2.2-2; the row code-without-jarm tolerates it). */
  plainCodeNeedsJarm: boolean;
  /** FAPI 1 Advanced's request rules hold (each relaxed by its own row): a request object (§5.2.2-1), query copies
   *  beside it (OIDC Core §6.1) and nonce for `code` (§5.2.2.2). Else they give way to PAR and PKCE: a client may push
   *  plain parameters, or a request object alone (RFC 9101 §5). */
  fapi1RequestRules: boolean;
  /** `iss` on every authorization response, success and error (RFC 9207 §2); a JARM response carries it inside. */
  iss: boolean;
  /** The client authentication methods the mode accepts (`--token-auth` narrows further); `any`: each the bank does. */
  authMethods: readonly ('private_key_jwt' | 'tls_client_auth')[] | 'any';
  /** A client assertion's `aud`: the token endpoint or the issuer, as most servers take it (RFC 7523 §3), or the
   *  issuer identifier alone, as a string, at every endpoint (FAPI 2.0 Security Profile §5.3.2.1 as published final). */
  assertionAudience: 'token-endpoint-or-issuer' | 'issuer-only';
  /** The `typ` a request object that names one must name (RFC 9101 §4); undefined: any. */
  requestObjectTyp: string | undefined;
  /** Access tokens bound to the client's certificate (RFC 8705 §3): token.ts binds them in every mode; discovery says so. */
  boundTokens: boolean;
  /** What discovery says beyond the interface's addresses (OIDC Discovery §3, RFC 9207 §3). */
  discovery: { responseModes: readonly string[]; issParameter: boolean };
}

const INTERFACE: FapiModeRow = {
  name: 'interface',
  par: 'as-configured',
  pkce: 'per-profile',
  responseTypes: ['code', 'code id_token'],
  plainCodeNeedsJarm: false,
  fapi1RequestRules: true,
  iss: false,
  authMethods: 'any',
  assertionAudience: 'token-endpoint-or-issuer',
  requestObjectTyp: undefined,
  boundTokens: true,
  // JARM §2.3: jwt for code, the response signed PS256 with the jwks_uri key.
  discovery: { responseModes: ['query', 'fragment', 'jwt', 'query.jwt'], issParameter: false },
};

export const FAPI_MODE_ROWS: Readonly<Record<FapiMode, FapiModeRow>> = {
  interface: INTERFACE,
  // FAPI 1 Advanced Part 2 §5.2.2-2: code only with JARM; discovery is the interface's.
  '1-advanced': { ...INTERFACE, name: '1-advanced', plainCodeNeedsJarm: true },
  // FAPI 2.0 Security Profile (final), absolute in every profile (no tolerance rows).
  '2.0': {
    name: '2.0',
    // §5.3.2.2: PAR required, PKCE with S256, the authorization code flow only (no hybrid, so no fragment either).
    par: 'required',
    pkce: 'S256-required',
    responseTypes: ['code'],
    plainCodeNeedsJarm: false,
    fapi1RequestRules: false,
    // §5.3.2.2 with RFC 9207.
    iss: true,
    // §5.3.2.1: mutual TLS or private_key_jwt only; the issuer alone as the assertion's audience.
    authMethods: ['private_key_jwt', 'tls_client_auth'],
    assertionAudience: 'issuer-only',
    // FAPI 2.0 Message Signing requires the type; a request object without typ is still accepted, as the Security
    // Profile asks no request object at all.
    requestObjectTyp: REQUEST_OBJECT_TYP,
    boundTokens: true,
    discovery: { responseModes: ['query', 'jwt', 'query.jwt'], issParameter: true },
  },
};

export interface ResolvedFapi<Par extends string, Method extends string> {
  fapi: FapiModeRow;
  par: Par | 'required' | 'off';
  tokenAuthMethods: readonly Method[];
}

/**
 * The emulator's options under a FAPI mode: its row, PAR and the accepted client authentication methods. A mode that
 * requires PAR (FAPI 2.0 Security Profile §5.3.2.2: authorization servers shall require it) takes `par` absent as
 * `required`; `optional` or `off` beside it is programmer misuse (the CLI and the config refuse it first, naming both
 * settings). The client authentication methods narrow to the mode's.
 */
export function resolveFapi<Par extends string, Method extends string>(
  mode: FapiMode | undefined,
  par: Par | undefined,
  tokenAuthMethods: readonly Method[],
): ResolvedFapi<Par, Method> {
  const fapi = FAPI_MODE_ROWS[mode ?? FAPI_MODES[0]];
  if (fapi.par === 'required' && par !== undefined && par !== 'required')
    throw new TypeError(`fapi ${fapi.name} requires pushed authorization requests, not par ${par}`);
  const resolvedPar = par ?? (fapi.par === 'required' ? 'required' : 'off');
  const allowed: readonly string[] | 'any' = fapi.authMethods;
  if (allowed === 'any') return { fapi, par: resolvedPar, tokenAuthMethods };
  const methods = tokenAuthMethods.filter((method) => allowed.includes(method));
  if (methods.length === 0)
    throw new TypeError(`fapi ${fapi.name} accepts ${allowed.join(' or ')}; tokenAuthMethods has only ${tokenAuthMethods.join(', ')}`);
  return { fapi, par: resolvedPar, tokenAuthMethods: methods };
}

/** RFC 7515 §4.1.9: a `typ` may leave out `application/` and is compared case-insensitively. */
export function isTyp(typ: string, expected: string): boolean {
  const lower = typ.toLowerCase();
  return lower === expected || lower === `application/${expected}`;
}
