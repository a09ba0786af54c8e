// The authorization endpoint (RFC 6749 §4.1, OIDC Core §3.1.2 / §3.3.2, FAPI 1 Advanced §5.2.2, OB Security Profile):
// parses the request and its request object, applies every rule of the standard the profile does not tolerate
// (src/sandbox/policy.ts), then either answers at once as the default test user (headless) or hands over to the
// login and consent pages (interactive). Refusals are OAuthErrors: back to the client once its redirect URI is
// verified, else a page at the bank.

import * as joseErrors from 'jose/errors';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { createLocalJWKSet } from 'jose/jwks/local';
import { jwtVerify } from 'jose/jwt/verify';
import type { JSONWebKeySet, JWTPayload } from 'jose';

import type { ProfileName, ReadonlySearchParams } from '../contracts.js';
import { ConsentStateError } from '../contracts.js';
import { consentKindRow } from '../consent-kinds.js';
import { DEFAULT_TEST_USER, userByUsername } from '../data/users.js';
import { FAMILY_ROWS } from '../families.js';
import { OAuthError } from '../http/errors.js';
import type { OAuthDelivery } from '../http/errors.js';
import { oauthErrorDescription, redirect } from '../http/io.js';
import { tolerates } from '../policy.js';
import type { AuthorisationRequestRecord, CodeRecord, InteractionRecord, Pkce, StoredClient } from '../store/auth-store.js';
import { hashSecret } from '../store/auth-store.js';
import { usableConsent } from '../store/consents.js';
import type { AuthDeps, IssuerCall } from './deps.js';
import { randomToken, seconds } from './deps.js';
import { isTyp } from './fapi.js';
import { signAuthorisationResponse, signIdToken } from './id-token.js';

/** Authorisation codes live 10 minutes at most (RFC 6749 §4.1.2). */
export const CODE_TTL_SECONDS = 600;
/** How long a PSU has to log in and confirm. */
export const INTERACTION_TTL_SECONDS = 900;
/** FAPI 1 Advanced Part 2 §5.2.2-13 and -17: a request object lives at most 60 minutes from its `nbf`. */
const REQUEST_OBJECT_MAX_LIFETIME = 3600;
const CLOCK_TOLERANCE = 30;

/** What validation yields: the request as the flow carries it, the client, and who the PSU should be (headless). */
export interface ValidatedRequest {
  request: AuthorisationRequestRecord;
  client: StoredClient;
  loginHint?: string;
}

/** Where an error of this request goes once its redirect URI is verified (RFC 6749 §4.1.2.1, OIDC Core §3.3.2.6),
 *  with `iss` where the mode sends it (RFC 9207 §2, responseIss). */
export function backTo(
  request: Pick<AuthorisationRequestRecord, 'redirectUri' | 'responseType' | 'state'> &
    Partial<Pick<AuthorisationRequestRecord, 'responseMode' | 'clientId'>>,
  iss?: string | undefined,
): OAuthDelivery {
  return {
    to: 'redirect',
    redirectUri: request.redirectUri,
    responseType: request.responseType,
    state: request.state,
    ...(iss === undefined ? {} : { iss }),
    // JARM §2.4: a request that asked response_mode jwt gets its errors as a signed response too.
    ...(request.responseMode === 'jwt' && request.clientId !== undefined ? { responseJwtFor: request.clientId } : {}),
  };
}

/**
 * JARM §2.4 (error response): an OAuthError going back to a client that asked `response_mode=jwt` is answered as the
 * success would be, one PS256 `response` JWT in the query carrying `error`, `error_description` and `state` (with
 * `iss`, `aud`, `exp`), instead of plain parameters. Signing needs the key (async), so the handlers that can raise
 * such an error run through here; anything else is rethrown for serve.ts to answer.
 */
export async function answeringJarmErrors(
  call: Pick<IssuerCall, 'res' | 'issuer'>,
  deps: AuthDeps,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    const delivery = error instanceof OAuthError ? error.delivery : undefined;
    if (!(error instanceof OAuthError) || delivery?.to !== 'redirect' || delivery.responseJwtFor === undefined) throw error;
    const params: Record<string, string> = { error: error.error, error_description: oauthErrorDescription(error.message) };
    if (delivery.state !== undefined) params.state = delivery.state;
    const response = await signAuthorisationResponse(await deps.signingKey(), {
      issuer: call.issuer.auth_url,
      clientId: delivery.responseJwtFor,
      now: deps.now(),
      params,
    });
    for (const [name, value] of Object.entries(error.headers)) call.res.setHeader(name, value);
    redirect(call.res, withParams(delivery.redirectUri, 'query', new URLSearchParams({ response })));
  }
}

/** RFC 9207 §2: in a mode that sends it (FAPI 2.0, Security Profile §5.3.2.2) every authorization response, success or
 *  error, carries the issuer as `iss`; the others send none (a JARM response carries it inside its JWT). */
export function responseIss(deps: Pick<AuthDeps, 'fapi'>, issuer: string): string | undefined {
  return deps.fapi.iss ? issuer : undefined;
}

/** RFC 6749 §4.1.2.1: an error before the redirect URI is verified is shown to the user at the bank, never redirected. */
const AT_THE_BANK: OAuthDelivery = { to: 'page', title: 'This request cannot be completed', showCode: true };

export function handleAuthorize(call: IssuerCall<'authorize'>, deps: AuthDeps): Promise<void> {
  return answeringJarmErrors(call, deps, () => authorize(call, deps));
}

async function authorize(call: IssuerCall<'authorize'>, deps: AuthDeps): Promise<void> {
  const { res, ctx, profile } = call;
  const issuer = call.issuer.auth_url;
  const query = ctx.url.searchParams;
  const { request, client, loginHint } =
    query.has('request_uri') && (deps.par ?? 'off') !== 'off'
      ? pushedRequest(query, profile.name, deps)
      : await validateAuthorisationRequest(query, profile.name, issuer, deps, 'authorize');
  ctx.clientId = client.clientId;
  if (profile.consent === 'headless') {
    await answerHeadless(call, request, loginHint, deps);
    return;
  }
  const uid = randomToken(16);
  const interaction: InteractionRecord = {
    ...request,
    uid,
    profile: profile.name,
    expiresAt: new Date(deps.now().getTime() + INTERACTION_TTL_SECONDS * 1000).toISOString(),
  };
  deps.store.interactions.set(uid, interaction);
  // The interaction is bound to this browser by a cookie scoped to the interaction pages.
  // Scoped to this interaction's own pages, so several journeys can run side by side in one browser.
  res.setHeader('Set-Cookie', `obflow_interaction=${uid}; Path=/${profile.name}/interaction/${uid}; HttpOnly; Secure; SameSite=Lax`);
  redirect(res, `${issuer}/interaction/${uid}`);
}

/** RFC 9126 §4: the authorization request names a pushed request (client_id + request_uri); the pushed request was
 *  validated when pushed, so only its reference is checked here. One use only (RFC 9126 §7.3). */
function pushedRequest(query: ReadonlySearchParams, profile: ProfileName, deps: AuthDeps): ValidatedRequest {
  const fail = (error: string, message: string): never => {
    throw new OAuthError(400, error, message, {}, AT_THE_BANK);
  };
  const clientId = query.get('client_id');
  if (!clientId) return fail('invalid_request', 'client_id is missing (RFC 9126 §4: client_id and request_uri)');
  const client = deps.store.clients.get(clientId);
  if (!client || client.profile !== profile) return fail('invalid_client', 'client_id is not a registered client of this issuer');
  const requestUri = query.get('request_uri') ?? '';
  const key = hashSecret(requestUri);
  const record = deps.store.pushed.get(key);
  if (!record || record.request.clientId !== client.clientId || Date.parse(record.expiresAt) <= deps.now().getTime())
    return fail('invalid_request_uri', 'request_uri is unknown, expired or already used (RFC 9126 §4, RFC 9101 §6.2)');
  deps.store.pushed.delete(key);
  return { request: record.request, client, ...(record.loginHint === undefined ? {} : { loginHint: record.loginHint }) };
}

/** Validates an authorisation request's parameters: from the authorization endpoint's query, or from the body of a
 *  pushed authorization request (`via: 'par'`, RFC 9126 §2.1: validated as the authorization endpoint would). */
export async function validateAuthorisationRequest(
  query: ReadonlySearchParams,
  profile: ProfileName,
  issuer: string,
  deps: AuthDeps,
  via: 'authorize' | 'par',
): Promise<ValidatedRequest> {
  // Errors go back to the client once its redirect URI is verified (`target` becomes the redirect), else to a page at
  // the bank; a few never go back (redirectable false) whatever is known.
  let target: OAuthDelivery = AT_THE_BANK;
  const fail = (error: string, message: string, redirectable = true): never => {
    throw new OAuthError(400, error, message, {}, redirectable ? target : AT_THE_BANK);
  };
  const may = (name: Parameters<typeof tolerates>[1]): boolean => tolerates(profile, name);
  // The FAPI mode's rules hold in every profile (docs/sandbox.md, "FAPI modes"); under FAPI 2.0, FAPI 1 Advanced's
  // request-object, query-copy and nonce rules give way to PAR and PKCE (a 2.0 client may push plain parameters).
  const { fapi } = deps;
  for (const name of new Set(query.keys())) {
    if (query.getAll(name).length > 1) fail('invalid_request', `parameter ${name} is repeated`, false);
  }
  const queryClientId = query.get('client_id');
  if (!queryClientId) fail('invalid_request', 'client_id is missing', false);
  const client = deps.store.clients.get(queryClientId ?? '');
  if (!client) return fail('invalid_client', 'client_id is not a registered client', false);
  if (client.profile !== profile) {
    fail('invalid_client', `this client registered with ${deps.urls.profiles[client.profile].auth_url}; use that issuer`, false);
  }
  if (via === 'par' && query.has('request_uri'))
    fail('invalid_request', 'request_uri must not be sent to the pushed authorization request endpoint (RFC 9126 §2.1)', false);
  if (query.has('request_uri')) fail('request_uri_not_supported', 'request_uri is not supported; send the request object by value', false);

  // Request object (OIDC Core §6.1): decode now, verify after the redirect target is known so errors can go back. A
  // typ the mode refuses is refused first, before anything in the object is read (RFC 9101 §10.8: explicit typing is
  // what keeps another kind of JWT from being taken for a request object), so its redirect_uri is never trusted.
  const requestJwt = query.get('request');
  const typ = requestJwt ? requestObjectTyp(requestJwt) : undefined;
  if (fapi.requestObjectTyp !== undefined && typ !== undefined && !isTyp(typ, fapi.requestObjectTyp))
    fail('invalid_request_object', `the request object's typ must be ${fapi.requestObjectTyp}, not ${typ} (RFC 9101 §4)`, false);
  let object: JWTPayload | undefined;
  let objectError: string | undefined;
  if (requestJwt) {
    try {
      object = await readRequestObject(requestJwt, client, issuer, profile, deps.now());
    } catch (error) {
      objectError = error instanceof OAuthError ? error.message : 'the request object is not a valid JWT';
      object = undefined;
    }
  }
  // FAPI 1 Advanced §5.2.2-10: only the request object's parameters count. Tolerance query-parameters: the request
  // object wins over the query, and parameters only in the query are used too.
  const param = (name: string): string | undefined => {
    const fromObject = object?.[name];
    if (fromObject !== undefined && fromObject !== null) return typeof fromObject === 'string' ? fromObject : JSON.stringify(fromObject);
    if (!may('query-parameters') && object !== undefined && name !== 'client_id') return undefined;
    return query.get(name) ?? undefined;
  };

  const requestedRedirect = param('redirect_uri');
  let redirectUri: string;
  if (requestedRedirect === undefined) {
    if (!may('redirect-uri-default') || client.redirectUris.length !== 1) fail('invalid_request', 'redirect_uri is missing', false);
    redirectUri = client.redirectUris[0] ?? '';
  } else {
    // Exact string match in both profiles (OAuth 2.0 Security BCP §4.1.3): an unregistered target is never tolerated.
    if (!client.redirectUris.includes(requestedRedirect))
      fail('invalid_request', `redirect_uri ${requestedRedirect} is not registered for this client`, false);
    redirectUri = requestedRedirect;
  }
  // param() already falls back to the query where the profile allows it; otherwise only the request object counts.
  const rawResponseType = param('response_type') ?? '';
  const responseType = normaliseResponseType(rawResponseType);
  const queryResponseType = query.get('response_type');
  const state = param('state');
  // Where an error goes (query or fragment) follows the response_type asked for, from the query if need be.
  // JARM §2.4: errors of a code request asking response_mode jwt go back signed (the mode's own checks come later).
  const earlyMode = param('response_mode');
  target = backTo(
    {
      redirectUri,
      responseType: responseType ?? normaliseResponseType(queryResponseType ?? '') ?? 'code',
      ...(state === undefined ? {} : { state }),
      ...(responseType === 'code' && (earlyMode === 'jwt' || earlyMode === 'query.jwt')
        ? { responseMode: 'jwt' as const, clientId: client.clientId }
        : {}),
    },
    responseIss(deps, issuer),
  );

  // RFC 9126 §5 require_pushed_authorization_requests: only pushed requests are accepted. Once the redirect URI is
  // verified the refusal goes back to the client, as certified servers answer it (oidc-provider: an error redirect).
  if (via === 'authorize' && deps.par === 'required')
    fail('invalid_request', 'Pushed Authorization Request must be used (require_pushed_authorization_requests, RFC 9126 §5)');

  // FAPI 1 Advanced §5.2.2-10, OIDC Core §6.1: response_type and scope come from the request object; the query's
  // copies are only there for OAuth 2.0 syntax and must match.
  if (!may('query-parameters') && object) {
    const missing = ['response_type', 'scope'].filter((name) => object?.[name] === undefined || object[name] === null);
    if (missing.length > 0)
      fail('invalid_request_object', `the request object must carry ${missing.join(' and ')}; this profile uses only its parameters`);
  }
  if (!responseType) fail('unsupported_response_type', `response_type must be code or code id_token, not ${rawResponseType}`);
  // FAPI 2.0 Security Profile §5.3.2.2: the authorization code flow only, no hybrid (RFC 6749 §4.1.2.1's error).
  if (responseType !== undefined && !fapi.responseTypes.includes(responseType))
    fail(
      'unsupported_response_type',
      `response_type must be ${fapi.responseTypes.join(' or ')} under FAPI ${fapi.name}, not ${responseType} (Security Profile §5.3.2.2)`,
    );
  if (object && queryResponseType !== null && normaliseResponseType(queryResponseType) !== responseType) {
    fail('invalid_request', 'response_type differs between the query and the request object');
  }
  if (object && object.client_id !== undefined && object.client_id !== client.clientId)
    fail('invalid_request_object', 'client_id differs between the query and the request object');
  if (!client.responseTypes.includes(responseType ?? ''))
    fail('unauthorized_client', `this client did not register response_type ${responseType ?? ''}`);
  if (!client.grantTypes.includes('authorization_code'))
    fail('unauthorized_client', 'this client did not register the authorization_code grant');

  if (objectError !== undefined) fail('invalid_request_object', objectError);
  if (!object && fapi.fapi1RequestRules && !may('request-object-optional'))
    fail('invalid_request', 'a request object (request=) is required by this profile');
  if (fapi.fapi1RequestRules && !may('query-copies-optional')) {
    // OIDC Core §6.1: response_type, client_id and scope must also be in the query when a request object is used.
    if (!queryClientId || !queryResponseType || !query.get('scope'))
      fail('invalid_request', 'client_id, response_type and scope must also be query parameters');
  }

  const rawScope = param('scope') ?? '';
  const queryScope = query.get('scope');
  if (!may('query-copies-optional') && object && queryScope !== null && scopeSet(queryScope) !== scopeSet(rawScope))
    fail('invalid_request', 'scope differs between the query and the request object');
  if (!may('scope-extra-spaces') && rawScope !== rawScope.trim().split(/\s+/).join(' '))
    fail('invalid_scope', 'scope must be space-separated values without extra spaces');
  const scopes = [...new Set(rawScope.split(/\s+/).filter((s) => s !== ''))];
  if (!scopes.includes('openid') && (!may('scope-without-openid') || responseType === 'code id_token'))
    fail('invalid_scope', 'scope must include openid');
  const beyond = scopes.filter((s) => !client.scopes.includes(s));
  if (beyond.length > 0) fail('invalid_scope', `scope ${beyond.join(' ')} was not registered by this client`);
  // The API family the consent is for names the scope its token needs (families.ts): accounts, payments, fundsconfirmations.
  const familyScopes = FAMILY_ROWS.map((family) => family.scope);
  if (!scopes.some((s) => familyScopes.includes(s))) fail('invalid_scope', 'scope must include accounts');

  // FAPI 1 Baseline Part 1 §5.2.2.3: state is required only when the scope lacks openid (nonce protects the rest, and
  // FAPI 1 Advanced §5.2.2.1 asks for s_hash only "if the client supplied a value for state").
  if (state === undefined && !scopes.includes('openid') && !may('state-optional'))
    fail('invalid_request', 'state is required when the scope lacks openid');
  // JARM §2.3: response_mode jwt (or query.jwt) for code; query / fragment as the response type gives them.
  const requestedMode = param('response_mode');
  const jarm = requestedMode === 'jwt' || requestedMode === 'query.jwt';
  if (requestedMode !== undefined && !jarm && requestedMode !== (responseType === 'code' ? 'query' : 'fragment'))
    fail('invalid_request', `response_mode ${requestedMode} is not supported with response_type ${responseType ?? ''}`);
  if (jarm && responseType !== 'code') fail('invalid_request', 'response_mode jwt is supported with response_type code only');
  // FAPI 1 Advanced Part 2 §5.2.2-2: code only with JARM. The words are oidc-provider's, as certified servers answer.
  if (fapi.plainCodeNeedsJarm && responseType === 'code' && !jarm && !may('code-without-jarm'))
    fail(
      'invalid_request',
      'requested response_mode is not allowed for this client or request: FAPI 1 Advanced takes code only with response_mode jwt (Part 2 §5.2.2-2)',
    );
  const nonce = param('nonce');
  // OIDC Core §3.3.2.11 requires nonce for the hybrid flow; FAPI 1 §5.2.2.2 always (tolerance nonce-optional).
  if (nonce === undefined && ((fapi.fapi1RequestRules && !may('nonce-optional')) || responseType === 'code id_token'))
    fail('invalid_request', 'nonce is required');

  const intentId = intentIdOf(param('claims'), may('intent-id-not-essential'), fail);
  if (!intentId) return fail('invalid_request', 'claims must name the consent as id_token.openbanking_intent_id');
  const consent = await deps.consents.get(intentId);
  // Another client's consent looks exactly like an unknown one: never reveal that it exists.
  if (!consent || consent.clientId !== client.clientId)
    return fail('invalid_request', `openbanking_intent_id ${intentId} is not a consent of this client`);
  const use = usableConsent(consent, deps.now(), 'AwaitingAuthorisation');
  if (!use.usable && use.reason === 'status')
    fail('invalid_request', `consent ${intentId} is ${consent.Status}, not AwaitingAuthorisation`);
  if (!use.usable && use.reason === 'expired')
    fail('invalid_request', `consent ${intentId} expired at ${consent.ExpirationDateTime ?? ''}`);
  // The consent's kind names the scope (consent-kinds.ts): a payment consent is authorised with payments, a funds
  // check with fundsconfirmations, account access with accounts (OB R/W Data API Profile, "Scopes & Grant Types").
  const kindScope = consentKindRow(consent).scope;
  if (!scopes.includes(kindScope)) fail('invalid_scope', `scope must include ${kindScope} for consent ${intentId}`);

  // RFC 7636: optional here (OB does not require PKCE), enforced at the token endpoint once asked for. S256 only
  // (FAPI 1 Baseline §5.2.2-7) unless the profile tolerates plain.
  const challenge = param('code_challenge');
  const method = param('code_challenge_method') ?? (challenge === undefined ? undefined : 'plain');
  let pkce: Pkce | undefined;
  // FAPI 2.0 Security Profile §5.3.2.2: PKCE with S256 required, in every profile (RFC 7636 §4.4.1's words).
  const plainAllowed = fapi.pkce === 'per-profile' && may('pkce-plain');
  if (fapi.pkce === 'S256-required' && challenge === undefined)
    fail('invalid_request', `code challenge required: FAPI ${fapi.name} requires PKCE with S256`);
  if (challenge !== undefined) {
    if (method !== 'S256' && (!plainAllowed || method !== 'plain'))
      fail('invalid_request', `code_challenge_method ${method ?? ''} is not supported${plainAllowed ? '' : ' (S256 only)'}`);
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) fail('invalid_request', 'code_challenge must be 43 to 128 unreserved characters');
    pkce = { challenge, method: method as Pkce['method'] };
  } else if (method !== undefined) {
    fail('invalid_request', 'code_challenge_method without code_challenge');
  }

  const request: AuthorisationRequestRecord = {
    clientId: client.clientId,
    redirectUri,
    redirectUriInRequest: requestedRedirect !== undefined,
    responseType: responseType as AuthorisationRequestRecord['responseType'],
    consentId: consent.ConsentId,
    scopes,
    ...(state === undefined ? {} : { state }),
    ...(nonce === undefined ? {} : { nonce }),
    ...(pkce === undefined ? {} : { pkce }),
    ...(jarm ? { responseMode: 'jwt' as const } : {}),
  };
  const loginHint = param('login_hint');
  return { request, client, ...(loginHint === undefined ? {} : { loginHint }) };
}

/** A request object's `typ` header (RFC 9101 §4); undefined when it names none or is no JWT (readRequestObject says so). */
function requestObjectTyp(jwt: string): string | undefined {
  try {
    return decodeProtectedHeader(jwt).typ;
  } catch {
    return undefined;
  }
}

/** OIDC Core §6.1 / FAPI 1 §5.2.2: `alg: none` (the sandbox registration's choice) or PS256 with the statement's keys. */
async function readRequestObject(jwt: string, client: StoredClient, issuer: string, profile: ProfileName, now: Date): Promise<JWTPayload> {
  const invalid = (message: string): OAuthError => new OAuthError(400, 'invalid_request_object', message);
  let alg: string | undefined;
  try {
    ({ alg } = decodeProtectedHeader(jwt));
  } catch {
    throw invalid('the request object is not a JWT');
  }
  let payload: JWTPayload;
  if (alg === 'none') {
    // OIDC Registration §2: a client that registered a signing algorithm has every other request object refused.
    if (client.requestObjectSigningAlg === 'PS256')
      throw invalid('this client registered request_object_signing_alg PS256; unsigned request objects are refused');
    const [, body, signature] = jwt.split('.');
    if (body === undefined || signature !== '') throw invalid('an unsigned request object must have an empty signature part');
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as JWTPayload;
    } catch {
      throw invalid('the request object payload is not JSON');
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      throw invalid('the request object payload is not a JSON object');
    if (typeof payload.exp === 'number' && payload.exp + CLOCK_TOLERANCE < seconds(now)) throw invalid('the request object has expired');
  } else if (alg === 'PS256') {
    try {
      ({ payload } = await jwtVerify(jwt, createLocalJWKSet(client.softwareJwks as JSONWebKeySet), {
        algorithms: ['PS256'],
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE,
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw invalid('the request object has expired');
      throw invalid("the request object signature does not verify with the software statement's keys");
    }
  } else {
    throw invalid(`request object algorithm ${String(alg)} is not supported (none or PS256)`);
  }
  // FAPI 1 Advanced Part 2 §5.2.2-13: "shall require the request object to contain an exp claim that has a lifetime
  // of no longer than 60 minutes after the nbf claim"; -17: "shall require the request object to contain an nbf claim
  // that is no longer than 60 minutes in the past". Tolerances request-object-exp and request-object-nbf relax them;
  // without nbf nothing bounds the lifetime but exp (an unsigned object's nbf is not checked at all).
  if (!tolerates(profile, 'request-object-exp') && typeof payload.exp !== 'number') throw invalid('the request object must carry exp');
  if (!tolerates(profile, 'request-object-nbf')) {
    if (typeof payload.nbf !== 'number') throw invalid('the request object must carry nbf');
    // RFC 7519 §4.1.5: not accepted before nbf (the signed path's jwtVerify checks it too).
    if (payload.nbf > seconds(now) + CLOCK_TOLERANCE) throw invalid('the request object is not valid yet (nbf is in the future)');
    if (seconds(now) - payload.nbf > REQUEST_OBJECT_MAX_LIFETIME + CLOCK_TOLERANCE)
      throw invalid("the request object's nbf is more than 60 minutes in the past");
  }
  if (
    !tolerates(profile, 'request-object-exp') &&
    typeof payload.exp === 'number' &&
    typeof payload.nbf === 'number' &&
    payload.exp - payload.nbf > REQUEST_OBJECT_MAX_LIFETIME
  ) {
    throw invalid('the request object must not live longer than 60 minutes after its nbf');
  }
  // FAPI 1 Advanced Part 2 §5.2.2-15: aud is (or contains) the issuer; RFC 9101 §4: iss is the client. Tolerance
  // request-object-aud: aud may be missing, but one that is there must still name this issuer.
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!tolerates(profile, 'request-object-aud')) {
    if (!aud.includes(issuer)) throw invalid(`the request object's aud must be the issuer ${issuer}`);
    if (payload.iss !== undefined && payload.iss !== client.clientId) throw invalid("the request object's iss must be the client_id");
  } else if (payload.aud !== undefined && !aud.includes(issuer)) {
    throw invalid(`the request object's aud names another server, not ${issuer}`);
  }
  return payload;
}

function scopeSet(value: string): string {
  return [...new Set(value.split(/\s+/).filter((s) => s !== ''))].sort().join(' ');
}

function normaliseResponseType(value: string): 'code' | 'code id_token' | undefined {
  const parts = value
    .split(/\s+/)
    .filter((p) => p !== '')
    .sort();
  const joined = parts.join(' ');
  if (joined === 'code') return 'code';
  if (joined === 'code id_token') return 'code id_token';
  return undefined;
}

/** OB Security Profile: the consent is named by the essential claim openbanking_intent_id (id_token or userinfo). */
function intentIdOf(
  claimsParam: string | undefined,
  notEssential: boolean,
  fail: (error: string, message: string) => never,
): string | undefined {
  if (claimsParam === undefined) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(claimsParam);
  } catch {
    return fail('invalid_request', 'claims is not JSON');
  }
  for (const member of ['id_token', 'userinfo']) {
    const request = (claims as Record<string, Record<string, { value?: unknown; essential?: unknown } | null> | undefined>)?.[member]
      ?.openbanking_intent_id;
    if (request && typeof request.value === 'string') {
      if (!notEssential && request.essential !== true) fail('invalid_request', 'openbanking_intent_id must be requested as essential');
      return request.value;
    }
  }
  return undefined;
}

/** Errors go where the response would have gone: the fragment for the hybrid flow (OIDC Core §3.3.2.6). */
export function errorRedirect(
  redirectUri: string,
  responseType: string,
  error: string,
  description: string,
  state: string | undefined,
  iss?: string | undefined,
): string {
  const params = new URLSearchParams({ error, error_description: oauthErrorDescription(description) });
  if (state !== undefined) params.set('state', state);
  // RFC 9207 §2: error responses carry iss too.
  if (iss !== undefined) params.set('iss', iss);
  return withParams(redirectUri, responseType === 'code' ? 'query' : 'fragment', params);
}

function withParams(redirectUri: string, mode: 'query' | 'fragment', params: URLSearchParams): string {
  if (mode === 'fragment') return `${redirectUri}#${params.toString()}`;
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${params.toString()}`;
}

/** Headless profiles: the default test user (or login_hint's) authorises every account they hold, at once. */
async function answerHeadless(
  call: IssuerCall<'authorize'>,
  request: AuthorisationRequestRecord,
  loginHint: string | undefined,
  deps: AuthDeps,
): Promise<void> {
  const user = userByUsername(loginHint ?? DEFAULT_TEST_USER);
  if (!user)
    throw new OAuthError(
      400,
      'login_required',
      `login_hint ${loginHint ?? ''} names no test user (alex, sam, jo)`,
      {},
      backTo(request, responseIss(deps, call.issuer.auth_url)),
    );
  // Which of the user's accounts (consent-kinds.ts): all of them for account access; for a payment or a funds check the
  // account the consent names (which must be theirs, else the consent is rejected) or their first GBP current account.
  const consent = await deps.consents.get(request.consentId);
  const choice = consent === undefined ? undefined : consentKindRow(consent).accounts(consent, user.psuId, deps.bank);
  if (choice?.choose === 'none') return rejectAuthorisation(request, deps, call.issuer.auth_url, choice.reason);
  const accounts = choice === undefined || consent === undefined ? [] : (consentKindRow(consent).headless(choice) ?? []);
  if (accounts.length === 0)
    return rejectAuthorisation(request, deps, call.issuer.auth_url, `${user.username} holds no account this consent can use`);
  const accountIds = accounts.map((account) => account.accountId);
  redirect(call.res, await completeAuthorisation(call.issuer.auth_url, request, user.psuId, accountIds, deps));
}

/**
 * The PSU said yes: authorise the consent, mint the code (and the hybrid ID token); returns the redirect to the
 * client. A consent that can no longer be authorised is an OAuthError sent back to the client.
 */
export async function completeAuthorisation(
  issuer: string,
  request: AuthorisationRequestRecord,
  psuId: string,
  accountIds: string[],
  deps: AuthDeps,
): Promise<string> {
  const now = deps.now();
  const { consentId } = request;
  const iss = responseIss(deps, issuer);
  // The consent may have passed its ExpirationDateTime while the PSU was on the pages (the request was checked when
  // it arrived): refuse like the authorization endpoint would, and leave the consent as it is.
  const use = usableConsent(await deps.consents.get(consentId), now, 'AwaitingAuthorisation');
  if (!use.usable && use.reason === 'expired') {
    throw new OAuthError(
      400,
      'invalid_request',
      `consent ${consentId} expired at ${use.consent?.ExpirationDateTime ?? ''}`,
      {},
      backTo(request, iss),
    );
  }
  try {
    await deps.consents.authorise(consentId, psuId, accountIds, now);
  } catch (error) {
    if (error instanceof ConsentStateError)
      throw new OAuthError(
        400,
        'invalid_request',
        `consent ${consentId} is ${error.status}, not AwaitingAuthorisation`,
        {},
        backTo(request, iss),
      );
    throw error;
  }
  const code = randomToken(32);
  const { clientId, redirectUri, redirectUriInRequest, scopes, nonce, pkce, state } = request;
  const record: CodeRecord = {
    clientId,
    redirectUri,
    redirectUriInRequest,
    consentId,
    scopes,
    authTime: seconds(now),
    expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000).toISOString(),
    used: false,
    ...(nonce === undefined ? {} : { nonce }),
    ...(pkce === undefined ? {} : { pkce }),
  };
  deps.store.codes.set(hashSecret(code), record);
  const params = new URLSearchParams({ code });
  // The `missing` fault leaves out what `code id_token` promises (OIDC Core §3.3.2.5), for testing that a TPP notices.
  if (request.responseType === 'code id_token' && deps.idTokenFault !== 'missing') {
    params.set(
      'id_token',
      await signIdToken(
        await deps.signingKey(),
        { issuer, clientId, consentId, authTime: record.authTime, now, nonce, code, state },
        deps.idTokenFault,
      ),
    );
  }
  if (state !== undefined) params.set('state', state);
  // RFC 9207 §2: the plain response carries the issuer (a JARM response has it inside the JWT already).
  if (iss !== undefined && request.responseMode !== 'jwt') params.set('iss', iss);
  if (request.responseMode === 'jwt') {
    const response = await signAuthorisationResponse(await deps.signingKey(), {
      issuer,
      clientId,
      now,
      params: Object.fromEntries(params),
    });
    return withParams(redirectUri, 'query', new URLSearchParams({ response }));
  }
  return withParams(redirectUri, request.responseType === 'code' ? 'query' : 'fragment', params);
}

/** The PSU said no (OIDC Core §3.1.2.6 access_denied), or the consent cannot be given (`why`: it names an account the
 *  PSU does not hold): the consent becomes Rejected, and the client is told. */
export async function rejectAuthorisation(
  request: AuthorisationRequestRecord,
  deps: AuthDeps,
  issuer: string,
  why = 'the customer cancelled the authorisation',
): Promise<never> {
  try {
    await deps.consents.reject(request.consentId, deps.now());
  } catch (error) {
    if (!(error instanceof ConsentStateError)) throw error;
  }
  throw new OAuthError(400, 'access_denied', why, {}, backTo(request, responseIss(deps, issuer)));
}
