// Route table of the AIS v3.1 resource server (pure): which operation a (method, path) names, which methods a path
// allows (405), and which paths are endpoints of the standard this bank does not implement (501).

export const AISP_BASE_PATH = '/open-banking/v3.1/aisp';

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
  | { outcome: 'route'; route: Route }
  | { outcome: 'method-not-allowed'; allow: string[] }
  | { outcome: 'unsupported' }
  | { outcome: 'not-found' };

/**
 * Resources of the Account and Transaction API v3.1 that this bank does not offer (bank-interface §4.5 rule 1, §4.7):
 * bulk (/beneficiaries, …, /transactions) and per account (/accounts/{AccountId}/beneficiaries, …), any subpath
 * (e.g. /accounts/{AccountId}/statements/{StatementId}/file). The spec names the per-account product resource
 * `product` and the party resources `party` / `parties`; both spellings of each are covered.
 */
const UNSUPPORTED_BULK = new Set(['beneficiaries', 'direct-debits', 'standing-orders', 'products', 'product', 'offers', 'party', 'parties', 'scheduled-payments', 'statements', 'transactions']);
const UNSUPPORTED_PER_ACCOUNT = new Set(['beneficiaries', 'direct-debits', 'standing-orders', 'products', 'product', 'offers', 'party', 'parties', 'scheduled-payments', 'statements']);

function segmentValue(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** RFC 9110 §9.3.2: HEAD wherever GET is (Node's server sends the headers of the GET answer without its body). */
const READ = ['GET', 'HEAD'];

function only(method: string, allowed: string[], route: Route): RouteMatch {
  return allowed.includes(method) ? { outcome: 'route', route } : { outcome: 'method-not-allowed', allow: allowed };
}

/** Matches a request path (no query) on the resource origin; anything outside the AIS base path is not found. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  if (!pathname.startsWith(`${AISP_BASE_PATH}/`)) return { outcome: 'not-found' };
  const segments = pathname.slice(AISP_BASE_PATH.length + 1).split('/');
  const [first = '', second, third, ...rest] = segments;
  if (segments.some((segment) => segment === '')) return { outcome: 'not-found' };
  const upper = method.toUpperCase();

  if (first === 'account-access-consents') {
    if (second === undefined) return upper === 'POST' ? { outcome: 'route', route: { kind: 'consent-create' } } : { outcome: 'method-not-allowed', allow: ['POST'] };
    if (third !== undefined) return { outcome: 'not-found' };
    const consentId = segmentValue(second);
    if (READ.includes(upper)) return { outcome: 'route', route: { kind: 'consent-get', consentId } };
    if (upper === 'DELETE') return { outcome: 'route', route: { kind: 'consent-delete', consentId } };
    return { outcome: 'method-not-allowed', allow: [...READ, 'DELETE'] };
  }
  if (first === 'balances' && second === undefined) return only(upper, READ, { kind: 'balances' });
  if (UNSUPPORTED_BULK.has(first)) return { outcome: 'unsupported' };
  if (first === 'accounts') {
    if (second === undefined) return only(upper, READ, { kind: 'accounts' });
    const accountId = segmentValue(second);
    if (third === undefined) return only(upper, READ, { kind: 'account', accountId });
    if (UNSUPPORTED_PER_ACCOUNT.has(third)) return { outcome: 'unsupported' };
    if (rest.length > 0) return { outcome: 'not-found' };
    if (third === 'balances') return only(upper, READ, { kind: 'account-balances', accountId });
    if (third === 'transactions') return only(upper, READ, { kind: 'account-transactions', accountId });
  }
  return { outcome: 'not-found' };
}
