// The bank emulator's resource server: UK Open Banking Read/Write API v3.1 and v4.0 side by side (each under its own
// base path, as served: SandboxOptions.apiVersions), dispatched by API family (families.ts, as served:
// SandboxOptions.apis). The Account and Transaction API is here — account-access-consents (client credentials) and
// the account reads (authorization code) over the one seeded bank, with each version's headers, status codes, payload
// shapes and OBErrorResponse1 bodies (docs/sandbox-ais.md); payments (pisp.ts), funds confirmation (cbpii.ts) and VRP
// (vrp.ts) run through operation.ts (docs/sandbox-payments.md, docs/sandbox-vrp.md).

import type { IncomingMessage, ServerResponse } from 'node:http';

import { BANK_FINANCIAL_ID, ConsentStateError, consentKindOf } from '../contracts.js';
import type {
  AccessTokenInfo,
  AisApiVersion,
  AnyConsentRecord,
  ApiFamilyName,
  ConsentRecord,
  RequestContext,
  RequestTarget,
  SandboxHandler,
} from '../contracts.js';
import type { Bank, BankAccount } from '../data/bank.js';
import { isWireError, ObieError } from '../http/errors.js';
import { BodyTooLargeError, readBody } from '../http/io.js';
import { keepAtMost } from '../kept.js';
import { tolerates } from '../policy.js';
import { usableConsent } from '../store/consents.js';
import { isoSeconds } from '../time.js';
import { validateConsentRequest } from './consent-request.js';
import { acceptsJson, isJsonContentType, requestOrigin, sendEmpty, sendJsonBody, sendJsonText } from './http.js';
import { PAGE_SIZE, availableRange, pageLinks, parseBookingFilter, selectTransactions } from './paging.js';
import { AisRefusal, toV4Error } from './refusals.js';
import { renderAccount, renderBalance, renderTransaction } from './render.js';
import { accountV4, balanceV4, consentDataV4, transactionV4 } from './render-v4.js';
import { FAMILIES, isUnderVersion, matchResource } from '../families.js';
import type { FamilyMatch } from '../families.js';
import { FUNDS_HANDLERS } from './cbpii.js';
import { bearerToken, runOperation } from './operation.js';
import type { OperationHandler, OperationRequest } from './operation.js';
import { PAYMENT_HANDLERS } from './pisp.js';
import { AIS_BASE_PATHS, FUNDS_OPERATIONS, PAYMENT_OPERATIONS, VRP_OPERATIONS } from './routes.js';
import type { FundsRoute, Operation, PaymentRoute, Route, VrpRoute } from './routes.js';
import { VRP_HANDLERS } from './vrp.js';
import type { ResourceDeps } from './deps.js';

// RFC 7231 IMF-fixdate as the v3.1.1 x-fapi-customer-last-logged-time parameter pattern writes it.
const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|UTC)$/;

/**
 * The request headers each version checks (besides Authorization): v3.1.1 requires x-fapi-financial-id and has
 * x-fapi-customer-last-logged-time; v4.0 has neither, and x-fapi-auth-date in its place (same RFC 7231 pattern).
 */
const REQUEST_HEADERS: Readonly<Record<AisApiVersion, { financialId: boolean; authDate: string }>> = {
  '3.1': { financialId: true, authDate: 'x-fapi-customer-last-logged-time' },
  '4.0': { financialId: false, authDate: 'x-fapi-auth-date' },
};

type Shape = (v31: Record<string, unknown>) => Record<string, unknown>;

/** The payload shapes of each version, from the v3.1 rendering (render.ts) through the v4.0 tables (render-v4.ts). */
const SHAPES: Readonly<Record<AisApiVersion, { account: Shape; balance: Shape; transaction: Shape }>> = {
  '3.1': { account: (v31) => v31, balance: (v31) => v31, transaction: (v31) => v31 },
  '4.0': { account: accountV4, balance: balanceV4, transaction: transactionV4 },
};

/** The version's shapes, with SandboxOptions.versionDrift applied on v4.0 (a test seam: one value differs). */
function shapesOf(version: AisApiVersion, deps: ResourceDeps): (typeof SHAPES)[AisApiVersion] {
  const shapes = SHAPES[version];
  if (version !== '4.0' || deps.versionDrift === undefined) return shapes;
  if (deps.versionDrift === 'account-nickname')
    return { ...shapes, account: (v31) => ({ ...shapes.account(v31), Nickname: `${String(v31.Nickname)} (v4.0)` }) };
  if (deps.versionDrift === 'transaction-amount') return { ...shapes, transaction: onePennyMore(shapes.transaction) };
  return { ...shapes, balance: onePennyMore(shapes.balance) };
}

/** `shape` with its Amount.Amount one penny more (the amount drifts of versionDrift). */
function onePennyMore(shape: Shape): Shape {
  return (v31) => {
    const body = shape(v31);
    const amount = body.Amount as { Amount: string; Currency: string };
    return { ...body, Amount: { ...amount, Amount: (Number(amount.Amount) + 0.01).toFixed(2) } };
  };
}

interface Call {
  version: AisApiVersion;
  req: IncomingMessage;
  res: ServerResponse;
  ctx: RequestContext;
  url: RequestTarget;
  origin: string;
  bodies: RenderedBodies;
}

/** Bodies of the account list and of one account kept per answer (at most this many per consent record). */
const BODIES_PER_CONSENT = 16;

/**
 * The JSON text of GET /accounts and GET /accounts/{AccountId} answers, kept per consent record: a keep-alive client
 * reading with one token asks for the same unchanged list on every request, and rendering and stringifying it was a
 * large share of the emulator's own work per request (docs/notes.md, the emulator's profile). Keyed by the record object
 * itself, which the store (store/db.ts) shares between reads and replaces whenever the consent may have changed:
 * another process's commit (data_version clears the store's cache), this process's writes (a revocation, an
 * authorisation), eviction. So a changed consent is a new key and its old bodies go with the old record. Within a record
 * the key names everything else the body depends on: the origin and the path (the Self link; the path names the version
 * and the route, so the version's shapes). The token's profile changes no body, only the checks. Those checks (token
 * and its expiry by the emulator's clock, client, certificate binding, profile, consent status and expiry, version,
 * permissions) run before the cache is consulted, on every request. Transactions (paging) are not kept.
 */
type RenderedBodies = WeakMap<ConsentRecord, Map<string, string>>;

function renderedBody(call: AisCall, consent: ConsentRecord, render: () => unknown): string {
  const key = `${call.origin}${call.url.pathname}`;
  let bodies = call.bodies.get(consent);
  if (bodies === undefined) {
    bodies = new Map();
    call.bodies.set(consent, bodies);
  }
  let text = bodies.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(render())}\n`;
    keepAtMost(bodies, BODIES_PER_CONSENT, key, text);
  }
  return text;
}

/** Answers every request on the resource origin that startSandbox does not route elsewhere. */
export function createResourceHandler(deps: ResourceDeps): SandboxHandler {
  const bodies: RenderedBodies = new WeakMap();
  return async (req, res, ctx) => {
    const url = ctx.url;
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchResource(method, url.pathname, deps.apis, deps.apiVersions);
    // OBIE Read/Write Data API Profile, "HTTP Status Codes": "If an ASPSP has not implemented an API endpoint, it must
    // respond with a 404 (Not Found) for requests to that URL." An endpoint of the standard this bank does not offer is
    // answered exactly as a path of no standard: before authentication, and without a body (the OpenAPI files' 404Error
    // response defines none). docs/sandbox-ais.md, "Endpoints this bank does not implement".
    if (match.outcome === 'not-found' || match.outcome === 'not-implemented') {
      sendEmpty(res, ctx, 404);
      return;
    }
    if (match.outcome === 'method-not-allowed') {
      sendEmpty(res, ctx, 405, { Allow: match.allow.join(', ') });
      return;
    }
    const origin = requestOrigin(req);
    // The families beyond AIS run through one request path (operation.ts), each operation one handler of its table.
    if (match.family !== 'accounts') {
      // `as never`: TypeScript does not tie the row picked by match.family to the match's own route type.
      await OPERATION_FAMILIES[match.family](match as never, { req, res, ctx, origin }, deps);
      return;
    }
    // OBIE R/W "HTTP Headers": a TPP asking for anything but JSON in UTF-8 gets 406. Refusals are ObieErrors,
    // answered by index.ts (serve).
    const call: Call = { version: match.version, req, res, ctx, url, origin, bodies };
    if (match.version === '4.0') {
      await answerV4(() => handle(call, match.route, deps));
      return;
    }
    await handle(call, match.route, deps);
  };
}

async function handle(call: Call, route: Route, deps: ResourceDeps): Promise<void> {
  if (!acceptsJson(call.req)) throw new ObieError(406, 'Accept must allow application/json');
  const kind = route.kind.startsWith('consent-') ? 'client_credentials' : 'authorization_code';
  const token = await authenticate(call, deps, kind);
  // Spelled out rather than spread: a spread of the call made a new hidden class per request (the emulator's profile, docs/notes.md).
  const { version, req, res, ctx, url, origin, bodies } = call;
  await dispatch({ version, req, res, ctx, url, origin, bodies, route, token }, deps);
}

/**
 * Runs a v4.0 request, its refusals translated to v4.0 (refusals.ts toV4Error): ErrorCodes from
 * OBExternalStatusReason1Code in the category of their status. A body too large is 400 U010 (v4.0 defines no 413), an
 * emulator failure 500 U000 (the warning still names it).
 */
async function answerV4(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ObieError) throw toV4Error(error);
    if (isWireError(error)) throw error;
    if (error instanceof BodyTooLargeError)
      throw toV4Error(
        new ObieError(400, error.message, [{ ErrorCode: 'UK.OBIE.Resource.InvalidFormat', Message: error.message }], {
          Connection: 'close',
        }),
      );
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' || (error as Error | undefined)?.message === 'aborted')
      throw error;
    process.emitWarning(`obflow sandbox: AIS v4.0: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw toV4Error(ObieError.of(500, 'UK.OBIE.UnexpectedError', 'the sandbox failed to process this request'));
  }
}

/** Whether `pathname` is on a served family's v4.0 base path (the resource origin's mutual-TLS refusal has no body
 *  there: the v4.0 files' 401Error has no content). */
export function isV4Path(pathname: string, apis: readonly ApiFamilyName[], versions: readonly AisApiVersion[]): boolean {
  return isUnderVersion(pathname, '4.0', apis, versions);
}

/**
 * Bearer token (RFC 6750) → AccessTokenInfo. 401 with no body for a missing, unknown, expired or wrong-kind token
 * and for a token presented with another certificate than the one it is bound to (RFC 8705 §3; tolerance
 * access-token-unbound). x-fapi-financial-id (AIS v3.1.1 marks it required) must name this bank (tolerance
 * financial-id-optional).
 */
async function authenticate(call: Call, deps: ResourceDeps, kind: 'client_credentials' | 'authorization_code'): Promise<AccessTokenInfo> {
  const { req, ctx } = call;
  const { token } = await bearerToken(req, ctx, kind, deps);
  const may = (name: Parameters<typeof tolerates>[1]): boolean => tolerates(token.profile, name);
  if (!token.scopes.includes('accounts')) {
    throw new AisRefusal('scope-missing', call.version, 'The access token was not issued for the accounts scope');
  }
  const headers = REQUEST_HEADERS[call.version];
  const financialId = req.headers['x-fapi-financial-id'];
  if (headers.financialId && !may('financial-id-optional') && (financialId === undefined || financialId === '')) {
    throw new ObieError(400, 'x-fapi-financial-id is required', [
      { ErrorCode: 'UK.OBIE.Header.Missing', Message: 'x-fapi-financial-id header is required', Path: 'x-fapi-financial-id' },
    ]);
  }
  if (headers.financialId && !may('financial-id-optional') && financialId !== BANK_FINANCIAL_ID) {
    throw new ObieError(400, 'x-fapi-financial-id names another ASPSP', [
      { ErrorCode: 'UK.OBIE.Header.Invalid', Message: `x-fapi-financial-id must be ${BANK_FINANCIAL_ID}`, Path: 'x-fapi-financial-id' },
    ]);
  }
  const authDate = req.headers[headers.authDate];
  if (!may('last-logged-time-format') && typeof authDate === 'string' && !HTTP_DATE.test(authDate)) {
    throw new ObieError(400, `${headers.authDate} is malformed`, [
      {
        ErrorCode: 'UK.OBIE.Header.Invalid',
        Message: `${headers.authDate} must be an RFC 7231 date, e.g. Sun, 10 Sep 2017 19:43:31 UTC`,
        Path: headers.authDate,
      },
    ]);
  }
  return token;
}

/** An authenticated AIS request: the call with its route and the token it presented. Every handler takes
 *  `(call, deps)`, as the authorisation side's do (auth/deps.ts). */
interface AisCall<R extends Route = Route> extends Call {
  route: R;
  token: AccessTokenInfo;
}

async function dispatch(call: AisCall, deps: ResourceDeps): Promise<void> {
  // `call.route` is `route`: each branch passes the call on typed by its narrowed route (no copy of the call).
  const { route } = call;
  switch (route.kind) {
    case 'consent-create':
      return createConsent(call as AisCall<typeof route>, deps);
    case 'consent-get':
      return getConsent(call as AisCall<typeof route>, deps);
    case 'consent-delete':
      return deleteConsent(call as AisCall<typeof route>, deps);
    default:
      return read(call as AisCall<typeof route>, deps);
  }
}

// ---- account-access-consents (AIS v3.1 "Account Access Consents") --------------------------------------------------

const notFound = (what: string): ObieError =>
  new ObieError(400, `${what} not found`, [{ ErrorCode: 'UK.OBIE.Resource.NotFound', Message: `${what} does not exist` }]);

function consentBody(call: Call, consent: ConsentRecord): Record<string, unknown> {
  const data: Record<string, unknown> = {
    ConsentId: consent.ConsentId,
    CreationDateTime: consent.CreationDateTime,
    Status: consent.Status,
    StatusUpdateDateTime: consent.StatusUpdateDateTime,
    Permissions: consent.Permissions,
  };
  if (consent.ExpirationDateTime !== undefined) data.ExpirationDateTime = consent.ExpirationDateTime;
  if (consent.TransactionFromDateTime !== undefined) data.TransactionFromDateTime = consent.TransactionFromDateTime;
  if (consent.TransactionToDateTime !== undefined) data.TransactionToDateTime = consent.TransactionToDateTime;
  const self = `${call.origin}${AIS_BASE_PATHS[call.version]}/account-access-consents/${encodeURIComponent(consent.ConsentId)}`;
  return {
    Data: call.version === '4.0' ? consentDataV4(data, consent, call.ctx.now()) : data,
    Risk: {},
    Links: { Self: self },
    Meta: { TotalPages: 1 },
  };
}

async function createConsent(call: AisCall<Extract<Route, { kind: 'consent-create' }>>, deps: ResourceDeps): Promise<void> {
  const { token } = call;
  if (!isJsonContentType(call.req)) throw new ObieError(415, 'Content-Type must be application/json');
  const text = await readBody(call.req);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ObieError(400, 'The request body is not JSON', [
      { ErrorCode: 'UK.OBIE.Resource.InvalidFormat', Message: 'The request body is not well-formed JSON' },
    ]);
  }
  const now = call.ctx.now();
  const result = validateConsentRequest(body, now, token.profile);
  if (!result.ok) throw new ObieError(400, 'The account access consent request is invalid', result.errors);
  const stamp = isoSeconds(now);
  const record: ConsentRecord = {
    ConsentId: `aac-${deps.newId()}`,
    clientId: token.clientId,
    Status: 'AwaitingAuthorisation',
    Permissions: result.request.Permissions,
    CreationDateTime: stamp,
    StatusUpdateDateTime: stamp,
    // Only v4.0 consents say so: a v3.1 record is stored exactly as before v4.0 was served.
    ...(call.version === '4.0' ? { apiVersion: '4.0' as const } : {}),
  };
  if (result.request.ExpirationDateTime !== undefined) record.ExpirationDateTime = result.request.ExpirationDateTime;
  if (result.request.TransactionFromDateTime !== undefined) record.TransactionFromDateTime = result.request.TransactionFromDateTime;
  if (result.request.TransactionToDateTime !== undefined) record.TransactionToDateTime = result.request.TransactionToDateTime;
  await deps.consents.create(record);
  sendJsonBody(call.res, call.ctx, 201, consentBody(call, record));
}

/** The consent when it is an account-access consent: a consent of another kind (a payment's, a funds confirmation's)
 *  is no consent of the AIS API. */
function accountAccess(consent: AnyConsentRecord | undefined): ConsentRecord | undefined {
  return consent !== undefined && consentKindOf(consent) === 'account-access' ? (consent as ConsentRecord) : undefined;
}

/**
 * Whether a consent created on one version may be used on `version` (docs/sandbox-ais.md, "Consents across versions"):
 * OBL Operational Guidelines v4.0, "Implementation of a new Open Banking Standard" (Backward and Forward
 * Compatibility; Change Log v3.1.11 to v4.0): an AISP's long-lived consent given on an older version keeps working
 * on the newer one; one created on a newer version is not for an older version's endpoints. So a v3.1 consent
 * serves v4.0, and a v4.0 consent does not serve v3.1 unless the profile tolerates consent-newer-version.
 */
function servesVersion(consent: ConsentRecord, version: AisApiVersion, token: AccessTokenInfo): boolean {
  const created = consent.apiVersion ?? '3.1';
  return created <= version || tolerates(token.profile, 'consent-newer-version');
}

/** The consent as this client may see it: another client's consent, one it deleted, or one of a newer version on an
 *  older one does not exist for it. */
async function ownConsent(call: AisCall, deps: ResourceDeps, consentId: string): Promise<ConsentRecord> {
  const { token } = call;
  const consent = accountAccess(await deps.consents.get(consentId));
  // DELETE removes the resource (AIS v3.1 "DELETE /account-access-consents/{ConsentId}"); the store keeps it as
  // Revoked only so tokens issued under it stop working. Status Revoked in the standard means revoked at the ASPSP.
  if (!consent || consent.clientId !== token.clientId || consent.Status === 'Revoked') throw notFound('ConsentId');
  if (!servesVersion(consent, call.version, token))
    throw new ObieError(400, 'ConsentId not found on this version', [
      {
        ErrorCode: 'UK.OBIE.Resource.NotFound',
        Message: `The consent was created on v${consent.apiVersion ?? '3.1'} and cannot be used on v${call.version}`,
      },
    ]);
  return consent;
}

async function getConsent(call: AisCall<Extract<Route, { kind: 'consent-get' }>>, deps: ResourceDeps): Promise<void> {
  sendJsonBody(call.res, call.ctx, 200, consentBody(call, await ownConsent(call, deps, call.route.consentId)));
}

async function deleteConsent(call: AisCall<Extract<Route, { kind: 'consent-delete' }>>, deps: ResourceDeps): Promise<void> {
  const { consentId } = call.route;
  await ownConsent(call, deps, consentId);
  try {
    await deps.consents.revoke(consentId, call.ctx.now());
  } catch (error) {
    if (error instanceof ConsentStateError) {
      throw new ObieError(400, `the consent is ${error.status}`, [
        { ErrorCode: 'UK.OBIE.Resource.InvalidConsentStatus', Message: `A ${error.status} consent cannot be deleted` },
      ]);
    }
    throw error;
  }
  sendEmpty(call.res, call.ctx, 204);
}

// ---- reads (AIS v3.1 Accounts, Balances, Transactions) --------------------------------------------------------------

async function read(call: AisCall<Exclude<Route, { kind: `consent-${string}` }>>, deps: ResourceDeps): Promise<void> {
  const { route, token } = call;
  const { bank } = deps;
  const now = call.ctx.now();
  const consent = token.consentId === undefined ? undefined : accountAccess(await deps.consents.get(token.consentId));
  const { version } = call;
  if (!consent || consent.clientId !== token.clientId)
    throw new AisRefusal('consent-not-authorised', version, 'The token is not linked to a consent of this client');
  const use = usableConsent(consent, now);
  if (!use.usable && use.reason === 'status')
    throw new AisRefusal('consent-not-authorised', version, `The consent is ${consent.Status === 'Revoked' ? 'revoked' : consent.Status}`);
  if (!use.usable) throw new AisRefusal('consent-expired', version, 'The consent has expired');
  if (!servesVersion(consent, version, token))
    throw new AisRefusal(
      'consent-other-version',
      version,
      `The consent was created on v${consent.apiVersion ?? '3.1'}, not for v${version}`,
    );
  const has = (permission: string): boolean => consent.Permissions.includes(permission);
  const need = (...permissions: string[]): void => {
    if (!permissions.some(has))
      throw new AisRefusal('permission-missing', version, `The consent does not grant ${permissions.join(' or ')}`);
  };
  const shape = shapesOf(version, deps);
  // Only accounts the PSU selected and still holds (a joint account is visible to each of its holders).
  const consented = bank
    .accounts()
    .filter(
      (account) =>
        consent.accountIds?.includes(account.accountId) && consent.psuId !== undefined && account.holders.includes(consent.psuId),
    );
  const pick = (accountId: string): BankAccount => {
    const account = consented.find((candidate) => candidate.accountId === accountId);
    // AIS v3.1: an account id outside the consent is a bad request, not a missing endpoint.
    if (!account) throw notFound('AccountId');
    return account;
  };
  const self = `${call.origin}${call.url.pathname}`;
  const single = { Links: { Self: self }, Meta: { TotalPages: 1 } };

  switch (route.kind) {
    case 'accounts':
      need('ReadAccountsBasic', 'ReadAccountsDetail');
      sendJsonText(
        call.res,
        call.ctx,
        200,
        renderedBody(call, consent, () => ({
          Data: { Account: consented.map((account) => shape.account(renderAccount(account, has('ReadAccountsDetail')))) },
          ...single,
        })),
      );
      return;
    case 'account': {
      need('ReadAccountsBasic', 'ReadAccountsDetail');
      const account = pick(route.accountId);
      sendJsonText(
        call.res,
        call.ctx,
        200,
        renderedBody(call, consent, () => ({
          Data: { Account: [shape.account(renderAccount(account, has('ReadAccountsDetail')))] },
          ...single,
        })),
      );
      return;
    }
    case 'balances':
      need('ReadBalances');
      sendJsonBody(call.res, call.ctx, 200, {
        Data: {
          Balance: consented.map((account) => shape.balance(renderBalance(account, bank.ledger(account.accountId).availableMinor, now))),
        },
        ...single,
      });
      return;
    case 'account-balances': {
      need('ReadBalances');
      const account = pick(route.accountId);
      sendJsonBody(call.res, call.ctx, 200, {
        Data: { Balance: [shape.balance(renderBalance(account, bank.ledger(account.accountId).availableMinor, now))] },
        ...single,
      });
      return;
    }
    case 'account-transactions': {
      need('ReadTransactionsBasic', 'ReadTransactionsDetail');
      const account = pick(route.accountId);
      transactions(bank, call, consent, account, self, shape);
      return;
    }
  }
}

function transactions(
  bank: Bank,
  call: Call,
  consent: ConsentRecord,
  account: BankAccount,
  base: string,
  shape: (typeof SHAPES)[AisApiVersion],
): void {
  const query = call.url.searchParams;
  const filters: [string, string][] = [];
  const bound = (name: 'fromBookingDateTime' | 'toBookingDateTime'): number | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    const time = parseBookingFilter(value);
    if (time === undefined)
      throw new ObieError(400, `${name} is not a date-time`, [
        {
          ErrorCode: 'UK.OBIE.Field.InvalidDate',
          Message: `${name} must be an ISO 8601 date or date-time, e.g. 2017-04-05T10:43:07`,
          Path: name,
        },
      ]);
    filters.push([name, value]);
    return time;
  };
  const from = bound('fromBookingDateTime');
  const to = bound('toBookingDateTime');
  const pageText = query.get('page');
  let page = 1;
  if (pageText !== null) {
    if (!/^[1-9]\d{0,8}$/.test(pageText))
      throw new ObieError(400, 'page is not a page number', [
        { ErrorCode: 'UK.OBIE.Field.Invalid', Message: 'page must be a whole number from 1', Path: 'page' },
      ]);
    page = Number(pageText);
  }

  const has = (permission: string): boolean => consent.Permissions.includes(permission);
  const credits = has('ReadTransactionsCredits');
  const debits = has('ReadTransactionsDebits');
  const ledger = bank.ledger(account.accountId);
  // The consent's TransactionFrom/ToDateTime bound what is available at all; the query narrows within it.
  const windowFrom = consent.TransactionFromDateTime === undefined ? Number.NEGATIVE_INFINITY : Date.parse(consent.TransactionFromDateTime);
  const windowTo = consent.TransactionToDateTime === undefined ? Number.POSITIVE_INFINITY : Date.parse(consent.TransactionToDateTime);
  const available = selectTransactions(ledger, windowFrom, windowTo, credits, debits);
  const selection = selectTransactions(
    ledger,
    Math.max(windowFrom, from ?? Number.NEGATIVE_INFINITY),
    Math.min(windowTo, to ?? Number.POSITIVE_INFINITY),
    credits,
    debits,
  );
  const totalPages = Math.max(1, Math.ceil(selection.count / PAGE_SIZE));
  if (page > totalPages)
    throw new ObieError(400, 'page is past the last page', [
      { ErrorCode: 'UK.OBIE.Field.Invalid', Message: `page must be between 1 and ${totalPages}`, Path: 'page' },
    ]);

  const detail = has('ReadTransactionsDetail');
  const first = (page - 1) * PAGE_SIZE;
  const last = Math.min(selection.count, first + PAGE_SIZE);
  const items: Record<string, unknown>[] = [];
  for (let k = first; k < last; k++) items.push(shape.transaction(renderTransaction(account, selection.entry(k), detail)));
  sendJsonBody(call.res, call.ctx, 200, {
    Data: { Transaction: items },
    Links: pageLinks(base, filters, page, totalPages),
    Meta: { TotalPages: totalPages, ...availableRange(available) },
  });
}

type OperationFamilyName = Exclude<FamilyMatch & { outcome: 'route' }, { family: 'accounts' }>['family'];
type RequestBase = Pick<OperationRequest<unknown>, 'req' | 'res' | 'ctx' | 'origin'>;

/** How one family's routes reach their operations and handlers: one row per family the operation path serves. */
function served<R extends { kind: string }>(
  family: OperationFamilyName,
  operations: Readonly<Record<R['kind'], Operation>>,
  handlers: Readonly<Record<R['kind'], unknown>>,
) {
  return async (match: { version: AisApiVersion; route: R }, base: RequestBase, deps: ResourceDeps): Promise<void> => {
    const { route, version } = match;
    const kind = route.kind as R['kind'];
    const request = { family: FAMILIES[family], version, route, operation: operations[kind], ...base };
    await runOperation(request, handlers[kind] as OperationHandler<R>, deps);
  };
}

const OPERATION_FAMILIES = {
  payments: served<PaymentRoute>('payments', PAYMENT_OPERATIONS, PAYMENT_HANDLERS),
  funds: served<FundsRoute>('funds', FUNDS_OPERATIONS, FUNDS_HANDLERS),
  vrp: served<VrpRoute>('vrp', VRP_OPERATIONS, VRP_HANDLERS),
} satisfies Record<OperationFamilyName, unknown>;
