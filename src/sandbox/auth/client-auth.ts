// Client authentication at the token endpoint, per client as registered (token_endpoint_auth_method, OIDC Core §9):
// client_secret_basic (RFC 6749 §2.3.1; client_secret_post where tolerated), private_key_jwt (RFC 7523 §2.2 / §3: a
// PS256 client assertion verified with the software statement's keys, as the registration JWT is; aud, exp and jti
// replay checked) and tls_client_auth (RFC 8705 §2.1.2: the presented certificate's subject DN is the registered one).
// A method this bank does not accept (`--token-auth`) or another than the client registered is invalid_client.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import * as joseErrors from 'jose/errors';
import { createLocalJWKSet } from 'jose/jwks/local';
import { decodeJwt } from 'jose/jwt/decode';
import { jwtVerify } from 'jose/jwt/verify';
import type { JSONWebKeySet, JWTPayload } from 'jose';

import type { ProfileName, RequestContext, SandboxUrls, TokenAuthMethod } from '../contracts.js';
import { OAuthError } from '../http/errors.js';
import { tolerates } from '../policy.js';
import type { StoredClient } from '../store/auth-store.js';
import type { AuthDeps } from './deps.js';
import { seconds } from './deps.js';
import { sameSubjectDn, subjectDnOf } from './subject-dn.js';

/** RFC 7523 §2.2: the only assertion type of private_key_jwt. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Clock skew tolerated on an assertion's exp/iat/nbf (seconds). */
export const CLIENT_ASSERTION_CLOCK_TOLERANCE = 60;
/** Longest an assertion may still live (exp - now): its jti is remembered until exp, so a far exp is refused. */
export const CLIENT_ASSERTION_MAX_LIFETIME = 3600;

/** How a request authenticates, read from its shape; client_secret_post counts as the client_secret_basic client. */
type Presented = TokenAuthMethod | 'client_secret_post';

/** RFC 6749 §5.2: invalid_client is 401 with the authentication scheme the client should use. */
function invalidClient(issuer: string, message: string): OAuthError {
  return new OAuthError(401, 'invalid_client', message, { 'WWW-Authenticate': `Basic realm="${issuer}"` });
}

export async function authenticateClient(
  req: IncomingMessage,
  params: Map<string, string>,
  ctx: RequestContext,
  profile: ProfileName,
  issuer: SandboxUrls['profiles'][ProfileName],
  deps: AuthDeps,
): Promise<StoredClient> {
  const presented = presentedMethods(req, params);
  if (presented.length > 1)
    throw new OAuthError(400, 'invalid_request', `use one client authentication method, not ${presented.join(' and ')}`);
  const method = presented[0];
  const accepted = deps.tokenAuthMethods;
  if (method === undefined)
    throw invalidClient(issuer.auth_url, `client authentication is required (this bank accepts ${accepted.join(', ')})`);
  const family: TokenAuthMethod = method === 'client_secret_post' ? 'client_secret_basic' : method;
  if (!accepted.includes(family)) {
    throw invalidClient(issuer.auth_url, `${method} is not accepted at this token endpoint; this bank accepts ${accepted.join(', ')}`);
  }
  if (method === 'client_secret_post' && !tolerates(profile, 'client-secret-post')) {
    throw invalidClient(
      issuer.auth_url,
      'client authentication is required (client_secret_post is not accepted here: use client_secret_basic)',
    );
  }

  const client =
    method === 'private_key_jwt'
      ? await byAssertion(params, issuer, deps)
      : method === 'tls_client_auth'
        ? byCertificate(params, ctx, profile, issuer.auth_url, deps)
        : bySecret(req, params, method, issuer.auth_url, deps);

  if (params.has('client_id') && params.get('client_id') !== client.clientId)
    throw new OAuthError(400, 'invalid_request', 'client_id differs from the authenticated client');
  if (client.profile !== profile) {
    throw invalidClient(
      issuer.auth_url,
      `this client registered with ${deps.urls.profiles[client.profile].auth_url}; use its token endpoint`,
    );
  }
  return client;
}

/** OIDC Registration §2 token_endpoint_auth_method: the client authenticates the way it registered, nothing else;
 *  checked before any credential of another method is looked at. */
function requireRegistered(client: StoredClient, family: TokenAuthMethod, issuer: string, presented: Presented = family): void {
  // Stored before the methods existed: client_secret_basic, the only method then.
  const registered = client.tokenEndpointAuthMethod ?? 'client_secret_basic';
  if (registered !== family)
    throw invalidClient(issuer, `this client registered token_endpoint_auth_method ${registered}, not ${presented}`);
}

function presentedMethods(req: IncomingMessage, params: Map<string, string>): Presented[] {
  const methods: Presented[] = [];
  if (req.headers.authorization !== undefined) methods.push('client_secret_basic');
  if (params.has('client_assertion') || params.has('client_assertion_type')) methods.push('private_key_jwt');
  if (params.has('client_secret')) methods.push('client_secret_post');
  // RFC 8705 §2.1: client_id alone, the certificate being the credential.
  if (methods.length === 0 && params.has('client_id')) methods.push('tls_client_auth');
  return methods;
}

/** client_secret_basic (form-urlencoded id and secret inside Basic, RFC 6749 §2.3.1) or, tolerated, client_secret_post. */
function bySecret(req: IncomingMessage, params: Map<string, string>, method: Presented, issuer: string, deps: AuthDeps): StoredClient {
  let clientId: string | undefined;
  let secret: string | undefined;
  if (method === 'client_secret_basic') {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1]) throw invalidClient(issuer, 'the Authorization header must be Basic base64(client_id:client_secret)');
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient(issuer, 'the Basic credentials have no colon');
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw invalidClient(issuer, 'the Basic credentials are not form-urlencoded');
    }
  } else {
    clientId = params.get('client_id');
    secret = params.get('client_secret');
  }
  const client = deps.store.clients.get(clientId ?? '');
  if (client) requireRegistered(client, 'client_secret_basic', issuer, method);
  // A client without a secret (private_key_jwt, tls_client_auth) has '' stored: no presented secret matches it.
  if (!client || secret === undefined || client.clientSecret === '' || !sameText(client.clientSecret, secret)) {
    throw invalidClient(issuer, 'unknown client or wrong client secret');
  }
  return client;
}

/** private_key_jwt: RFC 7523 §3 claims, the signature with the statement's own keys (software_jwks), PS256 only. */
async function byAssertion(
  params: Map<string, string>,
  issuer: SandboxUrls['profiles'][ProfileName],
  deps: AuthDeps,
): Promise<StoredClient> {
  const refuse = (message: string): OAuthError => invalidClient(issuer.auth_url, `client assertion: ${message}`);
  if (params.get('client_assertion_type') !== CLIENT_ASSERTION_TYPE)
    throw refuse(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE} (RFC 7523 §2.2)`);
  const assertion = params.get('client_assertion') ?? '';
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(assertion);
  } catch {
    throw refuse('not a signed JWT (compact JWS)');
  }
  const clientId = typeof unverified.iss === 'string' ? unverified.iss : '';
  const client = deps.store.clients.get(clientId);
  if (!client) throw refuse(`iss "${clientId}" is no client of this bank (RFC 7523 §3: iss = client_id)`);
  requireRegistered(client, 'private_key_jwt', issuer.auth_url);
  const now = deps.now();
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(assertion, createLocalJWKSet(client.softwareJwks as JSONWebKeySet), {
      algorithms: ['PS256'],
      currentDate: now,
      clockTolerance: CLIENT_ASSERTION_CLOCK_TOLERANCE,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
    }));
  } catch (error) {
    throw refuse(describeJoseError(error));
  }
  if (claims.sub !== client.clientId) throw refuse(`sub must be the client id ${client.clientId} (RFC 7523 §3)`);
  // RFC 7523 §3 / OIDC Core §9: aud is the token endpoint (the issuer is accepted too, as most servers do). FAPI 2.0
  // Security Profile §5.3.2.1 (final, after the audience-injection finding): the issuer identifier alone, as a string,
  // at every endpoint (token and PAR), in every profile; oidc-provider's FAPI 2.0 profile answers the same.
  if (deps.fapi.assertionAudience === 'issuer-only') {
    if (claims.aud !== issuer.auth_url)
      throw refuse(`aud must be the issuer identifier ${issuer.auth_url} as a string (FAPI 2.0 Security Profile §5.3.2.1)`);
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.some((aud) => aud === issuer.token_url || aud === issuer.auth_url)) {
    throw refuse(`aud ${JSON.stringify(claims.aud)} is not this token endpoint ${issuer.token_url} (RFC 7523 §3)`);
  }
  const exp = Number(claims.exp);
  if (exp - seconds(now) > CLIENT_ASSERTION_MAX_LIFETIME) throw refuse(`exp is more than ${CLIENT_ASSERTION_MAX_LIFETIME} s ahead`);
  const jti = claims.jti;
  if (typeof jti !== 'string' || jti === '') throw refuse('jti must be a non-empty string');
  // RFC 7523 §3 item 7: a jti seen before (until its exp) is a replay.
  const key = `client_assertion:${client.clientId}:${jti}`;
  if (deps.store.jtis.get(key)) throw refuse(`jti ${jti} was already used (replayed assertion)`);
  deps.store.jtis.set(key, { expiresAt: new Date((exp + CLIENT_ASSERTION_CLOCK_TOLERANCE) * 1000).toISOString() });
  return client;
}

/** tls_client_auth: the client named by client_id, the presented certificate's subject DN its registered one. */
function byCertificate(
  params: Map<string, string>,
  ctx: RequestContext,
  profile: ProfileName,
  issuer: string,
  deps: AuthDeps,
): StoredClient {
  const client = deps.store.clients.get(params.get('client_id') ?? '');
  if (!client) throw invalidClient(issuer, 'unknown client');
  requireRegistered(client, 'tls_client_auth', issuer);
  const registered = client.tlsClientAuthSubjectDn;
  const presented = subjectDnOf(ctx.peerCertificate);
  if (registered === undefined || presented === undefined) {
    throw invalidClient(issuer, `tls_client_auth: ${registered === undefined ? 'the client registered no subject DN' : 'no certificate'}`);
  }
  if (!sameSubjectDn(presented, registered, tolerates(profile, 'tls-client-auth-dn-form'))) {
    throw invalidClient(
      issuer,
      `tls_client_auth: the certificate's subject DN "${presented}" is not the registered tls_client_auth_subject_dn "${registered}" (RFC 8705 §2.1.2)`,
    );
  }
  return client;
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'it has expired (exp)';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `its ${error.claim} claim is invalid: ${error.reason}`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "its signature does not verify with the software statement's keys";
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the software statement matches its kid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'its algorithm is not PS256';
  return 'it is not a valid JWT';
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
