// The test bank's resource side: the environment helper (docs/bank-interface.md §4.2) and a minimal AIS v3.1
// (account-access consents, accounts, balances, paged transactions; 404 with no body for every other path, OBIE
// Read/Write Data API Profile "HTTP Status Codes"). Tokens are looked up in oidc-provider itself and must be bound to
// the caller's transport certificate (RFC 8705 §3).

import { createHash, type X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { KoaContext, Middleware, Provider, Token } from 'oidc-provider';

import { subjectDnOf } from './registration.js';

export const PSU = 'psu-alex';
const HELPER_PATH = '/sandbox-helper/v1.0/postman/environment';
const AISP = '/open-banking/v3.1/aisp';
const FINANCIAL_ID = '0015800001041OIDC';
const PAGE_SIZE = 100;
const BOOKED_AT = '2026-01-02T10:00:00+00:00';

/** The PSU's accounts and how many transactions each has (the first spans three pages). */
const ACCOUNTS = [
  { id: 'acc-current', name: 'Alex Current', transactions: 250 },
  { id: 'acc-savings', name: 'Alex Savings', transactions: 3 },
];

interface Consent {
  ConsentId: string;
  clientId: string;
  Status: 'AwaitingAuthorisation' | 'Authorised';
  Permissions: string[];
  CreationDateTime: string;
  StatusUpdateDateTime: string;
  grantId?: string;
}

/** ISO 8601 with the zone, whole seconds (AIS v3.1 ISODateTime). */
const stamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** Account-access consents in memory (AIS v3.1 "Account Access Consents" states). */
export class Consents {
  readonly #byId = new Map<string, Consent>();

  create(clientId: string, permissions: string[]): Consent {
    const now = stamp();
    const consent: Consent = {
      ConsentId: `oidc-aac-${this.#byId.size + 1}`,
      clientId,
      Status: 'AwaitingAuthorisation',
      Permissions: permissions,
      CreationDateTime: now,
      StatusUpdateDateTime: now,
    };
    this.#byId.set(consent.ConsentId, consent);
    return consent;
  }
  own(id: string, clientId: string): Consent | undefined {
    const consent = this.#byId.get(id);
    return consent?.clientId === clientId ? consent : undefined;
  }
  authorisable(id: string, clientId: string): boolean {
    return this.own(id, clientId)?.Status === 'AwaitingAuthorisation';
  }
  authorise(id: string, grantId: string): void {
    const consent = this.#byId.get(id);
    if (consent !== undefined) Object.assign(consent, { Status: 'Authorised', StatusUpdateDateTime: stamp(), grantId });
  }
  byGrant(grantId: string | undefined): Consent | undefined {
    return [...this.#byId.values()].find((consent) => grantId !== undefined && consent.grantId === grantId);
  }
}

interface ResourceOptions {
  provider: Provider;
  consents: Consents;
  url: string;
  peerCertificate(ctx: KoaContext): X509Certificate | undefined;
}

function empty(ctx: KoaContext, status: number): void {
  ctx.body = null; // an explicit null body: Koa sends no body (not its status text)
  ctx.status = status;
}

async function jsonBody(ctx: KoaContext): Promise<{ Data?: { Permissions?: unknown }; Risk?: unknown } | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Data?: { Permissions?: unknown }; Risk?: unknown };
  } catch {
    return undefined;
  }
}

function transaction(accountId: string, index: number): Record<string, unknown> {
  return {
    AccountId: accountId,
    TransactionId: `${accountId}-${String(index).padStart(4, '0')}`,
    CreditDebitIndicator: index % 4 === 0 ? 'Credit' : 'Debit',
    Status: 'Booked',
    BookingDateTime: BOOKED_AT,
    Amount: { Amount: `${(index % 50) + 1}.00`, Currency: 'GBP' },
  };
}

export function resourceMiddleware(options: ResourceOptions): Middleware {
  const { provider, consents, url } = options;

  /** The token of `Authorization: Bearer`, live, with scope accounts and bound to this connection's certificate. */
  async function bearer(ctx: KoaContext, model: 'AccessToken' | 'ClientCredentials'): Promise<Token | undefined> {
    const value = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    const token = value === undefined ? undefined : await provider[model].find(value);
    if (token === undefined || token.isExpired || !(token.scope ?? '').split(' ').includes('accounts')) return undefined;
    // RFC 8705 §3.1: x5t#S256 is the base64url SHA-256 of the DER certificate the token was issued to.
    const der = options.peerCertificate(ctx)?.raw;
    return der !== undefined && token['x5t#S256'] === createHash('sha256').update(der).digest('base64url') ? token : undefined;
  }

  const single = (self: string) => ({ Links: { Self: `${url}${AISP}${self}` }, Meta: { TotalPages: 1 } });
  const account = (a: (typeof ACCOUNTS)[number]) => ({
    AccountId: a.id,
    Currency: 'GBP',
    AccountType: 'Personal',
    AccountSubType: 'CurrentAccount',
    Nickname: a.name,
    Account: [{ SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: `40400${a.id.length}1234567`, Name: a.name }],
  });
  const balance = (a: (typeof ACCOUNTS)[number]) => ({
    AccountId: a.id,
    Amount: { Amount: `${a.transactions * 10}.00`, Currency: 'GBP' },
    CreditDebitIndicator: 'Credit',
    Type: 'InterimAvailable',
    DateTime: BOOKED_AT,
  });
  const consentBody = (consent: Consent) => {
    const { ConsentId, Status, Permissions, CreationDateTime, StatusUpdateDateTime } = consent;
    const data = { ConsentId, Status, Permissions, CreationDateTime, StatusUpdateDateTime };
    return { Data: data, Risk: {}, ...single(`/account-access-consents/${ConsentId}`) };
  };

  async function consentRoute(ctx: KoaContext, rest: string): Promise<void> {
    const token = await bearer(ctx, 'ClientCredentials');
    if (token === undefined) return empty(ctx, 401);
    if (rest === '' && ctx.method === 'POST') {
      const body = await jsonBody(ctx);
      const permissions = body?.Data?.Permissions;
      if (!Array.isArray(permissions) || permissions.length === 0 || typeof body?.Risk !== 'object') return empty(ctx, 400);
      ctx.status = 201;
      ctx.body = consentBody(consents.create(token.clientId, permissions as string[]));
      return;
    }
    const consent = ctx.method === 'GET' ? consents.own(decodeURIComponent(rest.slice(1)), token.clientId) : undefined;
    if (consent === undefined) return empty(ctx, 404);
    ctx.body = consentBody(consent);
  }

  async function accountRoute(ctx: KoaContext, path: string): Promise<void> {
    const token = await bearer(ctx, 'AccessToken');
    const consent = consents.byGrant(token?.grantId);
    if (token === undefined || consent?.Status !== 'Authorised' || consent.clientId !== token.clientId) return empty(ctx, 401);
    const [, id, leaf] = /^\/accounts(?:\/([^/]+)(?:\/(balances|transactions))?)?$/.exec(path) ?? [];
    const found = ACCOUNTS.find((a) => a.id === id);
    if (path === '/accounts') ctx.body = { Data: { Account: ACCOUNTS.map(account) }, ...single(path) };
    else if (path === '/balances') ctx.body = { Data: { Balance: ACCOUNTS.map(balance) }, ...single(path) };
    else if (found === undefined) return empty(ctx, 404);
    else if (leaf === undefined) ctx.body = { Data: { Account: [account(found)] }, ...single(path) };
    else if (leaf === 'balances') ctx.body = { Data: { Balance: [balance(found)] }, ...single(path) };
    else {
      // AIS v3.1 "Pagination": absolute Links on the same path, Next absent on the last page, Meta.TotalPages.
      const pages = Math.max(1, Math.ceil(found.transactions / PAGE_SIZE));
      const page = Math.min(Math.max(1, Number(ctx.query.page ?? '1') || 1), pages);
      const link = (n: number) => `${url}${AISP}${path}?page=${n}`;
      const indexes = Array.from({ length: found.transactions }, (_, i) => i).slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
      ctx.body = {
        Data: { Transaction: indexes.map((i) => transaction(found.id, i)) },
        Links: {
          Self: link(page),
          First: link(1),
          Last: link(pages),
          ...(page > 1 ? { Prev: link(page - 1) } : {}),
          ...(page < pages ? { Next: link(page + 1) } : {}),
        },
        Meta: { TotalPages: pages },
      };
    }
  }

  return async (ctx, next) => {
    if (ctx.path === HELPER_PATH) return environmentHelper(ctx, options);
    if (!ctx.path.startsWith(`${AISP}/`)) return next();
    // FAPI 1 Baseline §6.2.1-11: the resource server echoes the interaction id.
    const interaction = ctx.get('x-fapi-interaction-id');
    if (interaction !== '') ctx.set('x-fapi-interaction-id', interaction);
    const path = ctx.path.slice(AISP.length);
    const consentPath = /^\/account-access-consents(\/[^/]+)?$/.exec(path);
    if (consentPath) return consentRoute(ctx, consentPath[1] ?? '');
    if (ctx.method === 'GET' && /^\/(accounts(\/[^/]+(\/(balances|transactions))?)?|balances)$/.test(path)) return accountRoute(ctx, path);
    return empty(ctx, 404);
  };
}

/** §4.2 names the client by `client_id` only; this helper asks for the credential the token endpoint would: Basic for a
 *  client with a secret, the registered subject DN of the connection's certificate for tls_client_auth (RFC 8705
 *  §2.1.2), and for private_key_jwt (a GET carries no assertion) the directory certificate every route here demands:
 *  that client's file holds nothing secret. */
async function environmentHelper(ctx: KoaContext, options: ResourceOptions): Promise<void> {
  const { provider, url } = options;
  const client = await provider.Client.find(String(ctx.query.client_id ?? ''));
  if (client === undefined) return empty(ctx, 404);
  const { token_endpoint_auth_method: method, tls_client_auth_subject_dn: dn } = client.metadata();
  const certificate = options.peerCertificate(ctx);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret ?? '')}`).toString('base64')}`;
  const authenticated =
    method === 'tls_client_auth'
      ? certificate !== undefined && subjectDnOf(certificate) === dn
      : method === 'private_key_jwt' || (client.clientSecret !== undefined && ctx.get('authorization') === basic);
  if (!authenticated || !(ctx.req.socket as TLSSocket).authorized) return empty(ctx, 401);
  const secret = client.clientSecret === undefined ? [] : [basic.slice('Basic '.length), client.clientSecret];
  const value = (key: string, v: string, type = 'default') => ({ key, value: v, type, enabled: true });
  ctx.body = {
    name: `oidc-bank ${client.clientId}`,
    values: [
      value('rs', url),
      value('issuer', url),
      value('configEndpoint', `${url}/.well-known/openid-configuration`),
      value('authEndpoint', `${url}/auth`),
      value('tokenEndpoint', `${url}/token`),
      ...secret.map((v, i) => value(i === 0 ? 'basicToken' : '_clientSecret', v, 'secret')),
      value('_clientId', client.clientId),
      value('oidcClient', client.clientId),
      value('redirectUrl', client.redirectUris[0] ?? ''),
      value('obParticipantId', FINANCIAL_ID),
      value('request-scope', 'openid accounts'),
    ],
  };
}
