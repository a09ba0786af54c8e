// Route table of the AIS resource server (pure): which operation a (method, path) names on which served version
// (v3.1, v4.0: the same paths under their own base), which methods a path allows (405), and which paths are endpoints
// of the standard this bank does not implement (404, as unknown paths).

import type { AisApiVersion } from '../contracts.js';

/** The base path of each version, as its OpenAPI file's `servers` gives it. */
export const AIS_BASE_PATHS: Readonly<Record<AisApiVersion, string>> = {
  '3.1': '/open-banking/v3.1/aisp',
  '4.0': '/open-banking/v4.0/aisp',
};
export const AISP_BASE_PATH = AIS_BASE_PATHS['3.1'];

export type Route =
  | { kind: 'consent-create' }
  | { kind: 'consent-get'; consentId: string }
  | { kind: 'consent-delete'; consentId: string }
  | { kind: 'accounts' }
  | { kind: 'account'; accountId: string }
  | { kind: 'account-balances'; accountId: string }
  | { kind: 'balances' }
  | { kind: 'account-transactions'; accountId: string };

export type RouteMatch =
  | { outcome: 'route'; route: Route; version: AisApiVersion }
  | { outcome: 'method-not-allowed'; allow: string[] }
  | { outcome: 'not-implemented'; template: string }
  | { outcome: 'not-found' };

/** RFC 9110 §9.3.2: HEAD wherever GET is (Node's server sends the headers of the GET answer without its body). */
const READ = ['GET', 'HEAD'] as const;

type Build = (parameter: string) => Route;

/**
 * The operations this bank implements, by OpenAPI path template (relative to the AIS base path) and method. A
 * template has at most one `{parameter}`; its decoded value is what `Build` receives ('' when there is none).
 */
export const IMPLEMENTED_ROUTES: readonly { template: string; methods: Readonly<Record<string, Build>> }[] = [
  { template: '/account-access-consents', methods: { POST: () => ({ kind: 'consent-create' }) } },
  {
    template: '/account-access-consents/{ConsentId}',
    methods: {
      ...reads((consentId) => ({ kind: 'consent-get', consentId })),
      DELETE: (consentId) => ({ kind: 'consent-delete', consentId }),
    },
  },
  { template: '/accounts', methods: reads(() => ({ kind: 'accounts' })) },
  { template: '/accounts/{AccountId}', methods: reads((accountId) => ({ kind: 'account', accountId })) },
  { template: '/accounts/{AccountId}/balances', methods: reads((accountId) => ({ kind: 'account-balances', accountId })) },
  { template: '/accounts/{AccountId}/transactions', methods: reads((accountId) => ({ kind: 'account-transactions', accountId })) },
  { template: '/balances', methods: reads(() => ({ kind: 'balances' })) },
];

/**
 * Every other path of the Account and Transaction API v3.1 (the union of the v3.1.1 and v3.1.11 OpenAPI `paths`;
 * test/unit/sandbox-routes.test.ts ties this table to the files; v4.0 has the same paths, test/unit/sandbox-v4.test.ts): endpoints of the standard this bank does not offer
 * (bank-interface §4.5 rule 1, §4.7). OBIE Read/Write Data API Profile, "HTTP Status Codes": "If an ASPSP has not
 * implemented an API endpoint, it must respond with a 404 (Not Found) for requests to that URL." So they answer
 * exactly as a path that is in no standard (docs/sandbox-ais.md); the table names them so the log, the docs and the
 * tests can tell the two apart.
 */
export const UNIMPLEMENTED_PATHS: readonly string[] = [
  '/accounts/{AccountId}/beneficiaries',
  '/accounts/{AccountId}/direct-debits',
  '/accounts/{AccountId}/offers',
  '/accounts/{AccountId}/parties',
  '/accounts/{AccountId}/party',
  '/accounts/{AccountId}/product',
  '/accounts/{AccountId}/scheduled-payments',
  '/accounts/{AccountId}/standing-orders',
  '/accounts/{AccountId}/statements',
  '/accounts/{AccountId}/statements/{StatementId}',
  '/accounts/{AccountId}/statements/{StatementId}/file',
  '/accounts/{AccountId}/statements/{StatementId}/transactions',
  '/beneficiaries',
  '/direct-debits',
  '/offers',
  '/party',
  '/products',
  '/scheduled-payments',
  '/standing-orders',
  '/statements',
  '/transactions',
];

function reads(build: Build): Record<string, Build> {
  return Object.fromEntries(READ.map((method) => [method, build]));
}

function segmentValue(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Each template's segments, split once (matchRoute runs on every request and tries every template). */
const TEMPLATE_SEGMENTS = new Map<string, readonly string[]>(
  [...IMPLEMENTED_ROUTES.map((row) => row.template), ...UNIMPLEMENTED_PATHS].map((template) => [template, template.slice(1).split('/')]),
);

/** The decoded value of the template's parameter when `segments` fit it ('' without one), else undefined. */
function fit(template: string, segments: readonly string[]): string | undefined {
  const parts = TEMPLATE_SEGMENTS.get(template) ?? template.slice(1).split('/');
  if (parts.length !== segments.length) return undefined;
  let parameter = '';
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index] as string;
    const segment = segments[index] as string;
    if (part.startsWith('{')) parameter = segmentValue(segment);
    else if (part !== segment) return undefined;
  }
  return parameter;
}

/** The served version whose base path `pathname` is under, if any. */
export function versionOf(pathname: string, versions: readonly AisApiVersion[]): AisApiVersion | undefined {
  return versions.find((version) => pathname.startsWith(`${AIS_BASE_PATHS[version]}/`));
}

/** Matches a request path (no query) on the resource origin; anything outside a served version's AIS base path is
 *  not found (another version's paths included: `--api-versions 3.1` is exactly the v3.1 interface). */
export function matchRoute(method: string, pathname: string, versions: readonly AisApiVersion[] = ['3.1']): RouteMatch {
  const version = versionOf(pathname, versions);
  if (version === undefined) return { outcome: 'not-found' };
  const base = AIS_BASE_PATHS[version];
  const segments = pathname.slice(base.length + 1).split('/');
  if (segments.some((segment) => segment === '')) return { outcome: 'not-found' };
  const upper = method.toUpperCase();
  for (const row of IMPLEMENTED_ROUTES) {
    const parameter = fit(row.template, segments);
    if (parameter === undefined) continue;
    const build = row.methods[upper];
    return build
      ? { outcome: 'route', route: build(parameter), version }
      : { outcome: 'method-not-allowed', allow: Object.keys(row.methods) };
  }
  const template = UNIMPLEMENTED_PATHS.find((candidate) => fit(candidate, segments) !== undefined);
  return template === undefined ? { outcome: 'not-found' } : { outcome: 'not-implemented', template };
}
