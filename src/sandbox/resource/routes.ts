// Route tables of the resource server (pure), one per API family (families.ts holds the rows that name them): which
// operation a (method, path) names, which methods a path allows (405), and which paths are endpoints of the standard
// this bank does not implement (404, as unknown paths). AIS (v3.1, v4.0: the same paths under their own base), PISP
// domestic payments, CBPII confirmation of funds and domestic VRP; each table is tied to its OpenAPI files by a test.

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

type Build<R = Route> = (parameter: string) => R;

/** One family's route table: its operations by OpenAPI path template (relative to the base path) and method, and the
 *  standard's other paths, which this bank does not implement. */
export interface RouteTable<R> {
  implemented: readonly { template: string; methods: Readonly<Record<string, Build<R>>> }[];
  unimplemented: readonly string[];
}

/** What a path relative to a family's base names in its table. */
export type TableMatch<R> =
  | { outcome: 'route'; route: R }
  | { outcome: 'method-not-allowed'; allow: string[] }
  | { outcome: 'not-implemented'; template: string }
  | { outcome: 'not-found' };

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

export const AIS_ROUTES: RouteTable<Route> = { implemented: IMPLEMENTED_ROUTES, unimplemented: UNIMPLEMENTED_PATHS };

// ---- PISP: domestic payments (v3.1.11 and v4.0 obie-payment-initiation files: the same paths and methods) ----------

export type PaymentRoute =
  | { kind: 'payment-consent-create' }
  | { kind: 'payment-consent-get'; consentId: string }
  | { kind: 'payment-consent-funds'; consentId: string }
  | { kind: 'payment-create' }
  | { kind: 'payment-get'; paymentId: string }
  | { kind: 'payment-details'; paymentId: string };

/**
 * How each PISP operation is called, as both OpenAPI files (v3.1.11, v4.0) and the v4.0 pages' endpoint tables say
 * (pisp/domestic-payment-consents.md, domestic-payments.md "Endpoints"): the grant of its security scheme
 * (TPPOAuth2Security: client credentials, PSUOAuth2Security: authorization code), whether the request carries
 * x-jws-signature and x-idempotency-key (both `required: true` where present) and whether the answer is signed
 * (x-jws-signature among the response headers). test/unit/sandbox-families.test.ts reads them back from the files.
 */
export interface Operation {
  grant: 'client_credentials' | 'authorization_code';
  signedRequest: boolean;
  signedResponse: boolean;
  idempotent: boolean;
}

export const PAYMENT_OPERATIONS: Readonly<Record<PaymentRoute['kind'], Operation>> = {
  'payment-consent-create': { grant: 'client_credentials', signedRequest: true, signedResponse: true, idempotent: true },
  'payment-consent-get': { grant: 'client_credentials', signedRequest: false, signedResponse: true, idempotent: false },
  'payment-consent-funds': { grant: 'authorization_code', signedRequest: false, signedResponse: true, idempotent: false },
  'payment-create': { grant: 'authorization_code', signedRequest: true, signedResponse: true, idempotent: true },
  'payment-get': { grant: 'client_credentials', signedRequest: false, signedResponse: true, idempotent: false },
  'payment-details': { grant: 'client_credentials', signedRequest: false, signedResponse: true, idempotent: false },
};

export const PAYMENT_ROUTES: RouteTable<PaymentRoute> = {
  implemented: [
    { template: '/domestic-payment-consents', methods: { POST: () => ({ kind: 'payment-consent-create' }) } },
    { template: '/domestic-payment-consents/{ConsentId}', methods: reads((consentId) => ({ kind: 'payment-consent-get', consentId })) },
    {
      template: '/domestic-payment-consents/{ConsentId}/funds-confirmation',
      methods: reads((consentId) => ({ kind: 'payment-consent-funds', consentId })),
    },
    { template: '/domestic-payments', methods: { POST: () => ({ kind: 'payment-create' }) } },
    { template: '/domestic-payments/{DomesticPaymentId}', methods: reads((paymentId) => ({ kind: 'payment-get', paymentId })) },
    {
      template: '/domestic-payments/{DomesticPaymentId}/payment-details',
      methods: reads((paymentId) => ({ kind: 'payment-details', paymentId })),
    },
  ],
  // The rest of the Payment Initiation API (international, scheduled, standing orders, file payments): OBIE R/W Data
  // API Profile, "400 (Bad Request) v/s 404 (Not Found)": "If an ASPSP has not implemented an API endpoint, it must
  // respond with a 404 (Not Found) for requests to that URL" — its own example is GET /domestic-scheduled-payments.
  unimplemented: [
    '/domestic-scheduled-payment-consents',
    '/domestic-scheduled-payment-consents/{ConsentId}',
    '/domestic-scheduled-payments',
    '/domestic-scheduled-payments/{DomesticScheduledPaymentId}',
    '/domestic-scheduled-payments/{DomesticScheduledPaymentId}/payment-details',
    '/domestic-standing-order-consents',
    '/domestic-standing-order-consents/{ConsentId}',
    '/domestic-standing-orders',
    '/domestic-standing-orders/{DomesticStandingOrderId}',
    '/domestic-standing-orders/{DomesticStandingOrderId}/payment-details',
    '/file-payment-consents',
    '/file-payment-consents/{ConsentId}',
    '/file-payment-consents/{ConsentId}/file',
    '/file-payments',
    '/file-payments/{FilePaymentId}',
    '/file-payments/{FilePaymentId}/payment-details',
    '/file-payments/{FilePaymentId}/report-file',
    '/international-payment-consents',
    '/international-payment-consents/{ConsentId}',
    '/international-payment-consents/{ConsentId}/funds-confirmation',
    '/international-payments',
    '/international-payments/{InternationalPaymentId}',
    '/international-payments/{InternationalPaymentId}/payment-details',
    '/international-scheduled-payment-consents',
    '/international-scheduled-payment-consents/{ConsentId}',
    '/international-scheduled-payment-consents/{ConsentId}/funds-confirmation',
    '/international-scheduled-payments',
    '/international-scheduled-payments/{InternationalScheduledPaymentId}',
    '/international-scheduled-payments/{InternationalScheduledPaymentId}/payment-details',
    '/international-standing-order-consents',
    '/international-standing-order-consents/{ConsentId}',
    '/international-standing-orders',
    '/international-standing-orders/{InternationalStandingOrderPaymentId}',
    '/international-standing-orders/{InternationalStandingOrderPaymentId}/payment-details',
  ],
};

// ---- CBPII: confirmation of funds (v3.1.11 and v4.0 obie-confirmation-funds files) ---------------------------------

export type FundsRoute =
  | { kind: 'funds-consent-create' }
  | { kind: 'funds-consent-get'; consentId: string }
  | { kind: 'funds-consent-delete'; consentId: string }
  | { kind: 'funds-confirm' };

/** CBPII operations: neither file has x-jws-signature or x-idempotency-key on them, nor a signed answer (the v4.0
 *  pages' endpoint tables: "Message Signing No", "Idempotency Key No"). */
export const FUNDS_OPERATIONS: Readonly<Record<FundsRoute['kind'], Operation>> = {
  'funds-consent-create': { grant: 'client_credentials', signedRequest: false, signedResponse: false, idempotent: false },
  'funds-consent-get': { grant: 'client_credentials', signedRequest: false, signedResponse: false, idempotent: false },
  'funds-consent-delete': { grant: 'client_credentials', signedRequest: false, signedResponse: false, idempotent: false },
  'funds-confirm': { grant: 'authorization_code', signedRequest: false, signedResponse: false, idempotent: false },
};

export const FUNDS_ROUTES: RouteTable<FundsRoute> = {
  implemented: [
    { template: '/funds-confirmation-consents', methods: { POST: () => ({ kind: 'funds-consent-create' }) } },
    {
      template: '/funds-confirmation-consents/{ConsentId}',
      methods: {
        ...reads((consentId) => ({ kind: 'funds-consent-get', consentId })),
        DELETE: (consentId) => ({ kind: 'funds-consent-delete', consentId }),
      },
    },
    { template: '/funds-confirmations', methods: { POST: () => ({ kind: 'funds-confirm' }) } },
  ],
  unimplemented: [],
};

// ---- VRP: domestic variable recurring payments (obie-vrp-v3.1.11 and -v4.0, obl-cvrp-v4.0: the same paths) -------

export type VrpRoute =
  | { kind: 'vrp-consent-create' }
  | { kind: 'vrp-consent-get'; consentId: string }
  | { kind: 'vrp-consent-delete'; consentId: string }
  | { kind: 'vrp-consent-funds'; consentId: string }
  | { kind: 'vrp-create' }
  | { kind: 'vrp-get'; paymentId: string }
  | { kind: 'vrp-details'; paymentId: string };

/**
 * How each VRP operation is called. Request signature, idempotency key and signed answer are the files' (x-jws-signature
 * and x-idempotency-key `required: true` where present; x-jws-signature among the success headers) and agree with the
 * v4.0 pages' endpoint tables. The grant is the pages' (vrp/domestic-vrp-consents.md, domestic-vrps.md "Endpoints":
 * funds-confirmation and POST /domestic-vrps "Authorization Code"): every operation of the three files names
 * TPPOAuth2Security (client credentials), which would let a TPP pay without the PSU's authorisation of the mandate.
 * test/unit/sandbox-vrp-tables.test.ts reads the files and the pages back.
 */
export const VRP_OPERATIONS: Readonly<Record<VrpRoute['kind'], Operation>> = {
  'vrp-consent-create': { grant: 'client_credentials', signedRequest: true, signedResponse: true, idempotent: true },
  'vrp-consent-get': { grant: 'client_credentials', signedRequest: false, signedResponse: true, idempotent: false },
  'vrp-consent-delete': { grant: 'client_credentials', signedRequest: false, signedResponse: false, idempotent: false },
  'vrp-consent-funds': { grant: 'authorization_code', signedRequest: true, signedResponse: true, idempotent: false },
  'vrp-create': { grant: 'authorization_code', signedRequest: true, signedResponse: true, idempotent: true },
  'vrp-get': { grant: 'client_credentials', signedRequest: false, signedResponse: true, idempotent: false },
  'vrp-details': { grant: 'client_credentials', signedRequest: false, signedResponse: true, idempotent: false },
};

export const VRP_ROUTES: RouteTable<VrpRoute> = {
  implemented: [
    { template: '/domestic-vrp-consents', methods: { POST: () => ({ kind: 'vrp-consent-create' }) } },
    {
      template: '/domestic-vrp-consents/{ConsentId}',
      methods: {
        ...reads((consentId) => ({ kind: 'vrp-consent-get', consentId })),
        DELETE: (consentId) => ({ kind: 'vrp-consent-delete', consentId }),
      },
    },
    {
      template: '/domestic-vrp-consents/{ConsentId}/funds-confirmation',
      methods: { POST: (consentId) => ({ kind: 'vrp-consent-funds', consentId }) },
    },
    { template: '/domestic-vrps', methods: { POST: () => ({ kind: 'vrp-create' }) } },
    { template: '/domestic-vrps/{DomesticVRPId}', methods: reads((paymentId) => ({ kind: 'vrp-get', paymentId })) },
    { template: '/domestic-vrps/{DomesticVRPId}/payment-details', methods: reads((paymentId) => ({ kind: 'vrp-details', paymentId })) },
  ],
  unimplemented: [],
};

/**
 * The v4.0 consent migration operations, which this bank does not implement: answered 405 with Allow (a method the
 * resource does not support, OB R/W Data API Profile v4.0 "HTTP Status Codes"; both v4.0 files document 405 for them).
 * VRP profile v4.0, "Migration of a consent to a new version": "Implementation of these endpoints is conditional"; they
 * are "only used for migration of consent data across API Standard versions", and a VRP consent here serves the version
 * it was made on (docs/sandbox-vrp.md). test/unit/sandbox-vrp-tables.test.ts ties them to the v4.0 files.
 */
export const VRP_UNIMPLEMENTED_METHODS: Readonly<Record<string, readonly string[]>> = {
  '/domestic-vrp-consents/{ConsentId}': ['PUT', 'PATCH'],
};

function reads<R>(build: Build<R>): Record<string, Build<R>> {
  return Object.fromEntries(READ.map((method) => [method, build]));
}

function segmentValue(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Each template's segments, split once (matching runs on every request and tries every template). */
const TEMPLATE_SEGMENTS = new Map<string, readonly string[]>(
  [AIS_ROUTES, PAYMENT_ROUTES, FUNDS_ROUTES, VRP_ROUTES]
    .flatMap((table: RouteTable<unknown>) => [...table.implemented.map((row) => row.template), ...table.unimplemented])
    .map((template) => [template, template.slice(1).split('/')]),
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

/** Matches a path relative to a family's base path (`/accounts/1`, no query) against its table. */
export function matchTable<R>(table: RouteTable<R>, method: string, relative: string): TableMatch<R> {
  const segments = relative.slice(1).split('/');
  if (!relative.startsWith('/') || segments.some((segment) => segment === '')) return { outcome: 'not-found' };
  const upper = method.toUpperCase();
  for (const row of table.implemented) {
    const parameter = fit(row.template, segments);
    if (parameter === undefined) continue;
    const build = row.methods[upper];
    return build ? { outcome: 'route', route: build(parameter) } : { outcome: 'method-not-allowed', allow: Object.keys(row.methods) };
  }
  const template = table.unimplemented.find((candidate) => fit(candidate, segments) !== undefined);
  return template === undefined ? { outcome: 'not-found' } : { outcome: 'not-implemented', template };
}

/** The served version whose base path `pathname` is under, if any. */
export function versionOf(pathname: string, versions: readonly AisApiVersion[]): AisApiVersion | undefined {
  return versions.find((version) => pathname.startsWith(`${AIS_BASE_PATHS[version]}/`));
}

/** Matches a request path (no query) on the resource origin against the AIS table; anything outside a served
 *  version's AIS base path is not found (another version's paths included: `--api-versions 3.1` is exactly the v3.1
 *  interface). */
export function matchRoute(method: string, pathname: string, versions: readonly AisApiVersion[] = ['3.1']): RouteMatch {
  const version = versionOf(pathname, versions);
  if (version === undefined) return { outcome: 'not-found' };
  const match = matchTable(AIS_ROUTES, method, pathname.slice(AIS_BASE_PATHS[version].length));
  return match.outcome === 'route' ? { ...match, version } : match;
}
