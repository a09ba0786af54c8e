// The pushed authorization request endpoint (RFC 9126 §2), offered when `obflow sandbox --par` is not off: the client
// authenticates as at the token endpoint, over mutual TLS; the body is validated as the authorization endpoint would
// validate its query (RFC 9126 §2.1), and kept under a one-time request_uri the authorization request then names
// (RFC 9126 §4). Errors are JSON, as the token endpoint's (RFC 9126 §2.3).

import { OAuthError } from '../http/errors.js';
import { mediaType, parseForm, readBody, sendJson } from '../http/io.js';
import { tolerates } from '../policy.js';
import { hashSecret } from '../store/auth-store.js';
import { authenticateClient } from './client-auth.js';
import { validateAuthorisationRequest } from './authorize.js';
import type { AuthDeps, IssuerCall } from './deps.js';
import { randomToken } from './deps.js';
import { certificateOfClient } from './token.js';

/** RFC 9126 §2.2: a short life; the authorization request follows at once. */
export const PUSHED_REQUEST_TTL_SECONDS = 60;
/** RFC 9126 §2.2: the request_uri form the RFC's examples use (RFC 9126 §7.1 registers the URN prefix). */
const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** Client-authentication parameters: not part of the authorisation request. */
const CLIENT_AUTH_PARAMS = new Set(['client_assertion', 'client_assertion_type', 'client_secret']);

export async function handlePar(call: IssuerCall<'par'>, deps: AuthDeps): Promise<void> {
  const { req, res, ctx, profile } = call;
  const issuer = call.issuer.auth_url;
  if ((deps.par ?? 'off') === 'off')
    throw new OAuthError(404, 'not_found', 'pushed authorization requests are off at this bank (obflow sandbox --par optional|required)');
  if (!ctx.peerAuthorized || !ctx.peerThumbprint) {
    throw new OAuthError(401, 'invalid_client', 'a transport certificate issued by the trust directory is required (mutual TLS)', {
      'WWW-Authenticate': `Basic realm="${issuer}"`,
    });
  }
  if (mediaType(req) !== 'application/x-www-form-urlencoded')
    throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded (RFC 9126 §2.1)');
  const { params, repeated } = parseForm(await readBody(req));
  if (repeated.length > 0) throw new OAuthError(400, 'invalid_request', `parameter ${repeated.join(', ')} is repeated`);
  // RFC 9126 §2: the client authenticates as it registered for the token endpoint.
  const client = await authenticateClient(req, params, ctx, profile.name, call.issuer, deps);
  ctx.clientId = client.clientId;
  if (!tolerates(profile.name, 'foreign-transport-certificate') && !certificateOfClient(ctx, client)) {
    throw new OAuthError(401, 'invalid_client', "the transport certificate does not belong to this client's software statement", {
      'WWW-Authenticate': `Basic realm="${issuer}"`,
    });
  }
  // A client_id in the body that is not the authenticated client: authenticateClient refuses it (RFC 9126 §2.1).
  const query = new URLSearchParams();
  for (const [name, value] of params) if (!CLIENT_AUTH_PARAMS.has(name)) query.set(name, value);
  query.set('client_id', client.clientId);

  let validated;
  try {
    validated = await validateAuthorisationRequest(query, profile.name, issuer, deps, 'par');
  } catch (error) {
    // RFC 9126 §2.3: every refusal is the endpoint's JSON error response, never a redirect or a page.
    if (error instanceof OAuthError) throw new OAuthError(error.status >= 500 ? error.status : 400, error.error, error.message);
    throw error;
  }
  // RFC 7636 §4.4.1 (invalid_request, "code challenge required") where the profile requires PKCE with PAR, as FAPI 2.0
  // does (Security Profile §5.3.2.2: PKCE with S256).
  if (validated.request.pkce === undefined && !tolerates(profile.name, 'par-pkce-optional'))
    throw new OAuthError(400, 'invalid_request', 'code challenge required: a pushed authorization request carries code_challenge (S256)');

  const requestUri = `${REQUEST_URI_PREFIX}${randomToken(24)}`;
  deps.store.pushed.set(hashSecret(requestUri), {
    request: validated.request,
    ...(validated.loginHint === undefined ? {} : { loginHint: validated.loginHint }),
    expiresAt: new Date(deps.now().getTime() + PUSHED_REQUEST_TTL_SECONDS * 1000).toISOString(),
  });
  sendJson(res, 201, { request_uri: requestUri, expires_in: PUSHED_REQUEST_TTL_SECONDS }, { 'Cache-Control': 'no-store' });
}
