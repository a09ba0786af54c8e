// The FAPI profile obflow's flow speaks (flow.fapi, `--fapi`), one row per profile: what the profile fixes (PAR, PKCE,
// response types, JARM, client authentication, the assertion's audience, the request object's typ, the iss response
// parameter, certificate-bound tokens, what registration asks) and the defaults it implies where the user set nothing.
// The config schema resolves the row once (config.flow.fapi is the row) and everything below takes the row or a field
// of it; no other module compares a profile's name. As oidc-provider's `features.fapi.profile`: a profile sets only
// what no other option can, an explicit setting that contradicts it is refused naming both, and a default the user
// never set follows it. Dependency-free beside src/client-auth.ts: the command modules declare `--fapi` from it at
// `--help` time. The emulator has its own table (src/sandbox/auth/fapi.ts): the two rooms meet only on the wire.

import { DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD, TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './client-auth.js';

/** OIDC response types of the PSU consent (OIDC Core §3.1.2.1 code, §3.3.2.1 code id_token). */
export const RESPONSE_TYPES = ['code id_token', 'code'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** PS256 request objects (FAPI 1 Advanced Part 2 §5.2.2) or unsigned ones (docs/bank-interface.md §2.1). */
export const REQUEST_OBJECT_SIGNING_ALGS = ['none', 'PS256'] as const;
export type RequestObjectSigningAlg = (typeof REQUEST_OBJECT_SIGNING_ALGS)[number];

/** The profiles by name, in the order `--fapi` lists them: FAPI 1 Advanced (the default) and the FAPI 2.0 Security
 *  Profile (final). */
export const FAPI_PROFILE_NAMES = ['1-advanced', '2.0'] as const;
export type FapiProfileName = (typeof FAPI_PROFILE_NAMES)[number];
export const DEFAULT_FAPI_PROFILE: FapiProfileName = FAPI_PROFILE_NAMES[0];

export interface FapiProfile {
  /** As flow.fapi and `--fapi` spell it. */
  name: FapiProfileName;
  /** How messages name the setting: `flow.fapi "2.0"`. */
  setting: string;
  /** Pushed authorization requests (RFC 9126): as flow.par says (`auto` follows the target), or always. */
  par: 'as-configured' | 'always';
  /** PKCE S256 (RFC 7636): with PAR (which sends it), or required on every authorization request. */
  pkce: 'with-par' | 'always';
  /** The response types flow.responseType may name. */
  responseTypes: readonly ResponseType[];
  /** Whether flow.jarm (response_mode=jwt, FAPI 1 Advanced §5.2.2-2) may be asked. */
  jarm: boolean;
  /** The client authentication methods bank.token_endpoint_auth_method may name (or `auto` choose). */
  authMethods: readonly TokenEndpointAuthMethod[];
  /** Whom a private_key_jwt client assertion names as aud: the token endpoint (RFC 7523 §3) or the issuer. */
  assertionAudience: 'token-endpoint' | 'issuer';
  /** The request object's JWS `typ` header (RFC 9101 §4, §10.8). */
  requestObjectTyp: 'JWT' | 'oauth-authz-req+jwt';
  /** Whether the authorization response must carry iss (RFC 9207 §2.4), whatever the bank's discovery says. */
  issRequired: boolean;
  /** Whether registration asks for certificate-bound access tokens (RFC 8705 §3) with every method, or with every
   *  method but client_secret_basic (docs/bank-interface.md §2.1's registration byte for byte). */
  boundTokens: 'always' | 'unless-client-secret-basic';
  /** What registration asks (RFC 7591 §2). */
  registration: { responseTypes: readonly ResponseType[] };
  /** The embedded sandbox's FAPI mode when sandbox.fapi is left at the interface (docs/sandbox.md, "FAPI modes"):
   *  the interface serves this profile as it is, or this mode (the interface has no PAR endpoint and no iss). */
  embeddedSandbox: 'interface' | FapiProfileName;
  /** What the profile implies where the user set nothing. */
  defaults: {
    responseType: ResponseType;
    tokenEndpointAuthMethod: TokenEndpointAuthMethod;
    requestObjectSigningAlg: RequestObjectSigningAlg;
  };
  /** What the profile requires of the bank's discovery and of an emulator mode named like it, with the clause. */
  clause: { responseTypes: string; par: string; authMethods: string; jarm: string };
}

const FAPI_1_ADVANCED: FapiProfile = {
  name: '1-advanced',
  setting: 'flow.fapi "1-advanced"',
  par: 'as-configured',
  pkce: 'with-par',
  responseTypes: RESPONSE_TYPES,
  jarm: true,
  // The bank interface's FAPI 1 Advanced keeps its shared secret (docs/bank-interface.md §2.1).
  authMethods: TOKEN_ENDPOINT_AUTH_METHODS,
  assertionAudience: 'token-endpoint',
  requestObjectTyp: 'JWT',
  issRequired: false,
  boundTokens: 'unless-client-secret-basic',
  registration: { responseTypes: ['code', 'code id_token'] },
  embeddedSandbox: 'interface',
  defaults: { responseType: 'code id_token', tokenEndpointAuthMethod: DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD, requestObjectSigningAlg: 'none' },
  clause: {
    responseTypes: 'OIDC Core §3.3',
    par: 'RFC 9126',
    authMethods: 'docs/bank-interface.md §2.1',
    jarm: 'FAPI 1 Advanced §5.2.2-2',
  },
};

const FAPI_2_0: FapiProfile = {
  name: '2.0',
  setting: 'flow.fapi "2.0"',
  // FAPI 2.0 Security Profile §5.3.2.2: PAR, PKCE with S256, code only.
  par: 'always',
  pkce: 'always',
  responseTypes: ['code'],
  // Plain code with the iss response parameter (RFC 9207); JARM belongs to FAPI 2.0 Message Signing, not modelled.
  jarm: false,
  // §5.3.2.1: mutual TLS or private_key_jwt, the assertion's aud the issuer identifier alone.
  authMethods: ['private_key_jwt', 'tls_client_auth'],
  assertionAudience: 'issuer',
  requestObjectTyp: 'oauth-authz-req+jwt',
  issRequired: true,
  boundTokens: 'always',
  registration: { responseTypes: ['code'] },
  embeddedSandbox: '2.0',
  // PS256: what FAPI 2.0 banks take (oidc-provider's FAPI 2.0 profile has no unsigned request objects).
  defaults: { responseType: 'code', tokenEndpointAuthMethod: 'private_key_jwt', requestObjectSigningAlg: 'PS256' },
  clause: {
    responseTypes: 'FAPI 2.0 Security Profile §5.3.2.2: no hybrid flow',
    par: 'FAPI 2.0 Security Profile §5.3.2.2',
    authMethods: 'FAPI 2.0 Security Profile §5.3.2.1',
    jarm: 'FAPI 2.0 here is plain code with the iss response parameter, RFC 9207',
  },
};

export const FAPI_PROFILES: Readonly<Record<FapiProfileName, FapiProfile>> = {
  '1-advanced': FAPI_1_ADVANCED,
  '2.0': FAPI_2_0,
};

/** The emulator's modes as the TPP side starts it (config sandbox.fapi, `obflow sandbox --fapi`): the bank interface
 *  as written, or a server certified for one of the profiles. The emulator's own list is src/sandbox/contracts.ts
 *  FAPI_MODES (test/cli/sandbox-fapi.test.ts ties the two). */
export const SANDBOX_FAPI_MODES = ['interface', ...FAPI_PROFILE_NAMES] as const;
export type SandboxFapiMode = (typeof SANDBOX_FAPI_MODES)[number];

/** The profile an emulator mode is certified for (undefined: the interface, which holds a client to no profile): its
 *  row says what such a server requires of its clients (PAR, the client authentication methods). */
export function profileOfSandboxMode(mode: SandboxFapiMode): FapiProfile | undefined {
  return mode in FAPI_PROFILES ? FAPI_PROFILES[mode as FapiProfileName] : undefined;
}

/** The `--fapi` option of every command that takes the TPP's profile (one declaration). */
export const FAPI_OPTION = {
  // A string, so yargs keeps "2.0" as written (not the number 2).
  type: 'string',
  choices: FAPI_PROFILE_NAMES,
  describe: `FAPI profile (flow.fapi): ${FAPI_PROFILE_NAMES.join(' or ')} (default ${DEFAULT_FAPI_PROFILE}); a setting the profile fixes follows it unless you set it`,
} as const;

/** The emulator's mode: `obflow sandbox --fapi` and `obflow demo --sandbox-fapi` (config sandbox.fapi). */
export const SANDBOX_FAPI_OPTION = {
  type: 'string',
  choices: SANDBOX_FAPI_MODES,
  describe:
    "The emulator's FAPI mode (sandbox.fapi): interface (the bank interface as written), 1-advanced (code only with JARM), " +
    '2.0 (PAR required, PKCE S256, code only, iss); default: sandbox.fapi, which follows flow.fapi 2.0',
} as const;

/** The `--response-type` option (flow.responseType). */
export const RESPONSE_TYPE_OPTION = {
  type: 'string',
  choices: RESPONSE_TYPES,
  describe: 'OIDC response type of the PSU consent (default: the FAPI profile\'s: "code id_token", or "code" under 2.0)',
} as const;

/** The `--token-auth-method` option (bank.token_endpoint_auth_method; also with the embedded sandbox). */
export const TOKEN_AUTH_METHOD_OPTION = {
  type: 'string',
  choices: [...TOKEN_ENDPOINT_AUTH_METHODS, 'auto'],
  describe:
    "How obflow authenticates at the token endpoint and registers (default: the FAPI profile's: client_secret_basic, or private_key_jwt under 2.0)",
} as const;
