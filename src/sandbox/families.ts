// The API families of the bank, one row each (pure data): what the resource server dispatches by, what registration
// grants a software statement's roles, and what the PSU's authorisation checks a consent against. A family has a base
// path per served version (its OpenAPI files' `servers`), its route table (resource/routes.ts), the OAuth scope and
// the OB role it needs, and the kind of consent it works under. VRP is one more row: base paths under /pisp beside
// the domestic payments (the VRP files' servers), its table (domestic-vrp-consents, domestic-vrps), scope payments
// (VRP profile v4.0, "Scopes"), role PISP, its consent kind. docs/sandbox.md, "API families"; SandboxOptions.apis
// picks which are served.

import type { AisApiVersion, ApiFamilyName, ConsentKind } from './contracts.js';
import {
  AIS_BASE_PATHS,
  AIS_ROUTES,
  FUNDS_OPERATIONS,
  FUNDS_ROUTES,
  matchTable,
  PAYMENT_OPERATIONS,
  PAYMENT_ROUTES,
  VRP_OPERATIONS,
  VRP_ROUTES,
} from './resource/routes.js';
import type { FundsRoute, Operation, PaymentRoute, Route, RouteTable, VrpRoute } from './resource/routes.js';

export interface ApiFamily<R> {
  name: ApiFamilyName;
  /** The software statement role that may use it (OB Directory software_roles: AISP, PISP, CBPII). */
  role: 'AISP' | 'PISP' | 'CBPII';
  /** The OAuth scope its tokens carry (OB R/W Data API Profile, "Pre-conditions for TPPs": accounts, payments,
   *  fundsconfirmations). */
  scope: string;
  /** The kind of consent its operations work under (store/consents.ts CONSENT_TRANSITIONS). */
  consentKind: ConsentKind;
  /** The ConsentId prefix of that kind (ids are opaque to TPPs; the prefix tells a log reader the kind). */
  consentIdPrefix: string;
  basePaths: Readonly<Record<AisApiVersion, string>>;
  routes: RouteTable<R>;
  /** How its operations are called (grant, signing, idempotency; resource/routes.ts). The AIS reads are neither signed
   *  nor idempotent, and run their own path (resource/index.ts): none listed. */
  operations: Readonly<Record<string, Operation>>;
}

export const FAMILIES = {
  accounts: {
    name: 'accounts',
    role: 'AISP',
    scope: 'accounts',
    consentKind: 'account-access',
    consentIdPrefix: 'aac-',
    basePaths: AIS_BASE_PATHS,
    routes: AIS_ROUTES,
    operations: {},
  },
  payments: {
    name: 'payments',
    role: 'PISP',
    scope: 'payments',
    consentKind: 'domestic-payment',
    consentIdPrefix: 'pdc-',
    basePaths: { '3.1': '/open-banking/v3.1/pisp', '4.0': '/open-banking/v4.0/pisp' },
    routes: PAYMENT_ROUTES,
    operations: PAYMENT_OPERATIONS,
  },
  funds: {
    name: 'funds',
    role: 'CBPII',
    scope: 'fundsconfirmations',
    consentKind: 'funds-confirmation',
    consentIdPrefix: 'fcc-',
    basePaths: { '3.1': '/open-banking/v3.1/cbpii', '4.0': '/open-banking/v4.0/cbpii' },
    routes: FUNDS_ROUTES,
    operations: FUNDS_OPERATIONS,
  },
  vrp: {
    name: 'vrp',
    role: 'PISP',
    scope: 'payments',
    consentKind: 'domestic-vrp',
    consentIdPrefix: 'vrc-',
    basePaths: { '3.1': '/open-banking/v3.1/pisp', '4.0': '/open-banking/v4.0/pisp' },
    routes: VRP_ROUTES,
    operations: VRP_OPERATIONS,
  },
} as const satisfies {
  accounts: ApiFamily<Route>;
  payments: ApiFamily<PaymentRoute>;
  funds: ApiFamily<FundsRoute>;
  vrp: ApiFamily<VrpRoute>;
};

/** The rows in API_FAMILY_NAMES order. */
export const FAMILY_ROWS: readonly ApiFamily<unknown>[] = [FAMILIES.accounts, FAMILIES.payments, FAMILIES.funds, FAMILIES.vrp];

/** Whether any served family signs an answer (x-jws-signature): the bank then needs its message-signing key. */
export function signsAnswers(apis: readonly ApiFamilyName[]): boolean {
  return apis.some((name) => Object.values(FAMILIES[name].operations).some((operation) => operation.signedResponse));
}

/** The family whose consents are of `kind`. */
export function familyOfConsentKind(kind: ConsentKind): ApiFamily<unknown> {
  const family = FAMILY_ROWS.find((row) => row.consentKind === kind);
  if (family === undefined) throw new TypeError(`no API family for consent kind ${kind}`);
  return family;
}

/** The scopes a software statement's roles allow, openid first (DCR v3.2: a client registers only scopes its roles
 *  give it; OB R/W Data API Profile, "Pre-conditions for TPPs"). */
export function scopesForRoles(roles: readonly string[]): string[] {
  // Two families of one role share its scope (payments and vrp: PISP, payments): listed once.
  return [...new Set(['openid', ...FAMILY_ROWS.filter((family) => roles.includes(family.role)).map((family) => family.scope)])];
}

/** What a request path names among the served families and versions. */
export type FamilyMatch =
  | { outcome: 'route'; family: 'accounts'; version: AisApiVersion; route: Route }
  | { outcome: 'route'; family: 'payments'; version: AisApiVersion; route: PaymentRoute }
  | { outcome: 'route'; family: 'funds'; version: AisApiVersion; route: FundsRoute }
  | { outcome: 'route'; family: 'vrp'; version: AisApiVersion; route: VrpRoute }
  | { outcome: 'method-not-allowed'; allow: string[] }
  | { outcome: 'not-implemented'; family: ApiFamilyName; template: string }
  | { outcome: 'not-found' };

/**
 * Matches a request path (no query) on the resource origin against the served families' tables under their served
 * versions' base paths. A family that is not served, or a version that is not, is a path of no standard (404): the
 * `accounts`-only default is exactly the interface's bank.
 */
export function matchResource(
  method: string,
  pathname: string,
  apis: readonly ApiFamilyName[],
  versions: readonly AisApiVersion[],
): FamilyMatch {
  let unimplemented: FamilyMatch | undefined;
  for (const name of apis) {
    for (const version of versions) {
      const base = FAMILIES[name].basePaths[version];
      if (!pathname.startsWith(`${base}/`)) continue;
      const match = MATCHERS[name](method, pathname.slice(base.length), version);
      if (match.outcome === 'route' || match.outcome === 'method-not-allowed') return match;
      if (match.outcome === 'not-implemented') unimplemented ??= match;
    }
  }
  return unimplemented ?? { outcome: 'not-found' };
}

type Matcher = (method: string, relative: string, version: AisApiVersion) => FamilyMatch;

/** Each family's table, its routes tagged with the family (so each stays typed by its own table). */
const MATCHERS: Readonly<Record<ApiFamilyName, Matcher>> = {
  accounts: (method, relative, version) =>
    inTable(FAMILIES.accounts.routes, method, relative, 'accounts', (route) => ({ outcome: 'route', family: 'accounts', version, route })),
  payments: (method, relative, version) =>
    inTable(FAMILIES.payments.routes, method, relative, 'payments', (route) => ({ outcome: 'route', family: 'payments', version, route })),
  funds: (method, relative, version) =>
    inTable(FAMILIES.funds.routes, method, relative, 'funds', (route) => ({ outcome: 'route', family: 'funds', version, route })),
  vrp: (method, relative, version) =>
    inTable(FAMILIES.vrp.routes, method, relative, 'vrp', (route) => ({ outcome: 'route', family: 'vrp', version, route })),
};

function inTable<R>(
  table: RouteTable<R>,
  method: string,
  relative: string,
  family: ApiFamilyName,
  routed: (route: R) => FamilyMatch,
): FamilyMatch {
  const match = matchTable(table, method, relative);
  if (match.outcome === 'route') return routed(match.route);
  if (match.outcome === 'not-implemented') return { ...match, family };
  return match;
}

/** Whether `pathname` is under a served family's base path of `version`. */
export function isUnderVersion(
  pathname: string,
  version: AisApiVersion,
  apis: readonly ApiFamilyName[],
  versions: readonly AisApiVersion[],
): boolean {
  return versions.includes(version) && apis.some((name) => pathname.startsWith(`${FAMILIES[name].basePaths[version]}/`));
}
