// The authorisation origin: one issuer per profile at https://<host>:<authPort>/<profile>, each with discovery,
// JWKS, the authorization endpoint, the PSU pages and the token endpoint. Also the resource-origin routes the
// authorisation side owns (registration, environment helper).

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestContext, SandboxHandler } from '../contracts.js';
import { PROFILE_NAMES, profileOf } from '../contracts.js';
import type { ProfileName } from '../contracts.js';
import { sendJson, sendOAuthError } from '../http/io.js';
import { handleAuthorize } from './authorize.js';
import type { AuthDeps } from './deps.js';
import { buildDiscovery } from './discovery.js';
import { handleEnvironment } from './environment.js';
import { handleInteraction } from './interaction.js';
import { handleRegistration, handleRegistrationById } from './registration.js';
import { handleToken } from './token.js';

export const REGISTRATION_PATH = '/dynamic-client-registration/v3.2/register';
export const ENVIRONMENT_PATH = '/sandbox-helper/v1.0/postman/environment';
/** The model bank's helper path and form (Basic client credentials), so a preset for it is testable offline. */
export const MODEL_BANK_ENVIRONMENT_PATH = '/ozone/v1.0/postman/environment';

/** The handler of the authorisation origin. */
export function createAuthHandler(deps: AuthDeps): SandboxHandler {
  return async (req, res, ctx) => {
    const url = ctx.url;
    const [first = '', ...rest] = url.pathname.split('/').filter((part) => part !== '');
    if (!(PROFILE_NAMES as readonly string[]).includes(first)) {
      if (url.pathname === '/' && req.method === 'GET') {
        // A small index of the issuers, handy when someone opens the bare origin.
        sendJson(res, 200, { issuers: PROFILE_NAMES.map((name) => deps.urls.profiles[name].auth_url) });
        return;
      }
      sendOAuthError(res, 404, 'not_found', `no such endpoint; issuers are /${PROFILE_NAMES.join(', /')}`);
      return;
    }
    const profile = profileOf(first as ProfileName);
    const urls = deps.urls.profiles[profile.name];
    const route = rest.join('/');
    const setClient = (id: string): void => {
      ctx.clientId = id;
    };
    switch (rest[0]) {
      case '.well-known':
        if (route !== '.well-known/openid-configuration') break;
        if (!allow(req, res, 'GET')) return;
        sendJson(
          res,
          200,
          buildDiscovery(profile, {
            issuer: urls.auth_url,
            authorizationEndpoint: urls.authorization_endpoint,
            tokenEndpoint: urls.token_url,
            jwksUri: `${urls.auth_url}/jwks`,
            registrationEndpoint: deps.urls.registration_endpoint,
          }),
          { 'Cache-Control': 'public, max-age=300' },
        );
        return;
      case 'jwks':
        if (rest.length !== 1 || !allow(req, res, 'GET')) break;
        sendJson(res, 200, { keys: [(await deps.signingKey()).publicJwk] }, { 'Cache-Control': 'public, max-age=300' });
        return;
      case 'authorize':
        if (rest.length !== 1) break;
        await handleAuthorize(req, res, profile, url, deps, setClient);
        return;
      case 'token':
        if (rest.length !== 1) break;
        await handleToken(req, res, ctx, profile, deps);
        return;
      case 'interaction':
        if (rest.length < 2 || rest.length > 3) break;
        await handleInteraction(req, res, profile, rest.slice(1), deps, setClient);
        return;
      default:
        break;
    }
    if (!res.headersSent) sendOAuthError(res, 404, 'not_found', `no endpoint ${url.pathname}`);
  };
}

function allow(req: IncomingMessage, res: ServerResponse, method: string): boolean {
  if (req.method === method || (method === 'GET' && req.method === 'HEAD')) return true;
  res.setHeader('Allow', method);
  sendOAuthError(res, 405, 'invalid_request', `${req.method ?? ''} is not allowed here`);
  return false;
}

/** The resource-origin routes of the authorisation side; undefined when the path is the resource server's. */
export function authRouteOnResourceOrigin(deps: AuthDeps, pathname: string): SandboxHandler | undefined {
  if (pathname === REGISTRATION_PATH) return (req, res, ctx: RequestContext) => handleRegistration(req, res, ctx, deps);
  if (pathname.startsWith(`${REGISTRATION_PATH}/`)) {
    const raw = pathname.slice(REGISTRATION_PATH.length + 1);
    let clientId = raw;
    try {
      clientId = decodeURIComponent(raw);
    } catch {
      // A malformed escape names no client; the lookup answers it.
    }
    return (req, res, ctx: RequestContext) => handleRegistrationById(req, res, ctx, clientId, deps);
  }
  if (pathname === ENVIRONMENT_PATH) {
    return (req, res, ctx: RequestContext) => handleEnvironment(req, res, ctx, deps);
  }
  if (pathname === MODEL_BANK_ENVIRONMENT_PATH) {
    return (req, res, ctx: RequestContext) => handleEnvironment(req, res, ctx, deps, 'basic');
  }
  return undefined;
}
