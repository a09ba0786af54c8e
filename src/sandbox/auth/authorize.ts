// The authorization endpoint (RFC 6749 §4.1, OIDC Core §3.1.2 / §3.3.2, FAPI 1 Advanced §5.2.2, OB Security Profile):
// parses the request and its request object, applies the profile's rules (strict: every rule the standard has;
// permissive: tolerates common client mistakes, never unsafe ones), then either answers at once as the default
// test user (headless) or hands over to the login and consent pages (interactive).

import type { IncomingMessage, ServerResponse } from 'node:http';

import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { JSONWebKeySet, JWTPayload } from 'jose';

import type { ConsentRecord, Profile } from '../contracts.js';
import { ConsentStateError } from '../contracts.js';
import { DEFAULT_TEST_USER, userByUsername } from '../data/users.js';
import { oauthErrorDescription, redirect, sendHtml } from '../http/io.js';
import type { CodeRecord, InteractionRecord, Pkce, StoredClient } from '../store/auth-store.js';
import { hashSecret } from '../store/auth-store.js';
import { usableConsent } from '../store/consents.js';
import type { AuthDeps } from './deps.js';
import { randomToken, seconds } from './deps.js';
import { signIdToken } from './id-token.js';
import { errorPage } from './pages.js';

/** Authorisation codes live 10 minutes at most (RFC 6749 §4.1.2). */
export const CODE_TTL_SECONDS = 600;
/** How long a PSU has to log in and confirm. */
export const INTERACTION_TTL_SECONDS = 900;
/** FAPI 1 Advanced Part 2 §5.2.2-13 and -17: a request object lives at most 60 minutes from its `nbf`. */
const REQUEST_OBJECT_MAX_LIFETIME = 3600;
const CLOCK_TOLERANCE = 30;

/** The validated authorisation request, as the rest of the flow needs it. */
export interface AuthorizationRequest {
  client: StoredClient;
  redirectUri: string;
  redirectUriInRequest: boolean;
  responseType: 'code' | 'code id_token';
  state?: string;
  nonce?: string;
  pkce?: Pkce;
  scopes: string[];
  consent: ConsentRecord;
  loginHint?: string;
}

/** A failure that may go back to the client (redirect_uri validated) or must stay at the bank (error page). */
class AuthorizeError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly redirectable: boolean,
  ) {
    super(message);
  }
}

export async function handleAuthorize(req: IncomingMessage, res: ServerResponse, profile: Profile, url: URL, deps: AuthDeps, clientIdOut: (id: string) => void): Promise<void> {
  if (req.method !== 'GET') {
    res.setHeader('Allow', 'GET');
    sendHtml(res, 405, errorPage('Method not allowed', 'The authorisation endpoint answers GET.'));
    return;
  }
  const issuer = deps.urls.profiles[profile.name].auth_url;
  const query = url.searchParams;
  let target: { redirectUri: string; responseType: string; state: string | undefined } | undefined;
  try {
    const request = await validate(query, profile, issuer, deps, (partial) => {
      target = partial;
    });
    clientIdOut(request.client.clientId);
    if (profile.consent === 'headless') {
      await answerHeadless(res, request, issuer, deps);
      return;
    }
    const uid = randomToken(16);
    const interaction: InteractionRecord = {
      uid,
      profile: profile.name,
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      redirectUriInRequest: request.redirectUriInRequest,
      responseType: request.responseType,
      consentId: request.consent.ConsentId,
      scopes: request.scopes,
      expiresAt: new Date(deps.now().getTime() + INTERACTION_TTL_SECONDS * 1000).toISOString(),
    };
    if (request.state !== undefined) interaction.state = request.state;
    if (request.nonce !== undefined) interaction.nonce = request.nonce;
    if (request.pkce !== undefined) interaction.pkce = request.pkce;
    deps.store.interactions.set(uid, interaction);
    // The interaction is bound to this browser by a cookie scoped to the interaction pages.
    // Scoped to this interaction's own pages, so several journeys can run side by side in one browser.
    res.setHeader('Set-Cookie', `obflow_interaction=${uid}; Path=/${profile.name}/interaction/${uid}; HttpOnly; Secure; SameSite=Lax`);
    redirect(res, `${issuer}/interaction/${uid}`);
  } catch (error) {
    if (!(error instanceof AuthorizeError)) throw error;
    if (error.redirectable && target) {
      redirect(res, errorRedirect(target.redirectUri, target.responseType, error.error, error.message, target.state));
      return;
    }
    // RFC 6749 §4.1.2.1: never redirect to an unverified redirect_uri; tell the user instead.
    sendHtml(res, 400, errorPage('This request cannot be completed', `${error.error}: ${error.message}`));
  }
}

async function validate(
  query: URLSearchParams,
  profile: Profile,
  issuer: string,
  deps: AuthDeps,
  onRedirectKnown: (target: { redirectUri: string; responseType: string; state: string | undefined }) => void,
): Promise<AuthorizationRequest> {
  const strict = profile.strictness === 'strict';
  const fail = (error: string, message: string, redirectable = true): never => {
    throw new AuthorizeError(error, message, redirectable);
  };
  for (const name of new Set(query.keys())) {
    if (query.getAll(name).length > 1) fail('invalid_request', `parameter ${name} is repeated`, false);
  }
  const queryClientId = query.get('client_id');
  if (!queryClientId) fail('invalid_request', 'client_id is missing', false);
  const client = deps.store.clients.get(queryClientId ?? '');
  if (!client) return fail('invalid_client', 'client_id is not a registered client', false);
  if (client.profile !== profile.name) {
    fail('invalid_client', `this client registered with ${deps.urls.profiles[client.profile].auth_url}; use that issuer`, false);
  }
  if (query.has('request_uri')) fail('request_uri_not_supported', 'request_uri is not supported; send the request object by value', false);

  // Request object (OIDC Core §6.1): decode now, verify after the redirect target is known so errors can go back.
  const requestJwt = query.get('request');
  let object: JWTPayload | undefined;
  let objectError: string | undefined;
  if (requestJwt) {
    try {
      object = await readRequestObject(requestJwt, client, issuer, strict, deps.now());
    } catch (error) {
      objectError = error instanceof RequestObjectError ? error.message : 'the request object is not a valid JWT';
      object = undefined;
    }
  }
  // Strict (FAPI 1 Advanced §5.2.2-10): only the request object's parameters count. Permissive: the request object
  // wins over the query, and parameters only in the query are used too.
  const param = (name: string): string | undefined => {
    const fromObject = object?.[name];
    if (fromObject !== undefined && fromObject !== null) return typeof fromObject === 'string' ? fromObject : JSON.stringify(fromObject);
    if (strict && object !== undefined && name !== 'client_id') return undefined;
    return query.get(name) ?? undefined;
  };

  const requestedRedirect = param('redirect_uri');
  let redirectUri: string;
  if (requestedRedirect === undefined) {
    if (strict || client.redirectUris.length !== 1) fail('invalid_request', 'redirect_uri is missing', false);
    redirectUri = client.redirectUris[0] ?? '';
  } else {
    // Exact string match in both profiles (OAuth 2.0 Security BCP §4.1.3): an unregistered target is never tolerated.
    if (!client.redirectUris.includes(requestedRedirect)) fail('invalid_request', `redirect_uri ${requestedRedirect} is not registered for this client`, false);
    redirectUri = requestedRedirect;
  }
  // param() already falls back to the query where the profile allows it; strict takes the request object's only.
  const rawResponseType = param('response_type') ?? '';
  const responseType = normaliseResponseType(rawResponseType);
  const queryResponseType = query.get('response_type');
  const state = param('state');
  // Where an error goes (query or fragment) follows the response_type asked for, from the query if need be.
  onRedirectKnown({ redirectUri, responseType: responseType ?? normaliseResponseType(queryResponseType ?? '') ?? 'code', state });

  // Strict (FAPI 1 Advanced §5.2.2-10, OIDC Core §6.1): response_type and scope come from the request object; the
  // query's copies are only there for OAuth 2.0 syntax and must match.
  if (strict && object) {
    const missing = ['response_type', 'scope'].filter((name) => object?.[name] === undefined || object[name] === null);
    if (missing.length > 0) fail('invalid_request_object', `the request object must carry ${missing.join(' and ')}; this profile uses only its parameters`);
  }
  if (!responseType) fail('unsupported_response_type', `response_type must be code or code id_token, not ${rawResponseType}`);
  if (object && queryResponseType !== null && normaliseResponseType(queryResponseType) !== responseType) {
    fail('invalid_request', 'response_type differs between the query and the request object');
  }
  if (object && object.client_id !== undefined && object.client_id !== client.clientId) fail('invalid_request_object', 'client_id differs between the query and the request object');
  if (!client.responseTypes.includes(responseType ?? '')) fail('unauthorized_client', `this client did not register response_type ${responseType ?? ''}`);
  if (!client.grantTypes.includes('authorization_code')) fail('unauthorized_client', 'this client did not register the authorization_code grant');

  if (objectError !== undefined) fail('invalid_request_object', objectError);
  if (strict && !object) fail('invalid_request', 'a request object (request=) is required by this profile');
  if (strict) {
    // OIDC Core §6.1: response_type, client_id and scope must also be in the query when a request object is used.
    if (!queryClientId || !queryResponseType || !query.get('scope')) fail('invalid_request', 'client_id, response_type and scope must also be query parameters');
  }

  const rawScope = param('scope') ?? '';
  const queryScope = query.get('scope');
  if (strict && object && queryScope !== null && scopeSet(queryScope) !== scopeSet(rawScope)) fail('invalid_request', 'scope differs between the query and the request object');
  if (strict && rawScope !== rawScope.trim().split(/\s+/).join(' ')) fail('invalid_scope', 'scope must be space-separated values without extra spaces');
  const scopes = [...new Set(rawScope.split(/\s+/).filter((s) => s !== ''))];
  if (!scopes.includes('openid') && (strict || responseType === 'code id_token')) fail('invalid_scope', 'scope must include openid');
  const beyond = scopes.filter((s) => !client.scopes.includes(s));
  if (beyond.length > 0) fail('invalid_scope', `scope ${beyond.join(' ')} was not registered by this client`);
  if (!scopes.some((s) => s === 'accounts' || s === 'payments')) fail('invalid_scope', 'scope must include accounts');

  if (strict && state === undefined) fail('invalid_request', 'state is required by this profile');
  const nonce = param('nonce');
  // OIDC Core §3.3.2.11 requires nonce for the hybrid flow; strict profiles require it always (FAPI 1 §5.2.2.2).
  if (nonce === undefined && (strict || responseType === 'code id_token')) fail('invalid_request', 'nonce is required');

  const intentId = intentIdOf(param('claims'), strict, fail);
  if (!intentId) return fail('invalid_request', 'claims must name the consent as id_token.openbanking_intent_id');
  const consent = await deps.consents.get(intentId);
  // Another client's consent looks exactly like an unknown one: never reveal that it exists.
  if (!consent || consent.clientId !== client.clientId) return fail('invalid_request', `openbanking_intent_id ${intentId} is not a consent of this client`);
  const use = usableConsent(consent, deps.now(), 'AwaitingAuthorisation');
  if (!use.usable && use.reason === 'status') fail('invalid_request', `consent ${intentId} is ${consent.Status}, not AwaitingAuthorisation`);
  if (!use.usable && use.reason === 'expired') fail('invalid_request', `consent ${intentId} expired at ${consent.ExpirationDateTime ?? ''}`);

  // RFC 7636: optional here (OB does not require PKCE), enforced at the token endpoint once asked for. Strict profiles
  // accept only S256 (FAPI 1 Advanced §5.2.2-18); permissive ones also "plain".
  const challenge = param('code_challenge');
  const method = param('code_challenge_method') ?? (challenge === undefined ? undefined : 'plain');
  let pkce: Pkce | undefined;
  if (challenge !== undefined) {
    if (method !== 'S256' && (strict || method !== 'plain')) fail('invalid_request', `code_challenge_method ${method ?? ''} is not supported${strict ? ' (S256 only)' : ''}`);
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) fail('invalid_request', 'code_challenge must be 43 to 128 unreserved characters');
    pkce = { challenge, method: method as Pkce['method'] };
  } else if (method !== undefined) {
    fail('invalid_request', 'code_challenge_method without code_challenge');
  }

  const request: AuthorizationRequest = {
    client,
    redirectUri,
    redirectUriInRequest: requestedRedirect !== undefined,
    responseType: responseType as AuthorizationRequest['responseType'],
    scopes,
    consent,
  };
  if (state !== undefined) request.state = state;
  if (nonce !== undefined) request.nonce = nonce;
  if (pkce !== undefined) request.pkce = pkce;
  const loginHint = param('login_hint');
  if (loginHint !== undefined) request.loginHint = loginHint;
  return request;
}

class RequestObjectError extends Error {}

/** OIDC Core §6.1 / FAPI 1 §5.2.2: `alg: none` (the sandbox registration's choice) or PS256 with the statement's keys. */
async function readRequestObject(jwt: string, client: StoredClient, issuer: string, strict: boolean, now: Date): Promise<JWTPayload> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(jwt).alg;
  } catch {
    throw new RequestObjectError('the request object is not a JWT');
  }
  let payload: JWTPayload;
  if (alg === 'none') {
    // OIDC Registration §2: a client that registered a signing algorithm has every other request object refused.
    if (client.requestObjectSigningAlg === 'PS256') throw new RequestObjectError('this client registered request_object_signing_alg PS256; unsigned request objects are refused');
    const [, body, signature] = jwt.split('.');
    if (body === undefined || signature !== '') throw new RequestObjectError('an unsigned request object must have an empty signature part');
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as JWTPayload;
    } catch {
      throw new RequestObjectError('the request object payload is not JSON');
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new RequestObjectError('the request object payload is not a JSON object');
    if (typeof payload.exp === 'number' && payload.exp + CLOCK_TOLERANCE < seconds(now)) throw new RequestObjectError('the request object has expired');
  } else if (alg === 'PS256') {
    try {
      ({ payload } = await jwtVerify(jwt, createLocalJWKSet(client.softwareJwks as JSONWebKeySet), {
        algorithms: ['PS256'],
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE,
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new RequestObjectError('the request object has expired');
      throw new RequestObjectError('the request object signature does not verify with the software statement\'s keys');
    }
  } else {
    throw new RequestObjectError(`request object algorithm ${String(alg)} is not supported (none or PS256)`);
  }
  if (strict) {
    // FAPI 1 Advanced Part 2 §5.2.2-13: "shall require the request object to contain an exp claim that has a lifetime
    // of no longer than 60 minutes after the nbf claim"; -17: "shall require the request object to contain an nbf claim
    // that is no longer than 60 minutes in the past". Permissive profiles tolerate a missing nbf (docs/sandbox.md).
    if (typeof payload.exp !== 'number') throw new RequestObjectError('the request object must carry exp');
    if (typeof payload.nbf !== 'number') throw new RequestObjectError('the request object must carry nbf');
    // RFC 7519 §4.1.5: not accepted before nbf (the signed path's jwtVerify checks it too).
    if (payload.nbf > seconds(now) + CLOCK_TOLERANCE) throw new RequestObjectError('the request object is not valid yet (nbf is in the future)');
    if (seconds(now) - payload.nbf > REQUEST_OBJECT_MAX_LIFETIME + CLOCK_TOLERANCE) throw new RequestObjectError('the request object\'s nbf is more than 60 minutes in the past');
    if (payload.exp - payload.nbf > REQUEST_OBJECT_MAX_LIFETIME) throw new RequestObjectError('the request object must not live longer than 60 minutes after its nbf');
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(issuer)) throw new RequestObjectError(`the request object's aud must be the issuer ${issuer}`);
    if (payload.iss !== undefined && payload.iss !== client.clientId) throw new RequestObjectError('the request object\'s iss must be the client_id');
  } else if (payload.aud !== undefined) {
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(issuer)) throw new RequestObjectError(`the request object's aud names another server, not ${issuer}`);
  }
  return payload;
}

function scopeSet(value: string): string {
  return [...new Set(value.split(/\s+/).filter((s) => s !== ''))].sort().join(' ');
}

function normaliseResponseType(value: string): 'code' | 'code id_token' | undefined {
  const parts = value.split(/\s+/).filter((p) => p !== '').sort();
  const joined = parts.join(' ');
  if (joined === 'code') return 'code';
  if (joined === 'code id_token') return 'code id_token';
  return undefined;
}

/** OB Security Profile: the consent is named by the essential claim openbanking_intent_id (id_token or userinfo). */
function intentIdOf(claimsParam: string | undefined, strict: boolean, fail: (error: string, message: string) => never): string | undefined {
  if (claimsParam === undefined) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(claimsParam);
  } catch {
    return fail('invalid_request', 'claims is not JSON');
  }
  for (const member of ['id_token', 'userinfo']) {
    const request = (claims as Record<string, Record<string, { value?: unknown; essential?: unknown } | null> | undefined>)?.[member]?.openbanking_intent_id;
    if (request && typeof request.value === 'string') {
      if (strict && request.essential !== true) fail('invalid_request', 'openbanking_intent_id must be requested as essential');
      return request.value;
    }
  }
  return undefined;
}

/** Errors go where the response would have gone: the fragment for the hybrid flow (OIDC Core §3.3.2.6). */
export function errorRedirect(redirectUri: string, responseType: string, error: string, description: string, state: string | undefined): string {
  const params = new URLSearchParams({ error, error_description: oauthErrorDescription(description) });
  if (state !== undefined) params.set('state', state);
  return withParams(redirectUri, responseType === 'code' ? 'query' : 'fragment', params);
}

function withParams(redirectUri: string, mode: 'query' | 'fragment', params: URLSearchParams): string {
  if (mode === 'fragment') return `${redirectUri}#${params.toString()}`;
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${params.toString()}`;
}

/** Headless profiles: the default test user (or login_hint's) authorises every account they hold, at once. */
async function answerHeadless(res: ServerResponse, request: AuthorizationRequest, issuer: string, deps: AuthDeps): Promise<void> {
  const user = userByUsername(request.loginHint ?? DEFAULT_TEST_USER);
  if (!user) {
    redirect(res, errorRedirect(request.redirectUri, request.responseType, 'login_required', `login_hint ${request.loginHint ?? ''} names no test user (alex, sam, jo)`, request.state));
    return;
  }
  const accountIds = deps.bank.accountsOf(user.psuId).map((account) => account.accountId);
  const location = await completeAuthorisation(
    {
      issuer,
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      redirectUriInRequest: request.redirectUriInRequest,
      responseType: request.responseType,
      state: request.state,
      nonce: request.nonce,
      pkce: request.pkce,
      consentId: request.consent.ConsentId,
      scopes: request.scopes,
    },
    user.psuId,
    accountIds,
    deps,
  );
  redirect(res, location);
}

export interface Completion {
  issuer: string;
  clientId: string;
  redirectUri: string;
  redirectUriInRequest: boolean;
  responseType: 'code' | 'code id_token';
  state: string | undefined;
  nonce: string | undefined;
  pkce: Pkce | undefined;
  consentId: string;
  scopes: string[];
}

/** The PSU said yes: authorise the consent, mint the code (and the hybrid ID token), build the redirect. */
export async function completeAuthorisation(c: Completion, psuId: string, accountIds: string[], deps: AuthDeps): Promise<string> {
  const now = deps.now();
  // The consent may have passed its ExpirationDateTime while the PSU was on the pages (the request was checked when
  // it arrived): refuse like the authorization endpoint would, and leave the consent as it is.
  const use = usableConsent(await deps.consents.get(c.consentId), now, 'AwaitingAuthorisation');
  if (!use.usable && use.reason === 'expired') {
    return errorRedirect(c.redirectUri, c.responseType, 'invalid_request', `consent ${c.consentId} expired at ${use.consent?.ExpirationDateTime ?? ''}`, c.state);
  }
  try {
    await deps.consents.authorise(c.consentId, psuId, accountIds, now);
  } catch (error) {
    if (error instanceof ConsentStateError) {
      return errorRedirect(c.redirectUri, c.responseType, 'invalid_request', `consent ${c.consentId} is ${error.status}, not AwaitingAuthorisation`, c.state);
    }
    throw error;
  }
  const code = randomToken(32);
  const record: CodeRecord = {
    clientId: c.clientId,
    redirectUri: c.redirectUri,
    redirectUriInRequest: c.redirectUriInRequest,
    consentId: c.consentId,
    scopes: c.scopes,
    authTime: seconds(now),
    expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000).toISOString(),
    used: false,
    ...(c.nonce === undefined ? {} : { nonce: c.nonce }),
    ...(c.pkce === undefined ? {} : { pkce: c.pkce }),
  };
  deps.store.codes.set(hashSecret(code), record);
  const params = new URLSearchParams({ code });
  if (c.responseType === 'code id_token') {
    params.set(
      'id_token',
      await signIdToken(await deps.signingKey(), { issuer: c.issuer, clientId: c.clientId, consentId: c.consentId, authTime: record.authTime, now, nonce: c.nonce, code, state: c.state }, deps.idTokenFault),
    );
  }
  if (c.state !== undefined) params.set('state', c.state);
  return withParams(c.redirectUri, c.responseType === 'code' ? 'query' : 'fragment', params);
}

/** The PSU said no (OIDC Core §3.1.2.6 access_denied); the consent becomes Rejected. */
export async function rejectAuthorisation(c: Completion, deps: AuthDeps): Promise<string> {
  try {
    await deps.consents.reject(c.consentId, deps.now());
  } catch (error) {
    if (!(error instanceof ConsentStateError)) throw error;
  }
  return errorRedirect(c.redirectUri, c.responseType, 'access_denied', 'the customer cancelled the authorisation', c.state);
}
