// The test bank's resource side: the environment helper (docs/bank-interface.md §4.2) and a minimal AIS v3.1
// (consents, accounts, balances, paged transactions) behind certificate-bound tokens (RFC 8705 §3). Any other path
// is 404 with no body (OBIE Read/Write Data API Profile "HTTP Status Codes").

import { createHash } from 'node:crypto';
import { text } from 'node:stream/consumers';
import type { TLSSocket } from 'node:tls';
import type { KoaContext, Middleware, Provider } from 'oidc-provider';

import { peerCertificate, peerSubjectDn, reply } from './registration.js';

export const PSU = 'psu-alex';
const AISP = '/open-banking/v3.1/aisp';
const PAGE_SIZE = 100;
const BOOKED_AT = '2026-01-02T10:00:00+00:00';
/** The PSU's accounts and how many transactions each has (the first spans three pages). */
const ACCOUNTS = [
  { id: 'acc-current', name: 'Alex Current', transactions: 250 },
  { id: 'acc-savings', name: 'Alex Savings', transactions: 3 },
];
type Account = (typeof ACCOUNTS)[number];

const gbp = (amount: number) => ({ Amount: `${amount}.00`, Currency: 'GBP' });
const account = ({ id, name }: Account) => ({
  AccountId: id,
  Currency: 'GBP',
  AccountType: 'Personal',
  AccountSubType: 'CurrentAccount',
  Nickname: name,
  Account: [{ SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: `40400${id.length}1234567`, Name: name }],
});
const balance = ({ id, transactions }: Account) => ({
  AccountId: id,
  Amount: gbp(transactions * 10),
  CreditDebitIndicator: 'Credit',
  Type: 'InterimAvailable',
  DateTime: BOOKED_AT,
});
const transaction = (id: string, index: number) => ({
  AccountId: id,
  TransactionId: `${id}-${String(index).padStart(4, '0')}`,
  CreditDebitIndicator: index % 4 === 0 ? 'Credit' : 'Debit',
  Status: 'Booked',
  BookingDateTime: BOOKED_AT,
  Amount: gbp((index % 50) + 1),
});

/** Account-access consents by ConsentId: `Data` as on the wire (AIS v3.1 "Account Access Consents"), and whose. */
type Consent = { clientId: string; grantId?: string; Data: { ConsentId: string; Status: string; [field: string]: unknown } };
export type Consents = Map<string, Consent>;
/** ISO 8601 with the zone, whole seconds (AIS v3.1 ISODateTime). */
export const stamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');

export function resourceMiddleware(provider: Provider, consents: Consents, url: string): Middleware {
  /** The live token of `Authorization: Bearer` with scope accounts, if bound to this connection's certificate. */
  async function bearer(ctx: KoaContext, model: 'AccessToken' | 'ClientCredentials') {
    const value = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    const token = value === undefined ? undefined : await provider[model].find(value);
    if (token === undefined || token.isExpired || !(token.scope ?? '').split(' ').includes('accounts')) return undefined;
    // RFC 8705 §3.1: x5t#S256 is the base64url SHA-256 of the DER certificate the token was issued to.
    const der = peerCertificate(ctx)?.raw;
    return der !== undefined && token['x5t#S256'] === createHash('sha256').update(der).digest('base64url') ? token : undefined;
  }
  const single = (path: string, body: object) => ({ ...body, Links: { Self: `${url}${AISP}${path}` }, Meta: { TotalPages: 1 } });

  async function consentRoute(ctx: KoaContext, id: string | undefined): Promise<void> {
    const token = await bearer(ctx, 'ClientCredentials');
    if (token === undefined) return reply(ctx, 401);
    let consent = id !== undefined && ctx.method === 'GET' ? consents.get(decodeURIComponent(id)) : undefined;
    if (id === undefined && ctx.method === 'POST') {
      const body: { Data?: { Permissions?: unknown }; Risk?: unknown } | null = await text(ctx.req)
        .then(JSON.parse)
        .catch(() => null);
      const Permissions = body?.Data?.Permissions;
      if (!Array.isArray(Permissions) || Permissions.length === 0 || typeof body?.Risk !== 'object') return reply(ctx, 400);
      const [ConsentId, now] = [`oidc-aac-${consents.size + 1}`, stamp()];
      const Data = { ConsentId, Status: 'AwaitingAuthorisation', Permissions, CreationDateTime: now, StatusUpdateDateTime: now };
      consents.set(ConsentId, (consent = { clientId: token.clientId, Data }));
    }
    if (consent?.clientId !== token.clientId) return reply(ctx, 404);
    reply(
      ctx,
      id === undefined ? 201 : 200,
      single(`/account-access-consents/${consent.Data.ConsentId}`, { Data: consent.Data, Risk: {} }),
    );
  }

  async function accountRoute(ctx: KoaContext, path: string, id: string | undefined, leaf: string | undefined): Promise<void> {
    const token = await bearer(ctx, 'AccessToken');
    const consent = [...consents.values()].find((c) => token?.grantId !== undefined && c.grantId === token.grantId);
    if (consent?.Data.Status !== 'Authorised' || consent.clientId !== token?.clientId) return reply(ctx, 401);
    const found = ACCOUNTS.filter((a) => id === undefined || a.id === id);
    if (found.length === 0) return reply(ctx, 404);
    if (leaf !== 'transactions') {
      const data = leaf === 'balances' || path === '/balances' ? { Balance: found.map(balance) } : { Account: found.map(account) };
      return reply(ctx, 200, single(path, { Data: data }));
    }
    // AIS v3.1 "Pagination": absolute Links on the same path, Next absent on the last page, Meta.TotalPages.
    const [{ id: accountId, transactions }] = found as [Account];
    const pages = Math.max(1, Math.ceil(transactions / PAGE_SIZE));
    const page = Math.min(Math.max(1, Number(ctx.query.page ?? '1') || 1), pages);
    const first = (page - 1) * PAGE_SIZE;
    const Transaction = Array.from({ length: Math.min(PAGE_SIZE, transactions - first) }, (_, i) => transaction(accountId, first + i));
    const numbers = { Self: page, First: 1, Last: pages, Prev: page - 1, Next: page + 1 };
    const links = Object.entries(numbers).filter(([, n]) => n >= 1 && n <= pages);
    const Links = Object.fromEntries(links.map(([name, n]) => [name, `${url}${AISP}${path}?page=${n}`]));
    reply(ctx, 200, { Data: { Transaction }, Links, Meta: { TotalPages: pages } });
  }

  return async (ctx, next) => {
    if (ctx.path === '/sandbox-helper/v1.0/postman/environment') return environmentHelper(ctx, provider, url);
    if (!ctx.path.startsWith(`${AISP}/`)) return next();
    // FAPI 1 Baseline §6.2.1-11: the resource server echoes the interaction id.
    const interaction = ctx.get('x-fapi-interaction-id');
    if (interaction !== '') ctx.set('x-fapi-interaction-id', interaction);
    const path = ctx.path.slice(AISP.length);
    const consentPath = /^\/account-access-consents(?:\/([^/]+))?$/.exec(path);
    if (consentPath) return consentRoute(ctx, consentPath[1]);
    const accountPath = /^\/(?:accounts(?:\/([^/]+)(?:\/(balances|transactions))?)?|balances)$/.exec(path);
    return ctx.method === 'GET' && accountPath ? accountRoute(ctx, path, accountPath[1], accountPath[2]) : reply(ctx, 404);
  };
}

/** §4.2 names the client by `client_id` only; the helper asks for the credential the token endpoint would (Basic with a
 *  secret; for tls_client_auth the registered DN, RFC 8705 §2.1.2; for private_key_jwt the directory certificate every
 *  route demands). docs/notes.md, "proven against oidc-provider", difference 11. */
async function environmentHelper(ctx: KoaContext, provider: Provider, url: string): Promise<void> {
  const client = await provider.Client.find(String(ctx.query.client_id ?? ''));
  if (client === undefined) return reply(ctx, 404);
  const { token_endpoint_auth_method: method, tls_client_auth_subject_dn: dn } = client.metadata();
  const { clientId, clientSecret } = client;
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret ?? '')}`).toString('base64');
  const authenticated =
    method === 'tls_client_auth'
      ? typeof dn === 'string' && peerSubjectDn(ctx) === dn
      : method === 'private_key_jwt' || (clientSecret !== undefined && ctx.get('authorization') === `Basic ${basic}`);
  if (!authenticated || !(ctx.req.socket as TLSSocket).authorized) return reply(ctx, 401);
  const values = Object.entries({
    rs: url,
    issuer: url,
    configEndpoint: `${url}/.well-known/openid-configuration`,
    authEndpoint: `${url}/auth`,
    tokenEndpoint: `${url}/token`,
    ...(clientSecret === undefined ? {} : { basicToken: basic, _clientSecret: clientSecret }),
    _clientId: clientId,
    oidcClient: clientId,
    redirectUrl: client.redirectUris[0] ?? '',
    obParticipantId: '0015800001041OIDC',
    'request-scope': 'openid accounts',
  }).map(([key, value]) => ({ key, value, type: ['basicToken', '_clientSecret'].includes(key) ? 'secret' : 'default', enabled: true }));
  reply(ctx, 200, { name: `oidc-bank ${clientId}`, values });
}
