// The registration request's claims (docs/bank-interface.md §2.1) built from the software statement, and the local checks
// that refuse before sending what the bank would refuse (DCR v3.2 §"Request Validation").

import { X509Certificate, createPublicKey, type KeyObject } from 'node:crypto';
import { API_FAMILIES, familyScope, SERVICE_SCOPE, type ApiFamily } from '../api-families.js';
import type { TokenEndpointAuthMethod } from '../client-auth.js';
import type { FapiProfile, ResponseType } from '../fapi-profile.js';
import { ObflowError } from '../errors.js';
import type { SoftwareStatementClaims } from '../pki/types.js';
import { verifyCertificateForStatement } from '../pki/verify.js';

/** The statement claims registration reads (a subset of the directory's assertion, src/pki/types.ts). */
export type StatementClaims = Pick<SoftwareStatementClaims, 'software_id'> &
  Partial<Pick<SoftwareStatementClaims, 'software_roles' | 'software_redirect_uris' | 'org_id' | 'exp' | 'software_jwks'>>;

/** The JWT header of §2.1, exactly. */
export interface RegistrationHeader {
  alg: 'PS256';
  kid: string;
  typ: 'JWT';
}

/** Client authentication methods a registration may ask for (DCR v3.2 token_endpoint_auth_method): src/client-auth.ts. */
export type { TokenEndpointAuthMethod };

/** The claims of §2.1 (names on the wire); with another method than client_secret_basic, DCR v3.2's claims for it. */
export interface RegistrationClaims {
  /** §2.1 and private_key_jwt; absent for tls_client_auth (nothing is signed at the token endpoint). */
  token_endpoint_auth_signing_alg?: 'PS256';
  /** §2.1's two grants; `refresh_token` too only when the config asks (RFC 7591 §2). */
  grant_types: ('authorization_code' | 'client_credentials' | 'refresh_token')[];
  subject_type: 'public';
  application_type: 'web';
  iss: string;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  /** tls_client_auth only (RFC 8705 §2.1.2). */
  tls_client_auth_subject_dn?: string;
  /** RFC 8705 §3.4: tokens bound to the transport certificate, asked for with every method but §2.1's
   *  client_secret_basic (whose registration stays as §2.1 gives it). */
  tls_client_certificate_bound_access_tokens?: true;
  aud: string;
  scope: string;
  request_object_signing_alg: 'none' | 'PS256';
  exp: number;
  iat: number;
  jti: string;
  /** §2.1's two; `code` alone under FAPI 2.0 (Security Profile §5.3.2.2: no hybrid flow). */
  response_types: ResponseType[];
  id_token_signed_response_alg: 'PS256';
  software_statement: string;
}

export interface BuildRegistrationClaimsInput {
  /** The software statement assertion, compact JWT, sent as is. */
  softwareStatement: string;
  statementClaims: StatementClaims;
  /** {auth_url} of the target (the profile's issuer in the sandbox): the JWT's `aud`. */
  authUrl: string;
  now: () => Date;
  /** Source of the `jti` (a UUID); injected so output is deterministic in tests. */
  newJti: () => string;
  /** exp = iat + lifetime; §8 uses 3600 in the reference flow. */
  lifetimeSeconds?: number;
  /** Redirect URIs to register; default (and normally) all of the statement's (§2.1). */
  redirectUris?: string[];
  /** Also ask for the refresh_token grant (config `registration.refresh_token_grant`, off by default): §2.1's table names
   *  exactly two grants, and the bank issues refresh tokens to clients registered with authorization_code. */
  refreshToken?: boolean;
  /** The `aud` the bank expects when it is not {auth_url} (e.g. the model bank's organisation id, bank.registration_aud). */
  audience?: string;
  /** client_secret_basic: §2.1 byte for byte. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** tls_client_auth: the DN to register (RFC 4514, most specific first); required with that method. */
  tlsClientAuthSubjectDn?: string;
  /** Default none (§2.1); PS256 for FAPI 1 Advanced request objects. */
  requestObjectSigningAlg?: 'none' | 'PS256';
  /** The FAPI profile's row (flow.fapi): the response_types it registers and when it asks for bound tokens. */
  fapi: Pick<FapiProfile, 'registration' | 'boundTokens'>;
  /** The API families the client will call (flow.apis): their scopes are the registration's (default accounts, §2.1). */
  families?: readonly RegisteredFamily[];
}

/** What the registration reads of a family (src/api-families.ts): the role that may call it, the scope it needs. */
export type RegisteredFamily = Pick<ApiFamily, 'name' | 'role'>;

/**
 * The transport certificate's subject DN as an RFC 4514 string (§2.1: the RDNs last to first, so the most specific,
 * CN, comes first), as a bank computes it from the presented certificate for tls_client_auth (RFC 8705 §2.1.2).
 * Node writes the subject one RDN a line, first to last, with RFC 2253 escapes.
 */
export function subjectDnOf(certificatePem: string): string {
  return new X509Certificate(certificatePem).subject.split('\n').reverse().join(',');
}

/** §2.1: `openid` ("the service"), then the scope of each family the client calls (flow.apis), each once, in the
 *  families table's order (src/api-families.ts: accounts, payments, fundsconfirmations). The default (accounts) is
 *  §2.1's `openid accounts` byte for byte; a client asks only what it uses (RFC 7591 §2 `scope`). */
export function scopeForFamilies(families: readonly RegisteredFamily[]): string {
  return [SERVICE_SCOPE, ...new Set(families.map(familyScope))].join(' ');
}

/** The families a registration asks for when none are named: the account flow (§2.1). */
const DEFAULT_REGISTERED_FAMILIES: readonly RegisteredFamily[] = [API_FAMILIES.accounts];

/** The first family the statement's roles do not allow (its role is not among `software_roles`), if any: the bank
 *  would refuse the scope (DCR v3.2 "Request Validation": a scope beyond the statement's roles). */
export function familyBeyondRoles(families: readonly RegisteredFamily[], roles: readonly string[]): RegisteredFamily | undefined {
  return families.find((family) => !roles.includes(family.role));
}

/** Pure: the exact claim set of §2.1. Throws TypeError on programmer misuse only; local checks are separate. */
export function buildRegistrationClaims(input: BuildRegistrationClaimsInput): RegistrationClaims {
  const lifetime = input.lifetimeSeconds ?? 3600;
  if (!Number.isInteger(lifetime) || lifetime <= 0) throw new TypeError(`lifetimeSeconds must be a positive integer, got ${lifetime}`);
  const iat = Math.floor(input.now().getTime() / 1000);
  const method = input.tokenEndpointAuthMethod;
  if (method === 'tls_client_auth' && (input.tlsClientAuthSubjectDn ?? '') === '')
    throw new TypeError('tls_client_auth needs tlsClientAuthSubjectDn');
  return {
    // DCR v3.2: the signing alg only for methods that sign (§2.1's client_secret_basic carries it too), the DN only
    // for tls_client_auth.
    ...(method === 'tls_client_auth' ? {} : { token_endpoint_auth_signing_alg: 'PS256' as const }),
    grant_types:
      input.refreshToken === true
        ? ['authorization_code', 'client_credentials', 'refresh_token']
        : ['authorization_code', 'client_credentials'],
    subject_type: 'public',
    application_type: 'web',
    iss: input.statementClaims.software_id,
    redirect_uris: [...(input.redirectUris ?? input.statementClaims.software_redirect_uris ?? [])],
    token_endpoint_auth_method: method,
    ...(method === 'tls_client_auth' ? { tls_client_auth_subject_dn: input.tlsClientAuthSubjectDn ?? '' } : {}),
    ...(input.fapi.boundTokens === 'unless-client-secret-basic' && method === 'client_secret_basic'
      ? {}
      : { tls_client_certificate_bound_access_tokens: true as const }),
    aud: input.audience ?? input.authUrl,
    scope: scopeForFamilies(input.families ?? DEFAULT_REGISTERED_FAMILIES),
    request_object_signing_alg: input.requestObjectSigningAlg ?? 'none',
    exp: iat + lifetime,
    iat,
    jti: input.newJti(),
    response_types: [...input.fapi.registration.responseTypes],
    id_token_signed_response_alg: 'PS256',
    software_statement: input.softwareStatement,
  };
}

export interface LocalCheckInput {
  claims: RegistrationClaims;
  /** The families whose scopes the claims ask (default accounts): each must be allowed by the statement's roles. */
  families?: readonly RegisteredFamily[];
  /** The identity is obflow's local test identity (`obflow init`): a missing role is fixed there, not in a directory. */
  localIdentity?: boolean;
  kid: string;
  statementClaims: StatementClaims;
  /** The private signing key (its public half must be the statement's key `kid`). */
  signingKey: KeyObject;
  /** The software's JWKS as the directory publishes it (the statement's `software_jwks` if absent). */
  statementJwks?: { keys: readonly Record<string, unknown>[] };
  /** The transport certificate (PEM) that will carry the request. */
  transportCertificatePem?: string;
  now: () => Date;
}

function invalid(message: string, hint: string): ObflowError {
  return new ObflowError('ERR_REGISTRATION_INVALID', message, { hint });
}

/**
 * Refuses before sending what the bank would refuse (docs/bank-interface.md §2.1 claim rules; the sandbox implements the
 * same DCR v3.2 validation). Returns nothing when everything holds; throws the most specific ObflowError otherwise.
 */
export function checkRegistrationLocally(input: LocalCheckInput): void {
  const { claims, statementClaims } = input;
  const nowSeconds = Math.floor(input.now().getTime() / 1000);

  if (typeof statementClaims.software_id !== 'string' || statementClaims.software_id === '') {
    throw new ObflowError('ERR_SSA_INVALID', 'the software statement has no software_id', {
      hint: 'Re-download the statement from the directory; do not edit it.',
    });
  }
  if (claims.iss !== statementClaims.software_id) {
    throw invalid(
      `iss "${claims.iss}" is not the statement's software_id "${statementClaims.software_id}"`,
      'The registration JWT must be issued by the software statement it carries (DCR v3.2: iss = software_id).',
    );
  }
  if (typeof statementClaims.exp === 'number' && statementClaims.exp <= nowSeconds) {
    throw new ObflowError('ERR_SSA_EXPIRED', `the software statement expired at ${new Date(statementClaims.exp * 1000).toISOString()}`, {
      hint: 'Download a fresh software statement from the directory (or run `obflow init --force` for the local one).',
    });
  }
  if (claims.exp <= claims.iat) throw invalid('exp is not after iat', 'Use a positive lifetime (3600 s by default).');

  const allowed = statementClaims.software_redirect_uris ?? [];
  if (claims.redirect_uris.length === 0) {
    throw new ObflowError('ERR_REDIRECT_URI_MISSING', 'the registration names no redirect URI', {
      hint: 'Add at least one redirect URI to the software statement in the directory.',
    });
  }
  for (const uri of claims.redirect_uris) {
    if (!allowed.includes(uri)) {
      throw new ObflowError('ERR_REDIRECT_URI_NOT_IN_SSA', `redirect URI ${uri} is not in the software statement`, {
        hint: `Use only the statement's redirect URIs: ${allowed.join(', ') || '(none)'}.`,
      });
    }
  }
  const roles = statementClaims.software_roles ?? [];
  // Each family asked (flow.apis) needs its role in the statement (OB R/W Data API Profile, "Pre-conditions for TPPs"):
  // the bank refuses a scope beyond the roles, so obflow names the role before anything is sent.
  const lacking = familyBeyondRoles(input.families ?? DEFAULT_REGISTERED_FAMILIES, roles);
  if (lacking !== undefined) {
    throw invalid(
      `flow.apis names ${lacking.name}, which needs the ${lacking.role} role, but the software statement's roles are [${roles.join(', ')}]`,
      input.localIdentity === true
        ? `The local test identity predates the ${lacking.role} role: issue it again with \`obflow init --force\` ` +
            `(then \`obflow register --force\`), or leave ${lacking.name} out of flow.apis (--apis).`
        : `Register the software with the ${lacking.role} role in the directory and download its statement again, or leave ${lacking.name} out of flow.apis (--apis).`,
    );
  }

  // The bank verifies the JWT with the statement's key `kid`; a different key is refused with invalid_software_statement.
  const jwks = input.statementJwks ?? statementClaims.software_jwks;
  const publicJwk = createPublicKey(input.signingKey).export({ format: 'jwk' });
  if (publicJwk.kty !== 'RSA') {
    throw new ObflowError('ERR_KEY_INVALID', `the signing key is ${String(publicJwk.kty)}, PS256 needs RSA`, {
      hint: 'Use the RSA signing key the directory issued for this software statement.',
    });
  }
  if (jwks !== undefined) {
    const entry = jwks.keys.find((key) => key.kid === input.kid);
    if (entry === undefined) {
      throw new ObflowError('ERR_SIGNING_KEY_MISMATCH', `no key "${input.kid}" in the software statement's JWKS`, {
        hint: `Set the signing kid to one the directory published: ${jwks.keys.map((key) => String(key.kid)).join(', ') || '(none)'}.`,
      });
    }
    if (entry.kty !== publicJwk.kty || entry.n !== publicJwk.n || entry.e !== publicJwk.e) {
      throw new ObflowError('ERR_SIGNING_KEY_MISMATCH', `the signing key is not the statement's key "${input.kid}"`, {
        hint: 'Point the signing key at the private key whose public half the directory published under that kid.',
      });
    }
  }

  if (input.transportCertificatePem !== undefined) {
    const certificate = new X509Certificate(input.transportCertificatePem);
    const now = input.now().getTime();
    if (Date.parse(certificate.validTo) <= now) {
      throw new ObflowError('ERR_CERT_EXPIRED', `the transport certificate expired on ${new Date(certificate.validTo).toISOString()}`, {
        hint: 'Issue a new transport certificate in the directory (or `obflow init --force` locally).',
      });
    }
    if (Date.parse(certificate.validFrom) > now) {
      throw new ObflowError(
        'ERR_CERT_NOT_YET_VALID',
        `the transport certificate is valid only from ${new Date(certificate.validFrom).toISOString()}`,
        {
          hint: "Check this machine's clock, or wait until the certificate becomes valid.",
        },
      );
    }
    // The bank binds the registration to the certificate issued for this statement (CN = software_id, OU = org_id).
    if (statementClaims.org_id !== undefined)
      verifyCertificateForStatement(certificate, { software_id: statementClaims.software_id, org_id: statementClaims.org_id });
  }
}
