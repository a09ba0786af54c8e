// The token endpoint (RFC 6749 §3.2, §4.1.3, §4.4, §6): the client authenticates as it registered (client-auth.ts:
// client_secret_basic, private_key_jwt or tls_client_auth) over mutual TLS; client_credentials,
// authorization_code (single use, bound to client and redirect_uri) and refresh_token. Every access token is bound
// to the certificate it was issued to (RFC 8705 §3, cnf.x5t#S256); that certificate must be the software statement's
// own unless the profile tolerates another (src/sandbox/policy.ts, foreign-transport-certificate).

import { createHash, timingSafeEqual } from 'node:crypto';

import type { AnyConsentRecord, ProfileName, RequestContext } from '../contracts.js';
import { consentKindRow } from '../consent-kinds.js';
import { OAuthError } from '../http/errors.js';
import { mediaType, parseForm, readBody, sendJson, subjectCn } from '../http/io.js';
import { tolerates } from '../policy.js';
import type { StoredClient, TokenRecord } from '../store/auth-store.js';
import { hashSecret } from '../store/auth-store.js';
import { usableConsent } from '../store/consents.js';
import type { AuthDeps, IssuerCall } from './deps.js';
import { randomToken } from './deps.js';
import { authenticateClient } from './client-auth.js';
import { signIdToken } from './id-token.js';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 90 * 24 * 3600;

/** RFC 6749 §5.2: invalid_client is 401 with the authentication scheme the client should use. */
function invalidClient(issuer: string, message: string): OAuthError {
  return new OAuthError(401, 'invalid_client', message, { 'WWW-Authenticate': `Basic realm="${issuer}"` });
}

/** Any other token-endpoint error: 400 (RFC 6749 §5.2). */
function refused(error: string, message: string): OAuthError {
  return new OAuthError(400, error, message);
}

export async function handleToken(call: IssuerCall<'token'>, deps: AuthDeps): Promise<void> {
  const { req, res, ctx, profile } = call;
  const issuer = call.issuer.auth_url;
  if (!ctx.peerAuthorized || !ctx.peerThumbprint) {
    throw invalidClient(issuer, 'a transport certificate issued by the trust directory is required (mutual TLS)');
  }
  if (mediaType(req) !== 'application/x-www-form-urlencoded')
    throw refused('invalid_request', 'the body must be application/x-www-form-urlencoded');
  const { params, repeated } = parseForm(await readBody(req));
  if (repeated.length > 0) throw refused('invalid_request', `parameter ${repeated.join(', ')} is repeated`);

  const client = await authenticateClient(req, params, ctx, profile.name, call.issuer, deps);
  ctx.clientId = client.clientId;
  // The certificate must belong to the software statement that registered (RFC 8705 §2.1; OB transport certificate:
  // subject CN = software_id) — either the very certificate that registered, or another one the directory issued for
  // the same statement — unless the profile tolerates foreign-transport-certificate.
  if (!tolerates(profile.name, 'foreign-transport-certificate') && !certificateOfClient(ctx, client)) {
    throw invalidClient(issuer, "the transport certificate does not belong to this client's software statement");
  }

  const grantType = params.get('grant_type');
  let body: Record<string, unknown>;
  if (grantType === 'client_credentials') body = clientCredentials(client, params, ctx, deps);
  else if (grantType === 'authorization_code') body = await authorizationCode(client, params, ctx, issuer, deps);
  else if (grantType === 'refresh_token') body = await refreshToken(client, profile.name, params, ctx, deps);
  else if (grantType === undefined) throw refused('invalid_request', 'grant_type is missing');
  else throw refused('unsupported_grant_type', `grant_type ${grantType} is not supported`);
  sendJson(res, 200, body, { Pragma: 'no-cache' });
}

export function certificateOfClient(ctx: RequestContext, client: StoredClient): boolean {
  if (ctx.peerThumbprint !== undefined && client.certificateThumbprints.includes(ctx.peerThumbprint)) return true;
  if (subjectCn(ctx.peerCertificate) !== client.softwareId) return false;
  const ou = ctx.peerCertificate?.subject?.OU;
  const ous = Array.isArray(ou) ? ou : ou === undefined ? [] : [ou];
  return ous.length === 0 || ous.includes(client.orgId);
}

function clientCredentials(
  client: StoredClient,
  params: Map<string, string>,
  ctx: RequestContext,
  deps: AuthDeps,
): Record<string, unknown> {
  registeredGrant(client, 'client_credentials');
  const requested = params.get('scope');
  const registered = client.scopes.filter((s) => s !== 'openid');
  // `openid` asks for an ID token about an end user (OIDC Core §3.1.2.1); a client-credentials grant has no end user,
  // so the scope is ignored rather than refused, as the model bank does for its guide's `scope=accounts openid`.
  // RFC 6749 §3.3 lets the server grant less than asked, and the response's `scope` (always sent) then says what was
  // granted. docs/sandbox.md, "Consent URL and tokens".
  const asked = requested === undefined ? undefined : [...new Set(requested.split(/\s+/).filter((s) => s !== ''))];
  const scopes = asked === undefined ? registered : asked.filter((s) => s !== 'openid');
  if (scopes.length === 0)
    throw refused(
      'invalid_scope',
      asked !== undefined && asked.length > 0
        ? 'scope openid alone grants nothing with client_credentials; ask for accounts'
        : 'scope is empty',
    );
  const unavailable = scopes.filter((s) => !registered.includes(s));
  if (unavailable.length > 0)
    throw refused('invalid_scope', `scope ${unavailable.join(' ')} is not available to this client with client_credentials`);
  const accessToken = issue(
    deps,
    { kind: 'access', clientId: client.clientId, profile: client.profile, grant: 'client_credentials', scopes },
    ctx,
    ACCESS_TOKEN_TTL_SECONDS,
  );
  return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' ') };
}

/** RFC 6749 §5.2 unauthorized_client: the client did not register the grant it asks with. */
function registeredGrant(client: StoredClient, grant: string): void {
  if (!client.grantTypes.includes(grant)) throw refused('unauthorized_client', `this client did not register the ${grant} grant`);
}

/** RFC 6749 §5.2 invalid_request: a parameter the grant requires is missing (or empty). */
function requiredParameter(params: Map<string, string>, name: string): string {
  const value = params.get(name);
  if (!value) throw refused('invalid_request', `${name} is missing`);
  return value;
}

async function authorizationCode(
  client: StoredClient,
  params: Map<string, string>,
  ctx: RequestContext,
  issuer: string,
  deps: AuthDeps,
): Promise<Record<string, unknown>> {
  registeredGrant(client, 'authorization_code');
  const code = requiredParameter(params, 'code');
  const codeHash = hashSecret(code);
  const record = deps.store.codes.get(codeHash);
  const now = deps.now();
  if (!record || record.clientId !== client.clientId)
    throw refused('invalid_grant', 'the authorisation code is unknown or was issued to another client');
  if (record.used) {
    // RFC 6749 §4.1.2: a code used twice revokes every token issued from it.
    for (const [key, token] of deps.store.tokens.withTag(codeHash)) deps.store.tokens.set(key, { ...token, revoked: true });
    throw refused('invalid_grant', 'the authorisation code was already used');
  }
  if (new Date(record.expiresAt).getTime() <= now.getTime()) throw refused('invalid_grant', 'the authorisation code has expired');
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined ? record.redirectUriInRequest : redirectUri !== record.redirectUri) {
    throw refused('invalid_grant', 'redirect_uri must be the one of the authorisation request');
  }
  if (record.pkce !== undefined) {
    // RFC 7636 §4.6.
    const verifier = params.get('code_verifier');
    if (!verifier) throw refused('invalid_grant', 'code_verifier is required: the authorisation request carried a code_challenge');
    const derived = record.pkce.method === 'S256' ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : verifier;
    if (!sameText(derived, record.pkce.challenge)) throw refused('invalid_grant', 'code_verifier does not match the code_challenge');
  }
  deps.store.codes.set(codeHash, { ...record, used: true });
  const use = usableConsent(await deps.consents.get(record.consentId), now);
  if (!use.usable)
    throw refused(
      'invalid_grant',
      use.reason === 'expired' ? `consent ${record.consentId} has expired` : `consent ${record.consentId} is no longer Authorised`,
    );

  const base = {
    clientId: client.clientId,
    profile: client.profile,
    grant: 'authorization_code' as const,
    scopes: record.scopes,
    consentId: record.consentId,
    codeHash,
  };
  const lifetime = accessTokenSeconds(use.consent, now);
  const accessToken = issue(deps, { kind: 'access', ...base }, ctx, lifetime);
  const body: Record<string, unknown> = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: lifetime,
    scope: record.scopes.join(' '),
  };
  if (client.grantTypes.includes('refresh_token'))
    body.refresh_token = issue(deps, { kind: 'refresh', ...base }, ctx, REFRESH_TOKEN_TTL_SECONDS);
  if (record.scopes.includes('openid')) {
    body.id_token = await signIdToken(
      await deps.signingKey(),
      { issuer, clientId: client.clientId, consentId: record.consentId, authTime: record.authTime, now, nonce: record.nonce, accessToken },
      deps.idTokenFault,
    );
  }
  return body;
}

async function refreshToken(
  client: StoredClient,
  profile: ProfileName,
  params: Map<string, string>,
  ctx: RequestContext,
  deps: AuthDeps,
): Promise<Record<string, unknown>> {
  registeredGrant(client, 'refresh_token');
  const value = requiredParameter(params, 'refresh_token');
  const record = deps.store.tokens.get(hashSecret(value));
  const now = deps.now();
  if (
    !record ||
    record.kind !== 'refresh' ||
    record.revoked ||
    record.clientId !== client.clientId ||
    new Date(record.expiresAt).getTime() <= now.getTime()
  ) {
    throw refused('invalid_grant', "the refresh token is unknown, expired, revoked or another client's");
  }
  // RFC 8705 §4: a refresh token of a certificate-bound grant stays with that certificate (tolerance refresh-token-unbound).
  if (
    !tolerates(profile, 'refresh-token-unbound') &&
    record.certificateThumbprint !== undefined &&
    record.certificateThumbprint !== ctx.peerThumbprint
  ) {
    throw refused('invalid_grant', 'the refresh token was issued to another certificate');
  }
  // A refresh token outlives nothing: once its consent is revoked or past ExpirationDateTime it mints no access token.
  const use = usableConsent(record.consentId === undefined ? undefined : await deps.consents.get(record.consentId), now);
  if (!use.usable)
    throw refused(
      'invalid_grant',
      use.reason === 'expired'
        ? 'the consent behind this refresh token has expired'
        : 'the consent behind this refresh token is no longer Authorised',
    );
  const requested = params.get('scope');
  let scopes = record.scopes;
  if (requested !== undefined) {
    scopes = [...new Set(requested.split(/\s+/).filter((s) => s !== ''))];
    if (scopes.some((s) => !record.scopes.includes(s))) throw refused('invalid_scope', 'a refresh may only narrow the original scope');
  }
  const fields: Omit<TokenRecord, 'expiresAt' | 'revoked' | 'certificateThumbprint'> = {
    kind: 'access',
    clientId: client.clientId,
    profile: client.profile,
    grant: 'authorization_code',
    scopes,
    ...(record.consentId === undefined ? {} : { consentId: record.consentId }),
    ...(record.codeHash === undefined ? {} : { codeHash: record.codeHash }),
  };
  const lifetime = accessTokenSeconds(use.consent, now);
  const accessToken = issue(deps, fields, ctx, lifetime);
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: lifetime,
    scope: scopes.join(' '),
    refresh_token: value,
  };
}

/** How long an access token of `consent` lasts: its kind's row says (a VRP consent's token lasts as long as the consent,
 *  consent-kinds.ts), else ACCESS_TOKEN_TTL_SECONDS. */
function accessTokenSeconds(consent: AnyConsentRecord, now: Date): number {
  return consentKindRow(consent).accessTokenSeconds?.(consent, now) ?? ACCESS_TOKEN_TTL_SECONDS;
}

function issue(
  deps: AuthDeps,
  fields: Omit<TokenRecord, 'expiresAt' | 'revoked' | 'certificateThumbprint'>,
  ctx: RequestContext,
  ttl: number,
): string {
  const value = randomToken(32);
  const record: TokenRecord = {
    ...fields,
    expiresAt: new Date(deps.now().getTime() + ttl * 1000).toISOString(),
    revoked: false,
  };
  if (ctx.peerThumbprint !== undefined) record.certificateThumbprint = ctx.peerThumbprint;
  deps.store.tokens.set(hashSecret(value), record);
  return value;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
