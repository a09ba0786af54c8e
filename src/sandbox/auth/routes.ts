// Route table of the authorisation side (pure), as resource/routes.ts is of the AIS API: which operation a (method,
// path) names on the authorisation origin (one issuer per profile: discovery, JWKS, authorize, token, the PSU pages)
// and on the resource origin (registration, the environment helper), and the refusal for anything else.

import type { ProfileName } from '../contracts.js';
import { PROFILE_NAMES } from '../contracts.js';
import { ObieError, OAuthError, pageError } from '../http/errors.js';
import type { WireError } from '../http/errors.js';

export const REGISTRATION_PATH = '/dynamic-client-registration/v3.2/register';
export const ENVIRONMENT_PATH = '/sandbox-helper/v1.0/postman/environment';
/** The model bank's helper path and form (Basic client credentials), so a preset for it is testable offline. */
export const MODEL_BANK_ENVIRONMENT_PATH = '/ozone/v1.0/postman/environment';

/** A helper that names the client's values plainly (`client_id`, `client_secret`, `redirect_uri`), not as the model
 *  bank's collection does: obflow must take them from its own registration (docs/bank-interface.md §2.5). */
export const PLAIN_ENVIRONMENT_PATH = '/plain-helper/v1.0/postman/environment';

/** How the environment helper learns the client: `?client_id=` (this bank's helper; `plain` too, with plain names),
 *  or the model bank's form — `Authorization: Basic base64(client_id:client_secret)` (its guide, "Environment File
 *  download"). */
export type EnvironmentClientForm = 'query' | 'basic' | 'plain';

/** The environment helpers by path: this bank's and the model bank's. */
const ENVIRONMENT_HELPERS: Readonly<Record<string, EnvironmentClientForm>> = {
  [ENVIRONMENT_PATH]: 'query',
  [MODEL_BANK_ENVIRONMENT_PATH]: 'basic',
  [PLAIN_ENVIRONMENT_PATH]: 'plain',
};

/** Routes under one issuer, https://<host>:<authPort>/<profile>/…; the profile is the issuer's. */
export type IssuerRoute =
  | { kind: 'discovery'; profile: ProfileName }
  | { kind: 'jwks'; profile: ProfileName }
  | { kind: 'authorize'; profile: ProfileName }
  | { kind: 'token'; profile: ProfileName }
  | { kind: 'par'; profile: ProfileName }
  | { kind: 'interaction'; profile: ProfileName; uid: string; step: string | undefined };

/** Every route the authorisation side answers, on either origin. */
export type AuthRoute =
  | IssuerRoute
  | { kind: 'issuers' }
  | { kind: 'registration' }
  | { kind: 'registration-by-id'; clientId: string }
  | { kind: 'environment'; form: EnvironmentClientForm };

export type AuthRouteMatch = { outcome: 'route'; route: AuthRoute } | { outcome: 'refused'; error: WireError };

/** RFC 9110 §9.3.2: HEAD wherever GET is. `ANY`: the handler checks the method itself, after what must come first
 *  (the PSU pages find the interaction first; a registration checks the access token first). */
const READ = ['GET', 'HEAD'] as const;
const ANY = '*';

interface IssuerRow {
  /** Path segments after /<profile>; `{name}` takes any one segment. */
  path: readonly string[];
  methods: readonly string[] | typeof ANY;
  build(profile: ProfileName, parameters: readonly string[]): IssuerRoute;
  /** The answer to a method the row does not allow (default: a JSON invalid_request with Allow). */
  refuse?: (method: string) => WireError;
}

/** The endpoints of one issuer (OIDC Discovery §4, RFC 6749 §3.1 and §3.2, the bank's PSU pages). */
export const ISSUER_ROUTES: readonly IssuerRow[] = [
  { path: ['.well-known', 'openid-configuration'], methods: READ, build: (profile) => ({ kind: 'discovery', profile }) },
  { path: ['jwks'], methods: READ, build: (profile) => ({ kind: 'jwks', profile }) },
  {
    path: ['authorize'],
    methods: ['GET'],
    build: (profile) => ({ kind: 'authorize', profile }),
    // A browser-facing endpoint: refusals are pages.
    refuse: () => pageError(405, 'Method not allowed', 'The authorisation endpoint answers GET.', { Allow: 'GET' }),
  },
  {
    path: ['token'],
    methods: ['POST'],
    build: (profile) => ({ kind: 'token', profile }),
    refuse: () => new OAuthError(405, 'invalid_request', 'the token endpoint answers POST', { Allow: 'POST' }),
  },
  {
    // RFC 9126 §2: the pushed authorization request endpoint (answered only when `--par` is not off).
    path: ['par'],
    methods: ['POST'],
    build: (profile) => ({ kind: 'par', profile }),
    refuse: () => new OAuthError(405, 'invalid_request', 'the pushed authorization request endpoint answers POST', { Allow: 'POST' }),
  },
  {
    path: ['interaction', '{uid}'],
    methods: ANY,
    build: (profile, [uid = '']) => ({ kind: 'interaction', profile, uid, step: undefined }),
  },
  {
    path: ['interaction', '{uid}', '{step}'],
    methods: ANY,
    build: (profile, [uid = '', step]) => ({ kind: 'interaction', profile, uid, step }),
  },
];

function allowed(methods: readonly string[] | typeof ANY, method: string): boolean {
  return methods === ANY || methods.includes(method);
}

function notAllowed(methods: readonly string[], method: string): OAuthError {
  return new OAuthError(405, 'invalid_request', `${method} is not allowed here`, { Allow: methods[0] ?? '' });
}

/** Matches a request on the authorisation origin. */
export function matchIssuerRoute(method: string, pathname: string): AuthRouteMatch {
  const [first = '', ...rest] = pathname.split('/').filter((part) => part !== '');
  if (!(PROFILE_NAMES as readonly string[]).includes(first)) {
    // A small index of the issuers, handy when someone opens the bare origin.
    if (pathname === '/' && method === 'GET') return { outcome: 'route', route: { kind: 'issuers' } };
    return { outcome: 'refused', error: new OAuthError(404, 'not_found', `no such endpoint; issuers are /${PROFILE_NAMES.join(', /')}`) };
  }
  const profile = first as ProfileName;
  for (const row of ISSUER_ROUTES) {
    if (row.path.length !== rest.length || row.path.some((part, index) => !part.startsWith('{') && part !== rest[index])) continue;
    if (!allowed(row.methods, method))
      return { outcome: 'refused', error: row.refuse?.(method) ?? notAllowed(row.methods as readonly string[], method) };
    const parameters = row.path.flatMap((part, index) => (part.startsWith('{') ? [rest[index] ?? ''] : []));
    return { outcome: 'route', route: row.build(profile, parameters) };
  }
  return { outcome: 'refused', error: new OAuthError(404, 'not_found', `no endpoint ${pathname}`) };
}

/** Matches the resource-origin routes the authorisation side owns; undefined when the path is the resource server's. */
export function matchResourceOriginRoute(method: string, pathname: string): AuthRouteMatch | undefined {
  if (pathname === REGISTRATION_PATH) {
    // DCR v3.2 POST /register.
    if (method !== 'POST')
      return {
        outcome: 'refused',
        error: new OAuthError(405, 'invalid_request', 'registration is POST with a signed JWT body', { Allow: 'POST' }),
      };
    return { outcome: 'route', route: { kind: 'registration' } };
  }
  if (pathname.startsWith(`${REGISTRATION_PATH}/`)) {
    const raw = pathname.slice(REGISTRATION_PATH.length + 1);
    let clientId = raw;
    try {
      clientId = decodeURIComponent(raw);
    } catch {
      // A malformed escape names no client; the lookup answers it.
    }
    // DCR v3.2 GET / PUT / DELETE /register/{ClientId}: the access token is checked before the method.
    return { outcome: 'route', route: { kind: 'registration-by-id', clientId } };
  }
  const form = Object.hasOwn(ENVIRONMENT_HELPERS, pathname) ? ENVIRONMENT_HELPERS[pathname] : undefined;
  if (form !== undefined) {
    if (method !== 'GET')
      return {
        outcome: 'refused',
        error: ObieError.of(405, 'UK.OBIE.NotSupported', 'the environment helper answers GET', { Allow: 'GET' }),
      };
    return { outcome: 'route', route: { kind: 'environment', form } };
  }
  return undefined;
}
