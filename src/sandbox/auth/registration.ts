// Dynamic client registration (OBIE DCR v3.2 POST /register, RFC 7591): the body is a PS256-signed JWT whose
// software_statement is verified against the directory's keys and whose own signature against the statement's
// software_jwks; `aud` picks the profile (issuer). Errors are RFC 7591 §3.2.2 bodies with DCR v3.2's codes.

import type { IncomingMessage } from 'node:http';

import * as joseErrors from 'jose/errors';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { createLocalJWKSet } from 'jose/jwks/local';
import { decodeJwt } from 'jose/jwt/decode';
import { jwtVerify } from 'jose/jwt/verify';
import type { JSONWebKeySet, JWTPayload } from 'jose';

import type { ProfileName, RequestContext } from '../contracts.js';
import type { TokenAuthMethod } from '../contracts.js';
import { BANK_FINANCIAL_ID, isBoundToPresentedCertificate, PROFILE_NAMES, TOKEN_AUTH_METHODS } from '../contracts.js';
import { OAuthError } from '../http/errors.js';
import { mediaType, readBody, sendJson, subjectCn } from '../http/io.js';
import { scopesForRoles } from '../families.js';
import { tolerates } from '../policy.js';
import type { StoredClient } from '../store/auth-store.js';
import type { AuthCall, AuthDeps } from './deps.js';
import type { FapiModeRow } from './fapi.js';
import { randomToken, seconds } from './deps.js';

/** Clock skew tolerated on the registration JWT's iat/exp (seconds). */
export const REGISTRATION_CLOCK_TOLERANCE = 60;
/**
 * Longest lifetime (exp - iat, seconds) a registration JWT may declare. The request is single use (jti), so a long
 * life buys nothing, and the jti must be remembered until exp: an exp decades ahead would be kept forever (and one
 * beyond the Date range cannot even be stored).
 */
export const REGISTRATION_MAX_LIFETIME = 24 * 3600;

type RegistrationErrorCode =
  'invalid_client_metadata' | 'invalid_redirect_uri' | 'invalid_software_statement' | 'unapproved_software_statement';

/** RFC 7591 §3.2.2: every registration refusal is 400 with one of these codes. */
function refused(code: RegistrationErrorCode, message: string): OAuthError {
  return new OAuthError(400, code, message);
}

interface StatementClaims {
  softwareId: string;
  orgId: string;
  redirectUris: string[];
  roles: string[];
  jwks: JSONWebKeySet;
  clientName?: string;
}

/** Scopes a software statement's roles allow (OB: accounts for AISP, payments for PISP, fundsconfirmations for
 *  CBPII), plus openid: the API family table's (families.ts). */
export { scopesForRoles };

export async function handleRegistration(call: AuthCall<{ kind: 'registration' }>, deps: AuthDeps): Promise<void> {
  const { req, res, ctx } = call;
  // The type is checked before the body is read: a body that is never read never reaches the verbose log, whose
  // form masking would otherwise print a JWT posted as a form (its whole text parses as one parameter name).
  requireJwtType(req);
  const body = (await readBody(req)).trim();
  const client = await register(body, ctx, deps);
  ctx.clientId = client.clientId;
  sendJson(res, 201, client.metadata);
}

/** DCR v3.2: the request is the signed JWT itself (application/jwt). Plain JSON would let anyone register without
 *  proving possession of the statement's keys, so nothing else is accepted. */
function requireJwtType(req: IncomingMessage): void {
  const type = mediaType(req);
  if (type !== 'application/jwt') throw refused('invalid_client_metadata', `Content-Type must be application/jwt, not ${type || 'none'}`);
}

async function register(body: string, ctx: RequestContext, deps: AuthDeps, existing?: StoredClient): Promise<StoredClient> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    header = decodeProtectedHeader(body);
    unverified = decodeJwt(body);
  } catch {
    throw refused('invalid_client_metadata', 'the body is not a signed JWT (compact JWS)');
  }
  if (header.alg !== 'PS256')
    throw refused('invalid_client_metadata', `the registration JWT must be signed with PS256, not ${String(header.alg)}`);
  if (typeof header.kid !== 'string' || header.kid === '')
    throw refused('invalid_client_metadata', 'the registration JWT header has no kid');

  const ssa = unverified.software_statement;
  if (typeof ssa !== 'string' || ssa === '') throw refused('invalid_software_statement', 'software_statement is missing');
  const statement = await verifyStatement(ssa, deps);

  // The request JWT must be signed by one of the statement's own keys, named by kid.
  if (
    !statement.jwks.keys.some((key: unknown) => key !== null && typeof key === 'object' && (key as { kid?: unknown }).kid === header.kid)
  ) {
    throw refused('invalid_client_metadata', `kid ${header.kid} is not a key of the software statement`);
  }
  const now = deps.now();
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(body, createLocalJWKSet(statement.jwks), {
      algorithms: ['PS256'],
      currentDate: now,
      clockTolerance: REGISTRATION_CLOCK_TOLERANCE,
      requiredClaims: ['iss', 'aud', 'iat', 'exp', 'jti'],
    }));
  } catch (error) {
    throw refused('invalid_client_metadata', describeJoseError(error, 'registration JWT'));
  }
  const nowSeconds = seconds(now);
  // RFC 7519 §2 NumericDate; this bank takes whole seconds only, as every JWT library writes them.
  const { iat, exp } = claims;
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp))
    throw refused('invalid_client_metadata', 'iat and exp must be whole seconds since the epoch (NumericDate)');
  if (typeof iat !== 'number' || typeof exp !== 'number') throw refused('invalid_client_metadata', 'iat and exp are required');
  if (iat > nowSeconds + REGISTRATION_CLOCK_TOLERANCE) {
    throw refused('invalid_client_metadata', `iat is in the future beyond ${REGISTRATION_CLOCK_TOLERANCE} s of the bank's clock`);
  }
  if (exp <= iat || exp - iat > REGISTRATION_MAX_LIFETIME) {
    throw refused('invalid_client_metadata', `exp must be after iat and at most ${REGISTRATION_MAX_LIFETIME / 3600} hours after it`);
  }
  if (claims.iss !== statement.softwareId)
    throw refused('invalid_client_metadata', `iss must be the statement's software_id ${statement.softwareId}`);
  const profile = profileForAudience(claims.aud, deps);
  if (!profile) {
    throw refused(
      'invalid_client_metadata',
      `aud must be one of the issuers: ${PROFILE_NAMES.map((n) => deps.urls.profiles[n].auth_url).join(', ')}`,
    );
  }
  // The transport certificate must be the statement's own (OB transport certificate: CN = software_id, OU =
  // org_id), not merely one the directory issued to someone, unless the profile tolerates foreign-transport-certificate.
  if (!tolerates(profile, 'foreign-transport-certificate') && !certificateBelongs(ctx, statement)) {
    throw refused(
      'unapproved_software_statement',
      'the transport certificate was not issued for this software statement (subject CN must be its software_id)',
    );
  }

  // DCR v3.2 / RFC 7519 §4.1.7: jti is a string; anything else (an object would become "[object Object]" and collide
  // with every other object) is refused rather than coerced.
  const jti = claims.jti;
  if (typeof jti !== 'string' || jti.trim() === '') throw refused('invalid_client_metadata', 'jti must be a non-empty string');
  if (deps.store.jtis.get(jti)) throw refused('invalid_client_metadata', `jti ${jti} was already used (replayed registration request)`);

  const metadata = acceptMetadata(
    claims,
    statement,
    tolerates(profile, 'registration-defaults'),
    deps.tokenAuthMethods,
    deps.fapi,
    deps.refreshTokens !== 'as-registered',
  );
  // exp is bounded above (iat ≤ now + tolerance, exp ≤ iat + 24 h), so this is a valid date.
  deps.store.jtis.set(jti, { expiresAt: new Date((exp + REGISTRATION_CLOCK_TOLERANCE) * 1000).toISOString() });

  if (existing) {
    // DCR v3.2 PUT /register/{ClientId}: the same software statement, the same issuer.
    if (existing.softwareId !== statement.softwareId)
      throw refused('invalid_client_metadata', 'an update must carry the software statement the client registered with');
    if (existing.profile !== profile)
      throw refused('invalid_client_metadata', `an update must keep aud ${deps.urls.profiles[existing.profile].auth_url}`);
  }
  const clientId = existing?.clientId ?? deps.newId();
  // RFC 7591 §3.2.1: a secret only for the method that uses one; private_key_jwt and tls_client_auth have none.
  const usesSecret = metadata.token_endpoint_auth_method === 'client_secret_basic';
  const clientSecret = usesSecret ? existing?.clientSecret || randomToken(24) : '';
  const issuedAt = existing?.clientIdIssuedAt ?? nowSeconds;
  const client: StoredClient = {
    clientId,
    profile,
    softwareId: statement.softwareId,
    orgId: statement.orgId,
    redirectUris: metadata.redirect_uris,
    certificateThumbprints: [
      ...new Set([...(existing?.certificateThumbprints ?? []), ...(ctx.peerThumbprint ? [ctx.peerThumbprint] : [])]),
    ],
    clientSecret,
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
    ...(metadata.tls_client_auth_subject_dn === undefined ? {} : { tlsClientAuthSubjectDn: metadata.tls_client_auth_subject_dn }),
    clientIdIssuedAt: issuedAt,
    scopes: metadata.scope.split(' '),
    grantTypes: metadata.grant_types,
    responseTypes: metadata.response_types,
    requestObjectSigningAlg: metadata.request_object_signing_alg,
    softwareJwks: statement.jwks as StoredClient['softwareJwks'],
    ...(statement.clientName === undefined ? {} : { clientName: statement.clientName }),
    metadata: {
      client_id: clientId,
      ...(usesSecret ? { client_secret: clientSecret } : {}),
      client_id_issued_at: issuedAt,
      ...(usesSecret ? { client_secret_expires_at: 0 } : {}),
      ...metadata,
      software_id: statement.softwareId,
      software_statement: ssa,
    },
  };
  deps.store.clients.set(clientId, client);
  return client;
}

async function verifyStatement(ssa: string, deps: AuthDeps): Promise<StatementClaims> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(ssa, deps.directoryKeys, {
      algorithms: ['PS256', 'RS256'],
      currentDate: deps.now(),
      clockTolerance: REGISTRATION_CLOCK_TOLERANCE,
    }));
  } catch (error) {
    // A statement the directory did not sign (unknown key, bad signature) is not approved here (RFC 7591 §3.2.2).
    if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed) {
      throw refused('unapproved_software_statement', 'the software statement is not signed by a key of the trust directory');
    }
    throw refused('invalid_software_statement', describeJoseError(error, 'software statement'));
  }
  const softwareId = payload.software_id;
  const orgId = payload.org_id;
  const redirectUris = payload.software_redirect_uris;
  const roles = payload.software_roles;
  const jwks = payload.software_jwks;
  if (typeof softwareId !== 'string' || softwareId === '') throw refused('invalid_software_statement', 'the statement has no software_id');
  if (typeof orgId !== 'string' || orgId === '') throw refused('invalid_software_statement', 'the statement has no org_id');
  if (!isStringArray(redirectUris)) throw refused('invalid_software_statement', 'the statement has no software_redirect_uris');
  if (!isStringArray(roles)) throw refused('invalid_software_statement', 'the statement has no software_roles');
  if (jwks === null || typeof jwks !== 'object' || !Array.isArray((jwks as { keys?: unknown }).keys)) {
    throw refused('invalid_software_statement', 'the statement embeds no software_jwks (this sandbox cannot fetch software_jwks_endpoint)');
  }
  const statement: StatementClaims = { softwareId, orgId, redirectUris, roles, jwks: jwks as JSONWebKeySet };
  if (typeof payload.software_client_name === 'string') statement.clientName = payload.software_client_name;
  return statement;
}

function profileForAudience(aud: JWTPayload['aud'], deps: AuthDeps): ProfileName | undefined {
  const values = Array.isArray(aud) ? aud : aud === undefined ? [] : [aud];
  if (values.length !== 1) return undefined;
  const [value] = values;
  // The model bank's form: its issuer id (BANK_FINANCIAL_ID) instead of an issuer URL — the default profile's.
  if (value === BANK_FINANCIAL_ID) return 'strict-headless';
  return PROFILE_NAMES.find((name) => {
    const urls = deps.urls.profiles[name];
    return value === urls.auth_url || value === urls.token_url;
  });
}

function certificateBelongs(ctx: RequestContext, statement: StatementClaims): boolean {
  if (subjectCn(ctx.peerCertificate) !== statement.softwareId) return false;
  const ou = ctx.peerCertificate?.subject?.OU;
  const ous = Array.isArray(ou) ? ou : ou === undefined ? [] : [ou];
  return ous.length === 0 || ous.includes(statement.orgId);
}

interface AcceptedMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method: TokenAuthMethod;
  grant_types: string[];
  response_types: string[];
  scope: string;
  application_type: 'web';
  subject_type: 'public';
  id_token_signed_response_alg: 'PS256';
  request_object_signing_alg: 'none' | 'PS256';
  /** Absent for tls_client_auth unless the client sent it (it signs nothing at the token endpoint). */
  token_endpoint_auth_signing_alg?: 'PS256';
  /** tls_client_auth only (RFC 8705 §2.1.2). */
  tls_client_auth_subject_dn?: string;
}

const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'];

/**
 * Maps the request's claims to client metadata (DCR v3.2 OBRegistrationProperties1). Every claim the bank's table
 * marks required must be there, unless `defaults` (tolerance registration-defaults): a missing claim is then filled
 * with its only allowed value. A wrong value is always refused.
 */
function acceptMetadata(
  claims: JWTPayload,
  statement: StatementClaims,
  defaults: boolean,
  accepted: readonly TokenAuthMethod[],
  fapi: Pick<FapiModeRow, 'responseTypes'>,
  refreshAlways = true,
): AcceptedMetadata {
  const fixed = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = claims[name];
    if (value === undefined) {
      if (!defaults) throw refused('invalid_client_metadata', `${name} is required`);
      return fallback;
    }
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      throw refused('invalid_client_metadata', `${name} must be ${allowed.join(' or ')}`);
    }
    return value as T;
  };

  const redirectUris = claims.redirect_uris;
  if (redirectUris === undefined || (Array.isArray(redirectUris) && redirectUris.length === 0)) {
    throw refused('invalid_redirect_uri', "redirect_uris must name at least one of the statement's software_redirect_uris");
  }
  if (!isStringArray(redirectUris)) throw refused('invalid_redirect_uri', 'redirect_uris must be an array of URIs');
  for (const uri of redirectUris) {
    if (!statement.redirectUris.includes(uri))
      throw refused('invalid_redirect_uri', `redirect URI ${uri} is not in the software statement`);
    if (!uri.startsWith('https://')) throw refused('invalid_redirect_uri', `redirect URI ${uri} is not https`);
  }

  const grantTypes = listClaim(claims, 'grant_types', GRANT_TYPES, defaults, ['authorization_code', 'client_credentials']);
  // The mode's response types (FAPI 2.0 Security Profile §5.3.2.2: code only, so a client asking the hybrid flow is
  // refused, RFC 7591 §3.2.2); all of them where a missing claim is filled in.
  const responseTypes = listClaim(claims, 'response_types', fapi.responseTypes, defaults, [...fapi.responseTypes]);
  // The bank grants refresh_token with authorization_code whether asked or not (the §2.1 registration does not ask),
  // unless `--refresh-tokens as-registered`: then only a client that registered it gets refresh tokens (token.ts).
  if (refreshAlways && grantTypes.includes('authorization_code') && !grantTypes.includes('refresh_token')) grantTypes.push('refresh_token');

  const allowedScopes = scopesForRoles(statement.roles);
  const rawScope = claims.scope;
  let scopes: string[];
  if (rawScope === undefined) {
    if (!defaults) throw refused('invalid_client_metadata', 'scope is required');
    scopes = allowedScopes;
  } else {
    if (typeof rawScope !== 'string') throw refused('invalid_client_metadata', 'scope must be a space-separated string');
    scopes = rawScope.split(/\s+/).filter((s) => s !== '');
    const beyond = scopes.filter((s) => !allowedScopes.includes(s));
    if (beyond.length > 0) {
      throw refused('invalid_client_metadata', `scope ${beyond.join(' ')} is beyond the statement's roles (${statement.roles.join(', ')})`);
    }
    if (!scopes.includes('openid')) scopes.unshift('openid');
  }

  const method = acceptAuthMethod(claims, defaults, accepted);
  const signingAlg =
    method === 'tls_client_auth' && claims.token_endpoint_auth_signing_alg === undefined
      ? undefined
      : fixed('token_endpoint_auth_signing_alg', ['PS256'] as const, 'PS256');
  const subjectDn = claims.tls_client_auth_subject_dn;
  if (method === 'tls_client_auth' && (typeof subjectDn !== 'string' || subjectDn.trim() === '')) {
    throw refused('invalid_client_metadata', 'tls_client_auth needs tls_client_auth_subject_dn (RFC 8705 §2.1.2)');
  }
  // RFC 8705 §2.1.2: the DN is a tls_client_auth claim; beside another method it would name a credential nobody checks.
  if (method !== 'tls_client_auth' && subjectDn !== undefined) {
    throw refused('invalid_client_metadata', `tls_client_auth_subject_dn is only for tls_client_auth, not ${method}`);
  }

  return {
    redirect_uris: [...redirectUris],
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: [...new Set(scopes)].join(' '),
    application_type: fixed('application_type', ['web'] as const, 'web'),
    subject_type: fixed('subject_type', ['public'] as const, 'public'),
    id_token_signed_response_alg: fixed('id_token_signed_response_alg', ['PS256'] as const, 'PS256'),
    request_object_signing_alg: fixed('request_object_signing_alg', ['none', 'PS256'] as const, 'none'),
    ...(signingAlg === undefined ? {} : { token_endpoint_auth_signing_alg: signingAlg }),
    ...(method === 'tls_client_auth' ? { tls_client_auth_subject_dn: String(subjectDn).trim() } : {}),
  };
}

/** DCR v3.2 token_endpoint_auth_method: one of the three, and one this bank accepts (`--token-auth`); the refusal
 *  names what it accepts, as its discovery lists them. */
function acceptAuthMethod(claims: JWTPayload, defaults: boolean, accepted: readonly TokenAuthMethod[]): TokenAuthMethod {
  const value = claims.token_endpoint_auth_method;
  if (value === undefined) {
    if (!defaults) throw refused('invalid_client_metadata', 'token_endpoint_auth_method is required');
    return accepted[0] ?? 'client_secret_basic';
  }
  const method = TOKEN_AUTH_METHODS.find((known) => known === value);
  if (method === undefined || !accepted.includes(method)) {
    throw refused(
      'invalid_client_metadata',
      `token_endpoint_auth_method ${String(value)} is not accepted; this bank accepts ${accepted.join(', ')}`,
    );
  }
  return method;
}

function listClaim(claims: JWTPayload, name: string, allowed: readonly string[], defaults: boolean, fallback: string[]): string[] {
  const value = claims[name];
  if (value === undefined) {
    if (!defaults) throw refused('invalid_client_metadata', `${name} is required`);
    return [...fallback];
  }
  if (!isStringArray(value) || value.length === 0) throw refused('invalid_client_metadata', `${name} must be a non-empty array`);
  const unknown = value.filter((item) => !allowed.includes(item));
  if (unknown.length > 0)
    throw refused('invalid_client_metadata', `${name} ${unknown.join(', ')} not supported (allowed: ${allowed.join(', ')})`);
  return [...new Set(value)];
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function describeJoseError(error: unknown, what: string): string {
  if (error instanceof joseErrors.JWTExpired) return `the ${what} has expired (exp)`;
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the ${what}'s ${error.claim} claim is invalid: ${error.reason}`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return `the ${what}'s signature does not verify`;
  if (error instanceof joseErrors.JWKSNoMatchingKey) return `no key matches the ${what}'s kid`;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return `the ${what}'s algorithm is not allowed`;
  if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid) return `the ${what} is not a valid JWT`;
  return `the ${what} could not be verified`;
}

/**
 * DCR v3.2 GET / PUT / DELETE /register/{ClientId} (optional in the spec): mutual TLS plus a client_credentials
 * access token of that very client (TPPOAuth2Security), bound to the certificate presented (RFC 8705 §3) in every
 * profile: the GET returns the client_secret and the DELETE ends the client, so no tolerance relaxes it. 401
 * invalid_token (DCR v3.2 401Error, RFC 6750 §3.1) for a missing, unknown or other-grant token and for one bound to
 * another certificate; 403 (DCR v3.2 403Error) for another client's.
 */
export async function handleRegistrationById(
  call: AuthCall<{ kind: 'registration-by-id'; clientId: string }>,
  deps: AuthDeps,
): Promise<void> {
  const { req, res, ctx } = call;
  const { clientId } = call.route;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const info = match?.[1] === undefined ? undefined : await deps.store.verify(match[1]);
  const challenge = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };
  if (!info || info.grant !== 'client_credentials') {
    throw new OAuthError(401, 'invalid_token', 'a client_credentials access token of this client is required', challenge);
  }
  if (!isBoundToPresentedCertificate(info, ctx)) {
    throw new OAuthError(401, 'invalid_token', 'the access token is bound to another certificate', challenge);
  }
  const client = info.clientId === clientId ? deps.store.clients.get(clientId) : undefined;
  if (!client) throw new OAuthError(403, 'access_denied', 'the access token belongs to another client');
  ctx.clientId = clientId;
  if (req.method === 'GET') {
    sendJson(res, 200, client.metadata);
    return;
  }
  if (req.method === 'DELETE') {
    deps.store.clients.delete(clientId);
    res.statusCode = 204;
    res.end();
    return;
  }
  if (req.method === 'PUT') {
    requireJwtType(req);
    const updated = await register((await readBody(req)).trim(), ctx, deps, client);
    sendJson(res, 200, updated.metadata);
    return;
  }
  throw new OAuthError(405, 'invalid_request', `${req.method ?? ''} is not allowed on a registration`, { Allow: 'GET, PUT, DELETE' });
}
