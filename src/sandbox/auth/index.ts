// The authorisation side's dispatch: the pure route table (routes.ts) names the operation, and each operation is one
// handler `(call, deps)`. On the authorisation origin, one issuer per profile at https://<host>:<authPort>/<profile>
// (discovery, JWKS, the authorization endpoint, the PSU pages, the token endpoint); on the resource origin, the routes
// the authorisation side owns (registration, environment helper). Refusals are thrown wire errors (http/errors.ts),
// answered by index.ts (serve).

import type { SandboxHandler } from '../contracts.js';
import { PROFILE_NAMES, profileOf } from '../contracts.js';
import { sendJson } from '../http/io.js';
import { handleAuthorize } from './authorize.js';
import type { AuthCall, AuthDeps, IssuerCall } from './deps.js';
import { buildDiscovery } from './discovery.js';
import { handleEnvironment } from './environment.js';
import { handleInteraction } from './interaction.js';
import { handleRegistration, handleRegistrationById } from './registration.js';
import type { AuthRouteMatch, IssuerRoute } from './routes.js';
import { matchIssuerRoute, matchResourceOriginRoute } from './routes.js';
import { handleToken } from './token.js';
import { handlePar } from './par.js';

export { ENVIRONMENT_PATH, MODEL_BANK_ENVIRONMENT_PATH, REGISTRATION_PATH } from './routes.js';

/** The handler of the authorisation origin. */
export function createAuthHandler(deps: AuthDeps): SandboxHandler {
  return (req, res, ctx) => dispatch(matchIssuerRoute(req.method ?? '', ctx.url.pathname), { req, res, ctx }, deps);
}

/** The resource-origin routes of the authorisation side; undefined when the path is the resource server's. */
export function authRouteOnResourceOrigin(deps: AuthDeps, method: string, pathname: string): SandboxHandler | undefined {
  const match = matchResourceOriginRoute(method, pathname);
  return match && ((req, res, ctx) => dispatch(match, { req, res, ctx }, deps));
}

async function dispatch(match: AuthRouteMatch, base: Omit<AuthCall, 'route'>, deps: AuthDeps): Promise<void> {
  if (match.outcome === 'refused') throw match.error;
  const call: AuthCall = { ...base, route: match.route };
  const route = match.route;
  switch (route.kind) {
    case 'issuers':
      sendJson(call.res, 200, { issuers: PROFILE_NAMES.map((name) => deps.urls.profiles[name].auth_url) });
      return;
    case 'registration':
      return handleRegistration({ ...call, route }, deps);
    case 'registration-by-id':
      return handleRegistrationById({ ...call, route }, deps);
    case 'environment':
      return handleEnvironment({ ...call, route }, deps);
    default:
      return dispatchIssuer({ ...call, route, profile: profileOf(route.profile), issuer: deps.urls.profiles[route.profile] }, deps);
  }
}

async function dispatchIssuer(call: IssuerCall, deps: AuthDeps): Promise<void> {
  const route: IssuerRoute = call.route;
  const on = <K extends IssuerRoute['kind']>(r: Extract<IssuerRoute, { kind: K }>): IssuerCall<K> =>
    ({ ...call, route: r }) as IssuerCall<K>;
  switch (route.kind) {
    case 'discovery': {
      const { auth_url: issuer, authorization_endpoint: authorizationEndpoint, token_url: tokenEndpoint } = call.issuer;
      const endpoints = {
        issuer,
        authorizationEndpoint,
        tokenEndpoint,
        jwksUri: `${issuer}/jwks`,
        registrationEndpoint: deps.urls.registration_endpoint,
      };
      sendJson(call.res, 200, buildDiscovery(call.profile, endpoints, deps.tokenAuthMethods, deps.par ?? 'off', deps.fapi), {
        'Cache-Control': 'public, max-age=300',
      });
      return;
    }
    case 'jwks': {
      // The ID-token key, and the message-signing key beside it where a served API signs its answers (OB R/W Data API
      // Profile v4.0, "Message Signing", Key Stores: the ASPSP's public key where TPPs can retrieve it).
      const keys = [(await deps.signingKey()).publicJwk];
      if (deps.messageSigningKey !== undefined) keys.push((await deps.messageSigningKey()).publicJwk);
      sendJson(call.res, 200, { keys }, { 'Cache-Control': 'public, max-age=300' });
      return;
    }
    case 'authorize':
      return handleAuthorize(on(route), deps);
    case 'token':
      return handleToken(on(route), deps);
    case 'par':
      return handlePar(on(route), deps);
    case 'interaction':
      return handleInteraction(on(route), deps);
  }
}
