// The rules obflow's runner (src/run/) and every workspace's own runner (templates/workspace/run.mjs, report.mjs)
// share, typed once here: what a secret is and how it is redacted, which step an item belongs to, the accounts a run
// read and their labels, what newman's request/assertion/script events say, and whose side a failed run's first
// failing check puts the fault on, with what to do (obflow's CLI and report page, and a workspace's report and run.sh). tools/build.js copies this module's
// compiled output to templates/workspace/rules.mjs (generated, not checked in), which report.mjs imports and every
// workspace ships. So this file imports nothing: its output must stand alone on plain Node.js.

/** Keys whose values are secrets even if a layer forgot to say so (client secret, Basic credentials, tokens, codes). */
export const SECRET_KEY_PATTERN =
  /(secret|password|passphrase|private_?key|signing_?key|client_?assertion|basicToken|access_?token|refresh_?token|id_?token|auth_?code|^code$)/i;

export const REDACTED = '[redacted]';

/** The secrets redaction looks for, longest first (a secret containing another is replaced whole), of any length. */
export function orderSecrets(secrets: Iterable<string>): string[] {
  return [...secrets].filter((secret) => secret !== '').sort((a, b) => b.length - a.length);
}

/** Replaces every secret (ordered by orderSecrets) with `[redacted]` — whole values of any length (a short PIN or
 *  password is a secret too), and also fragments of ≥ 8 token
 *  characters cut from one (chai quotes long values truncated, `'eyJhbGciOi…'`, which still leaks a prefix). */
export function redactOrdered(text: string, ordered: readonly string[]): string {
  let out = text;
  for (const secret of ordered) {
    // A short secret (a PIN, "0") is replaced where it stands alone, not inside other tokens: `200`, a path or an id
    // would otherwise lose their digits in every report.
    out =
      secret.length >= SHORT_SECRET
        ? out.split(secret).join(REDACTED)
        : out.replace(new RegExp(`(?<![${TOKEN_CHARS}])${escapeRegExp(secret)}(?![${TOKEN_CHARS}])`, 'g'), REDACTED);
  }
  return out.replace(/[A-Za-z0-9._~+/=-]{8,}/g, (run) => (ordered.some((secret) => secret.includes(run)) ? REDACTED : run));
}

/** Below this length a secret is redacted only as a whole token. */
const SHORT_SECRET = 8;
/** The characters of a token (base64url, JWT, URL-safe ids): a short secret beside one of them is part of something else. */
const TOKEN_CHARS = 'A-Za-z0-9._~+/=-';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function redactSecrets(text: string, secrets: Iterable<string>): string {
  return redactOrdered(text, orderSecrets(secrets));
}

/** The `Authorization: Basic` value of client_secret_basic (RFC 6749 §2.3.1: id and secret form-urlencoded, joined by
 *  a colon, base64). obflow's environment stage and every workspace's runner and guide compute it here; btoa and
 *  encodeURIComponent exist on Node.js and in a browser alike, and the encoded pair is ASCII, as btoa needs. */
export function basicCredentials(clientId: string, clientSecret: string): string {
  return btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`);
}

/** A step as newman runs it: its name and its collection (or the folder of a whole-flow collection). */
export interface StepCollection {
  name: string;
  collection: object;
}

/** Item name → step name (item names are unique across the flow: setNextRequest relies on it). newman's `request`
 *  event hands out a copy of the item without its parent, so the folder cannot be asked directly. */
export function itemSteps(steps: readonly StepCollection[]): Map<string, string> {
  const map = new Map<string, string>();
  const visit = (items: unknown, step: string): void => {
    if (!Array.isArray(items)) return;
    for (const item of items as { name?: unknown; item?: unknown }[]) {
      if (typeof item.name === 'string') map.set(item.name, step);
      visit(item.item, step);
    }
  };
  for (const step of steps) visit((step.collection as { item?: unknown }).item, step.name);
  return map;
}

/** The steps of a whole-flow collection (one folder per step), as itemSteps takes them. */
export function foldersOf(collection: { item?: readonly { name: string }[] }): StepCollection[] {
  return (collection.item ?? []).map((folder) => ({ name: folder.name, collection: folder }));
}

/** The AIS v3.1 accounts list, whose body names the accounts (GET /aisp/accounts, query or not). */
export const ACCOUNTS_LIST = /\/aisp\/accounts(\?|$)/;

/** A transaction page of one account: GET …/aisp/accounts/{AccountId}/transactions (any query: the pages after the
 *  first). A run over two API versions keeps these bodies to add the transactions up (src/run/reporters/compare-versions.ts). */
export const TRANSACTION_PAGE = /\/aisp\/accounts\/[^/?#]+\/transactions(?:[?#]|$)/;

/** AccountId → label from an accounts list body (AIS v3.1 OBReadAccount6): Nickname, else AccountSubType/AccountType. */
export function accountLabels(body: unknown): [string, string][] {
  const accounts = (body as { Data?: { Account?: unknown } } | undefined)?.Data?.Account;
  if (!Array.isArray(accounts)) return [];
  return (accounts as Record<string, unknown>[]).flatMap((account) => {
    const label = [account.Nickname, account.AccountSubType, account.AccountType].find((part) => typeof part === 'string');
    return typeof account.AccountId === 'string' && typeof label === 'string' ? [[account.AccountId, label] as [string, string]] : [];
  });
}

/** One account the run read: the report's row and the summary's line. */
export interface AccountRow {
  accountId: string;
  /** Nickname, else AccountSubType/AccountType from GET /accounts (AIS v3.1 OBAccount6). */
  label?: string;
  /** InterimAvailable (AIS v3.1 OBReadBalance1). */
  balance?: { amount: string; currency: string; creditDebitIndicator: string };
  transactions?: number;
  /** The transactions step did not finish (a failed page, the paging guard, a stop): `transactions` counts the pages
   *  read, not the account's all (src/run/summary.ts). */
  transactionsPartial?: boolean;
}

/** The accounts the run read, from the non-secret state variables the steps write (docs/collections.md:
 *  `account_ids`, `interim_balances`, `transaction_counts`) and the accounts list's labels. */
export function accountsFromValues(
  values: readonly { key: string; value: string; type?: string }[],
  labels: ReadonlyMap<string, string> = new Map(),
): AccountRow[] {
  const get = (key: string): unknown => {
    const entry = values.find((candidate) => candidate.key === key && candidate.type !== 'secret');
    if (entry === undefined || entry.value === '') return undefined;
    try {
      return JSON.parse(entry.value);
    } catch {
      return undefined;
    }
  };
  const ids = get('account_ids');
  const balances = (get('interim_balances') ?? {}) as Record<
    string,
    { Amount?: unknown; Currency?: unknown; CreditDebitIndicator?: unknown }
  >;
  const counts = (get('transaction_counts') ?? {}) as Record<string, unknown>;
  return (Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : []).map((accountId) => {
    const balance = balances[accountId];
    const count = counts[accountId];
    const label = labels.get(accountId);
    return {
      accountId,
      ...(label !== undefined ? { label } : {}),
      ...(balance !== undefined && typeof balance.Amount === 'string'
        ? {
            balance: {
              amount: balance.Amount,
              currency: String(balance.Currency ?? ''),
              creditDebitIndicator: String(balance.CreditDebitIndicator ?? ''),
            },
          }
        : {}),
      ...(typeof count === 'number' ? { transactions: count } : {}),
    };
  });
}

/** The payment a run made (the payments family's state variables, docs/collections.md "Payments"): its ids, amount,
 *  payee, statuses and the signatures made and verified. */
export interface PaymentRow {
  consentId?: string;
  consentStatus?: string;
  paymentId?: string;
  status?: string;
  amount?: string;
  currency?: string;
  /** The payee's name (CreditorAccount.Name). */
  creditor?: string;
  reference?: string;
  /** Whether the consent's funds confirmation said the funds were available. */
  fundsAvailable?: boolean;
  /** Requests obflow signed, bank signatures it verified. */
  signatures?: { signed: number; verified: number };
}

/** The funds checks a run made (the funds family's state variables). */
export interface FundsRow {
  consentId?: string;
  consentStatus?: string;
  checks: { amount: string; currency: string; available: boolean }[];
}

/** A non-secret variable's text ('' and absent alike: undefined). */
function plainValue(values: readonly { key: string; value: string; type?: string }[], key: string): string | undefined {
  const entry = values.find((candidate) => candidate.key === key && candidate.type !== 'secret');
  return entry === undefined || entry.value === '' ? undefined : entry.value;
}

function parsedValue(values: readonly { key: string; value: string; type?: string }[], key: string): unknown {
  const text = plainValue(values, key);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The payment the run made, from the state the payments steps write; undefined when it made none. `current(key)`
 *  says whether the value is this run's (its writing step ran): another is left out. */
export function paymentFromValues(
  values: readonly { key: string; value: string; type?: string }[],
  current: (key: string) => boolean = () => true,
): PaymentRow | undefined {
  const get = (key: string) => (current(key) ? plainValue(values, key) : undefined);
  if (get('payment_consent_status') === undefined && get('payment_id') === undefined) return undefined;
  const consentId = get('consent_id');
  const consentStatus = get('payment_consent_status');
  const paymentId = get('payment_id');
  const status = get('payment_status');
  const amount = plainValue(values, 'payment_amount');
  const currency = plainValue(values, 'payment_currency');
  const creditor = plainValue(values, 'payment_creditor_name');
  const reference = plainValue(values, 'payment_reference');
  const funds = get('payment_funds_available');
  const counts = current('signatures_checked')
    ? (parsedValue(values, 'signatures_checked') as { signed?: unknown; verified?: unknown } | undefined)
    : undefined;
  return {
    ...(consentId !== undefined ? { consentId } : {}),
    ...(consentStatus !== undefined ? { consentStatus } : {}),
    ...(paymentId !== undefined ? { paymentId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(amount !== undefined ? { amount } : {}),
    ...(currency !== undefined ? { currency } : {}),
    ...(creditor !== undefined ? { creditor } : {}),
    ...(reference !== undefined ? { reference } : {}),
    ...(funds === 'true' || funds === 'false' ? { fundsAvailable: funds === 'true' } : {}),
    ...(counts !== undefined && typeof counts.signed === 'number' && typeof counts.verified === 'number'
      ? { signatures: { signed: counts.signed, verified: counts.verified } }
      : {}),
  };
}

/** The funds checks the run made, from the state the funds steps write; undefined when it made none. */
export function fundsFromValues(
  values: readonly { key: string; value: string; type?: string }[],
  current: (key: string) => boolean = () => true,
): FundsRow | undefined {
  const consentStatus = current('funds_consent_status') ? plainValue(values, 'funds_consent_status') : undefined;
  const checks = current('funds_checks') ? parsedValue(values, 'funds_checks') : undefined;
  if (consentStatus === undefined && checks === undefined) return undefined;
  const consentId = plainValue(values, 'consent_id');
  return {
    ...(consentId !== undefined ? { consentId } : {}),
    ...(consentStatus !== undefined ? { consentStatus } : {}),
    checks: (Array.isArray(checks) ? checks : []).flatMap((check: { Amount?: unknown; Currency?: unknown; FundsAvailable?: unknown }) =>
      typeof check.Amount === 'string' && typeof check.FundsAvailable === 'boolean'
        ? [{ amount: check.Amount, currency: String(check.Currency ?? ''), available: check.FundsAvailable }]
        : [],
    ),
  };
}

/** One limit of a VRP mandate and what the run did against it (docs/collections.md, "The mandate walk"). */
export interface VrpLimitUse {
  /** `MaximumIndividualAmount` or `PeriodicLimits[i]`. */
  member: string;
  /** "at most 10.00 GBP a payment", "25.00 GBP a Day (Consent)". */
  label: string;
  /** For a periodic limit: what the payments made add up to (they all fall in the run's period); for the individual
   *  maximum: the largest payment made. */
  usedMinor: number;
  limitMinor: number;
  currency: string;
  /** The payments refused at this limit, each with what had been made before it. */
  refused: { amount: string; beforeMinor: number; errorCode: string }[];
  /** The payments the plan expected refused here that the bank made: the limit not held (its check failed). */
  madePast: { amount: string; beforeMinor: number }[];
}

/** The VRP mandate a run used (the vrp family's state variables: vrp_control_parameters, the consent's limits as the
 *  bank created them; vrp_walk, each payment made or refused in order). */
export interface VrpMandateRow {
  consentId?: string;
  consentStatus?: string;
  vrpType?: string;
  made: number;
  madeMinor: number;
  refused: number;
  /** A refusal the plan expected that the bank did not make (a payment made past a limit). */
  madePastLimit: number;
  limits: VrpLimitUse[];
}

/** An OBActiveCurrencyAndAmount text in hundredths (the config holds VRP amounts to two decimals). */
function minorUnits(amount: unknown): number {
  if (typeof amount !== 'string' || !/^\d+(\.\d+)?$/.test(amount)) return 0;
  const [units = '0', decimals = ''] = amount.split('.');
  return Number(units) * 100 + Number(decimals.padEnd(2, '0').slice(0, 2));
}

/** Hundredths as an amount's text: `2500` → `25.00`. */
export function money(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

interface VrpWalkEntry {
  Amount?: unknown;
  Outcome?: unknown;
  Limit?: unknown;
  ErrorCode?: unknown;
}
interface VrpControl {
  VRPType?: unknown;
  MaximumIndividualAmount?: { Amount?: unknown; Currency?: unknown };
  PeriodicLimits?: { Amount?: unknown; Currency?: unknown; PeriodType?: unknown; PeriodAlignment?: unknown }[];
}

/** The mandate the run used, when it reached the VRP consent; `current(key)` says whether a value is this run's. */
export function vrpMandateFromValues(
  values: readonly { key: string; value: string; type?: string }[],
  current: (key: string) => boolean = () => true,
): VrpMandateRow | undefined {
  const control = (current('vrp_control_parameters') ? parsedValue(values, 'vrp_control_parameters') : undefined) as VrpControl | undefined;
  if (control === undefined || control === null || typeof control !== 'object') return undefined;
  const walked = current('vrp_walk') ? parsedValue(values, 'vrp_walk') : undefined;
  const walk = (Array.isArray(walked) ? walked : []) as VrpWalkEntry[];
  const currency = String(control.MaximumIndividualAmount?.Currency ?? '');
  const madeAmounts: number[] = [];
  const refusals = new Map<string, VrpLimitUse['refused']>();
  const pastLimits = new Map<string, VrpLimitUse['madePast']>();
  let refused = 0;
  let madePastLimit = 0;
  const sum = () => madeAmounts.reduce((total, amount) => total + amount, 0);
  for (const entry of walk) {
    const limit = typeof entry.Limit === 'string' ? entry.Limit : undefined;
    if (entry.Outcome === 'made') {
      // A payment the plan sent to be refused at a limit, and the bank made: that limit did not hold.
      if (limit !== undefined) {
        madePastLimit++;
        pastLimits.set(limit, [...(pastLimits.get(limit) ?? []), { amount: String(entry.Amount), beforeMinor: sum() }]);
      }
      madeAmounts.push(minorUnits(entry.Amount));
    } else if (limit !== undefined) {
      refused++;
      const refusal = { amount: String(entry.Amount), beforeMinor: sum(), errorCode: String(entry.ErrorCode ?? '') };
      refusals.set(limit, [...(refusals.get(limit) ?? []), refusal]);
    }
  }
  const limits: VrpLimitUse[] = [
    {
      member: 'MaximumIndividualAmount',
      label: `at most ${String(control.MaximumIndividualAmount?.Amount ?? '')} ${currency} a payment`,
      usedMinor: Math.max(0, ...madeAmounts),
      limitMinor: minorUnits(control.MaximumIndividualAmount?.Amount),
      currency,
      refused: refusals.get('MaximumIndividualAmount') ?? [],
      madePast: pastLimits.get('MaximumIndividualAmount') ?? [],
    },
    ...(control.PeriodicLimits ?? []).map((limit, index): VrpLimitUse => {
      const member = `PeriodicLimits[${index}]`;
      return {
        member,
        label: `${String(limit.Amount ?? '')} ${String(limit.Currency ?? '')} a ${String(limit.PeriodType ?? '')} (${String(limit.PeriodAlignment ?? '')})`,
        usedMinor: sum(),
        limitMinor: minorUnits(limit.Amount),
        currency: String(limit.Currency ?? ''),
        refused: refusals.get(member) ?? [],
        madePast: pastLimits.get(member) ?? [],
      };
    }),
  ];
  const consentId = plainValue(values, 'consent_id');
  const consentStatus = current('vrp_consent_status') ? plainValue(values, 'vrp_consent_status') : undefined;
  const types = Array.isArray(control.VRPType) ? control.VRPType.map(String).join(', ') : undefined;
  return {
    ...(consentId !== undefined ? { consentId } : {}),
    ...(consentStatus !== undefined ? { consentStatus } : {}),
    ...(types !== undefined ? { vrpType: types } : {}),
    made: madeAmounts.length,
    madeMinor: sum(),
    refused,
    madePastLimit,
    limits,
  };
}

/** One limit as a person reads it: `largest payment 10.00 GBP; 10.01 GBP refused after 10.00 (U014)`, or
 *  `25.00 of 25.00 GBP used; …`; a payment the bank made past the limit is said so. */
export function vrpLimitText(limit: VrpLimitUse): string {
  const used =
    limit.member === 'MaximumIndividualAmount'
      ? `largest payment ${money(limit.usedMinor)} ${limit.currency}`
      : `${money(limit.usedMinor)} of ${money(limit.limitMinor)} ${limit.currency} used`;
  const hits = [
    ...limit.refused.map(
      (refusal) => `${refusal.amount} ${limit.currency} refused after ${money(refusal.beforeMinor)} (${refusal.errorCode})`,
    ),
    ...limit.madePast.map(
      (past) => `${past.amount} ${limit.currency} MADE PAST THE LIMIT after ${money(past.beforeMinor)} (the bank did not refuse it)`,
    ),
  ];
  return [used, ...hits].join('; ');
}

/** The mandate's lines (the terminal, a workspace's run, the merged page): the mandate, then one line per limit. */
export function vrpMandateLines(row: VrpMandateRow): string[] {
  const currency = row.limits[0]?.currency ?? '';
  const head =
    `VRP mandate${row.consentId !== undefined ? ` ${row.consentId}` : ''}${row.vrpType !== undefined ? ` (${row.vrpType})` : ''}` +
    `${row.consentStatus !== undefined ? `, consent ${row.consentStatus}` : ''}: ${row.made} payment${row.made === 1 ? '' : 's'} made ` +
    `(${money(row.madeMinor)} ${currency}), ${row.refused} refused at a limit` +
    `${row.madePastLimit > 0 ? `, ${row.madePastLimit} made past a limit` : ''}`;
  return [head, ...row.limits.map((limit) => `  ${limit.member}, ${limit.label}: ${vrpLimitText(limit)}`)];
}

/** What a run paid and checked, one entry per family that has one (the payment, the funds checks, the VRP mandate):
 *  every page (report.html, obflow-run.json, JUnit, the merged page, a workspace's report) carries these entries. */
export interface RunOutcomes {
  payment?: PaymentRow;
  funds?: FundsRow;
  vrp?: VrpMandateRow;
}

/** The run's outcomes from its state; `current(key)` says whether a value is this run's (its writing step ran). */
export function outcomesFromValues(
  values: readonly { key: string; value: string; type?: string }[],
  current: (key: string) => boolean = () => true,
): RunOutcomes {
  const payment = paymentFromValues(values, current);
  const funds = fundsFromValues(values, current);
  const vrp = vrpMandateFromValues(values, current);
  return {
    ...(payment !== undefined ? { payment } : {}),
    ...(funds !== undefined ? { funds } : {}),
    ...(vrp !== undefined ? { vrp } : {}),
  };
}

/** The entries alone, from a model that carries them among others (a summary, a report). */
export function outcomesOf(model: RunOutcomes): RunOutcomes {
  return {
    ...(model.payment !== undefined ? { payment: model.payment } : {}),
    ...(model.funds !== undefined ? { funds: model.funds } : {}),
    ...(model.vrp !== undefined ? { vrp: model.vrp } : {}),
  };
}

/** Whether an outcome says a rule of the bank did not hold: a VRP payment made past a limit fails the page whatever
 *  the checks said (the limit's own check fails too; the page does not depend on it). */
export function outcomesBroken(model: RunOutcomes): boolean {
  return (model.vrp?.madePastLimit ?? 0) > 0;
}

/** newman's `request` event → the request and its answer: status and time, or the error of a request that got none. */
export function requestRecord(
  error: { message?: string; code?: unknown } | null | undefined,
  args: {
    item?: { name?: string } | undefined;
    request?: { method?: string; url?: { toString(): string } | undefined } | undefined;
    response?: { code?: number; responseTime?: number } | undefined;
  },
): { item: string; method: string; url: string; status?: number; ms?: number; error?: { message: string; code?: string } } {
  const response = error === null || error === undefined ? args.response : undefined;
  return {
    item: args.item?.name ?? '',
    method: args.request?.method ?? 'GET',
    url: args.request?.url?.toString() ?? '',
    ...(response?.code !== undefined ? { status: response.code } : {}),
    ...(typeof response?.responseTime === 'number' ? { ms: response.responseTime } : {}),
    ...(error !== null && error !== undefined
      ? { error: { message: error.message ?? String(error), ...(typeof error.code === 'string' ? { code: error.code } : {}) } }
      : {}),
  };
}

/** newman's `assertion` event → what was checked and how it went (a skipped test is neither passed nor failed). */
export function assertionRecord(
  error: { message?: string } | null | undefined,
  args: { item?: { name?: string } | undefined; assertion?: string | undefined; skipped?: boolean | undefined },
): { item: string; name: string; status: 'passed' | 'failed' | 'skipped'; message?: string } {
  const failed = error !== null && error !== undefined;
  const status = args.skipped === true ? 'skipped' : failed ? 'failed' : 'passed';
  return {
    item: args.item?.name ?? '',
    name: args.assertion ?? '',
    status,
    ...(status === 'failed' ? { message: error?.message ?? '' } : {}),
  };
}

/** newman's `script` event → the error a script threw outside pm.test, if it threw (postman-runtime's own
 *  `AssertionFailure`, which restates the failed tests of a bailing run, is not one). */
export function scriptErrorRecord(
  error: { message?: string; name?: string } | null | undefined,
  args: { item?: { name?: string } | undefined; event?: { listen?: string | undefined } | undefined },
): { item: string; listen: string; name: string; message: string } | undefined {
  if (error === null || error === undefined || error.name === 'AssertionFailure') return undefined;
  const listen = args.event?.listen ?? '';
  return { item: args.item?.name ?? '', listen, name: error.name ?? `${listen} script`, message: error.message ?? '' };
}

/** What a pre-request script logs just before `pm.execution.skipRequest()`: `skipped: <why, and what would make it
 *  run>` (templates/scripts/refresh.prerequest.js). newman 6.2 emits no event for a skipped request (postman-runtime
 *  hands `{ isSkipped: true }` to its item callback; newman's `item` event keeps only the item), so a runner sees a skip
 *  as an item that ended without a request, and reads its reason from this line of the console. */
export const SKIP_NOTE = /^skipped: ([\s\S]+)$/;

/** The reason of a skip whose script gave none. */
export const UNKNOWN_SKIP_REASON = 'its pre-request script skipped it (pm.execution.skipRequest) without saying why';

/** Watches one newman run's items for skipped requests (fed newman's events in order): `end()` at the item's end returns
 *  the skip, if the item sent no request (or sent one whose answer its script noted as a skip, checking nothing) and
 *  nothing of it failed (a script that threw, or a failed check of its
 *  pre-request script that stopped a bailing run, is a failure, not a skip). */
export function createSkipWatch(): {
  begin(item: string): void;
  console(messages: readonly unknown[]): void;
  request(): void;
  asserted(): void;
  failed(): void;
  end(): { item: string; reason: string } | undefined;
} {
  let item: string | undefined;
  let requested = false;
  let asserted = false;
  let threw = false;
  let reason: string | undefined;
  return {
    begin(name) {
      item = name;
      requested = false;
      asserted = false;
      threw = false;
      reason = undefined;
    },
    console(messages) {
      const match = SKIP_NOTE.exec(messages.map(String).join(' '));
      if (match !== null && item !== undefined) reason = (match[1] ?? '').trim();
    },
    request() {
      requested = true;
    },
    asserted() {
      asserted = true;
    },
    failed() {
      threw = true;
    },
    end() {
      // Also an item whose answer says the bank does not offer what it asks (a 404 where an endpoint is optional): its
      // test script notes `skipped: <reason>` and checks nothing (src/generate/model.ts RequestItemSpec.skipOn).
      const notOffered = requested && !asserted && reason !== undefined;
      const skipped =
        item !== undefined && (!requested || notOffered) && !threw ? { item, reason: reason ?? UNKNOWN_SKIP_REASON } : undefined;
      item = undefined;
      return skipped;
    },
  };
}

// One Node.js warning code silenced while a dependency loads: newman 6.2.2 reads every property of node:fs as it loads,
// fs.F_OK included, which Node.js 24 deprecates at run time (DEP0176) — a line the person cannot act on, in obflow's
// runner (src/run/newman-adapter.ts) and in a workspace's (run.mjs) alike. Others pass through, and the real
// process.emitWarning is back once the load settles.
/** Runs `load` with Node.js warnings of one code dropped (others pass through), for as long as it takes. */
export async function withoutWarning<T>(code: string, load: () => Promise<T>): Promise<T> {
  const emitWarning = process.emitWarning;
  const filtered = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const [typeOrOptions, codeArgument] = rest;
    const warningCode =
      typeof typeOrOptions === 'object' && typeOrOptions !== null ? (typeOrOptions as { code?: unknown }).code : codeArgument;
    if (warningCode === code) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  process.emitWarning = filtered as typeof process.emitWarning;
  try {
    return await load();
  } finally {
    if (process.emitWarning === filtered) process.emitWarning = emitWarning;
  }
}

// ---- Whose side a failure is on, and what to do (src/run/verdict.ts for obflow's run, failureOfSteps for a
// workspace's). The same rows for both; only the words for who acts differ (a workspace's reader has no obflow). ----

/** `answer`: the bank's answer broke a rule of the standard. `refused`: the bank refused the request with an error
 *  answer (the standard lets it: the fault is on the client's side, its request, registration or settings).
 *  `setting`: the request went out with a variable no setting filled. */
export type FailureSide = 'answer' | 'refused' | 'setting';

/** Who reads the hint: obflow's user (who runs obflow's commands), or a workspace's (who runs run.sh or Postman, and
 *  asks whoever made the workspace for what only obflow can change). */
export type FailureAudience = 'obflow' | 'workspace';

/** A failed check: its name and message. */
export interface CheckFailure {
  test: string;
  message: string;
}

/** The side of a request's first failing check, with what the bank's answer said. */
export interface FailureSideInfo {
  side: FailureSide;
  /** The status of the request's last answer, when it got one. */
  status?: number;
  /** What the bank's error answer says (`invalid_client (…)`, `UK.OBIE.Field.Missing (…)`), when it refused. */
  bankError?: string;
  /** The variables the request went out without (`{{name}}` left in its URL), when a setting is missing. */
  missing?: string[];
}

/** The status check's message when the answer has another status (templates/scripts/check-status.test.js with
 *  lib-error-answer.js): `the bank answered 401 invalid_client (…), not 200`. */
const REFUSAL = /^the bank answered (\d{3})(?: (.*))?, not \d{3}$/s;

/** The authorization endpoint's error redirect (RFC 6749 §4.1.2.1) as templates/scripts/psu-consent.test.js reports
 *  it: the bank refusing the request in a 302/303, not in a 4xx. */
const ERROR_REDIRECT_TEST = 'no error in the redirect';
const ERROR_REDIRECT = /^(.*?): expected '[^']*' to equal undefined$/s;

/** `{{name}}` that newman left in a URL: no variable of that name had a value. */
const UNRESOLVED = /\{\{([^{}]+)\}\}/g;

/** Pure: the side of a request's first failing check, from the check, the answer's status and the request's URL. */
export function failureSideOf(first: CheckFailure, status: number | undefined, url: string | undefined): FailureSideInfo {
  const missing = [...new Set([...(url ?? '').matchAll(UNRESOLVED)].map((match) => match[1] ?? ''))];
  const withStatus = status !== undefined ? { status } : {};
  if (missing.length > 0) return { ...withStatus, side: 'setting', missing };
  if (first.test === ERROR_REDIRECT_TEST) {
    const bankError = ERROR_REDIRECT.exec(first.message)?.[1]?.trim();
    return { ...withStatus, side: 'refused', ...(bankError !== undefined && bankError !== '' ? { bankError } : {}) };
  }
  const refusal = REFUSAL.exec(first.message);
  const answered = refusal !== null ? Number(refusal[1]) : status;
  // 4xx: the standard's way to refuse a request (RFC 9110 §15.5); a 5xx or an unexpected 2xx/3xx is the bank's own.
  if (answered !== undefined && answered >= 400 && answered < 500) {
    const bankError = refusal?.[2]?.trim();
    return { status: answered, side: 'refused', ...(bankError !== undefined && bankError !== '' ? { bankError } : {}) };
  }
  return { ...withStatus, side: 'answer' };
}

/** What a refusal's error code says to look at (RFC 6749 §5.2, RFC 6750 §3.1, OBIE error codes). `hint` is obflow's
 *  user's; a workspace's reader gets `workspace`, else "whoever made this workspace: <hint>". */
const REFUSAL_HINTS: readonly { error: RegExp; hint: string; workspace?: string }[] = [
  {
    error: /^invalid_client\b/,
    hint:
      'the bank did not accept the client authentication obflow sent as registered (client_secret_basic: the id and secret; private_key_jwt: ' +
      "the assertion signed with the statement's signing key and kid; tls_client_auth: the transport certificate's subject DN): " +
      'register again (`obflow register --force`) and run `obflow environment`',
    workspace:
      'the bank did not accept the client authentication (client_secret_basic: the client id and secret; private_key_jwt: the assertion ' +
      'signed with the signing key; tls_client_auth: the transport certificate): check the client secret and the key files given for ' +
      'this run (run.sh asks for them; in Postman, the environment and the certificate settings); if they are right, whoever made ' +
      'this workspace registers the client again (`obflow register --force`, `obflow environment`, then `obflow workspace`)',
  },
  {
    error: /^invalid_grant\b/,
    hint: 'the code or refresh token was refused (expired, used once already, or issued for another redirect URI or client): run the flow again from the consent',
    workspace:
      'the code or refresh token was refused (expired, used once already, or issued for another redirect URI or client): run the whole flow again',
  },
  {
    error: /^(unauthorized_client|invalid_scope|unsupported_grant_type|unsupported_response_type)\b/,
    hint: "the client is not registered for this grant, scope or response type: compare the registration with the bank's discovery document",
  },
  // The standard's answers to what obflow sent, each naming the setting to change.
  {
    error: /response_mode/,
    hint:
      'the bank allows flow.responseType "code" only with JARM (FAPI 1 Advanced §5.2.2-2): set flow.jarm to true and run ' +
      '`obflow generate` again, or set flow.responseType to "code id_token"',
  },
  {
    error: /code.?challenge|code_verifier|PKCE/i,
    hint: 'the bank requires PKCE (RFC 7636; FAPI 2.0 asks S256): obflow sends it with pushed authorization requests, so set flow.par to "always" and run `obflow generate` again',
  },
  {
    error: /Pushed Authorization Request|pushed authorization request|require_pushed_authorization_requests/i,
    hint: 'the bank requires pushed authorization requests (RFC 9126): set flow.par to "always" and run `obflow generate` again',
  },
  {
    error: /invalid_token\b/,
    hint: 'the access token was refused (expired, or bound to another client or certificate): run the steps before this one again',
    workspace: 'the access token was refused (expired, or bound to another client or certificate): run the whole flow again',
  },
  {
    error: /^UK\.OBIE\./,
    hint: "the bank names the field or header it refused (OBIE error codes): fix obflow's request or the setting behind it",
    workspace: 'the bank names the field or header it refused (OBIE error codes): tell whoever made this workspace, with this report',
  },
];

/** The words for who sent the request and who changes it, per audience. */
const AUDIENCE = {
  obflow: {
    request: "obflow's request",
    side: "obflow's side",
    sideWhat: "obflow's side (its request, the registration or a setting)",
    specific: (row: { hint: string; workspace?: string }) => row.hint,
    setting: 'set it in the environment (or the config) and run again',
  },
  workspace: {
    request: 'the request',
    side: "the client's side",
    sideWhat: "the client's side (the request, the registration, or a setting this workspace was made with)",
    specific: (row: { hint: string; workspace?: string }) =>
      row.workspace ?? `whoever made this workspace: ${row.hint}, then make it again (\`obflow workspace\`)`,
    setting: "whoever made this workspace sets it (`obflow environment`, then `obflow workspace`), or set it in Postman's environment",
  },
} as const;

/** What to do about a failed run, naming the side of its first failing request ("Details: <report>" at the end). */
export function failureHintOf(
  request: (FailureSideInfo & { first: CheckFailure }) | undefined,
  report: string,
  audience: FailureAudience = 'obflow',
): string {
  const words = AUDIENCE[audience];
  if (request === undefined) return `Read ${report}.`;
  if (request.side === 'setting')
    return `A setting is missing: the request went out with ${(request.missing ?? []).map((name) => `{{${name}}}`).join(', ')} unresolved; ${words.setting}.`;
  if (request.side === 'refused') {
    const row = REFUSAL_HINTS.find((candidate) => candidate.error.test(request.bankError ?? ''));
    const specific = row === undefined ? undefined : words.specific(row);
    return (
      `The bank refused ${words.request}${request.bankError !== undefined ? ` (${request.bankError})` : ''}, as the standard lets it: ` +
      `the fault is on ${words.sideWhat}${specific !== undefined ? `; ${specific}` : ''}. ` +
      `Details: ${report}.`
    );
  }
  const tellBank = audience === 'workspace' ? ' Tell the bank, with the time of the run and the failing check.' : '';
  return `The bank's answer broke a rule of the standard (${request.first.test}): the fault is on the bank's side.${tellBank} Details: ${report}.`;
}

/** The plain first sentence of a failed run: where it stopped, whose side. */
export function failureSentenceOf(where: string, request: FailureSideInfo | undefined, audience: FailureAudience = 'obflow'): string {
  const words = AUDIENCE[audience];
  if (request === undefined) return `The run stopped at ${where}: a check failed.`;
  if (request.side === 'setting') return `The run stopped at ${where}: a setting is missing, so the request went out incomplete.`;
  if (request.side === 'refused')
    return `The run stopped at ${where}: the bank refused ${words.request}${request.status !== undefined ? ` (HTTP ${request.status})` : ''}; the fault is on ${words.side}.`;
  return `The run stopped at ${where}: the bank's answer broke a rule of the standard; the fault is on the bank's side.`;
}

/** One line for a failing request: where, the first failing check, how many more. */
export function failureLineOf(request: { step: string; item: string; first: CheckFailure; more: number }): string {
  const more = request.more > 0 ? ` (+${request.more} more failing check${request.more === 1 ? '' : 's'})` : '';
  return `✗ ${request.step} › ${request.item}: ${request.first.test}${request.first.message !== '' ? ` — ${request.first.message}` : ''}${more}`;
}

/** A step of a report model (templates/workspace/report.mjs): what failureOfSteps reads. */
export interface ReportedStep {
  name: string;
  status: string;
  requests: readonly {
    item: string;
    method: string;
    origin: string;
    path: string;
    status?: number;
    error?: string;
    assertions: readonly { name: string; passed: boolean; message?: string }[];
  }[];
}

/** A failed run for people: the plain sentence, what to do, and the technical lines to fold under them. */
export interface FailureText {
  step: string;
  sentence: string;
  hint: string;
  detail: string[];
}

/**
 * The failure of a run as a report model lists it (a workspace's run: its steps with their requests and checks,
 * already redacted), in the words of `audience`: the first failed step, its first request without an answer (the bank
 * not reached) or with a failed check (whose side, by failureSideOf). Undefined when no step failed.
 */
export function failureOfSteps(
  steps: readonly ReportedStep[],
  report: string,
  audience: FailureAudience = 'workspace',
): FailureText | undefined {
  const step = steps.find((candidate) => candidate.status === 'failed');
  if (step === undefined) return undefined;
  const unanswered = step.requests.find((request) => request.method !== '' && request.error !== undefined);
  if (unanswered !== undefined) {
    return {
      step: step.name,
      sentence: `The run stopped at step ${step.name}: the bank at ${unanswered.origin} did not answer (${unanswered.error ?? ''}), so nothing was checked there.`,
      hint:
        `Check that this machine reaches ${unanswered.origin} (network, VPN or proxy) and that the bank is up; a failed secure ` +
        "connection means the bank's CA or the transport certificate and key given for this run are not the ones registered.",
      detail: [`${unanswered.item}: ${unanswered.error ?? ''}`],
    };
  }
  const failing = step.requests.flatMap((request) => {
    const failed = request.assertions.filter((assertion) => !assertion.passed);
    const first = failed[0];
    if (first === undefined) return [];
    const check = { test: first.name, message: first.message ?? '' };
    return [
      {
        step: step.name,
        item: request.item,
        first: check,
        more: failed.length - 1,
        ...failureSideOf(check, request.status, `${request.origin}${request.path}`),
      },
    ];
  });
  const request = failing[0];
  const where = request !== undefined ? `step ${step.name} (${request.item})` : `step ${step.name}`;
  return {
    step: step.name,
    sentence: failureSentenceOf(where, request, audience),
    hint: failureHintOf(request, report, audience),
    detail: failing.map(failureLineOf),
  };
}

/**
 * What a run's step count covers, the same words wherever a count is printed (obflow's summary line, a workspace
 * run's last line): the collection's steps — the whole-flow collection's folders, what Postman and newman run — and
 * obflow's local steps between them (browser or manual consent, the id_token checks), which only obflow's runner has.
 * So `demo` (14: 12 + two id_token checks), a `code` flow (13: one) and a workspace (12) say why they differ.
 */
export function stepCountNote(collectionSteps: number, localSteps: readonly string[]): string {
  const collection = `${collectionSteps} collection step${collectionSteps === 1 ? '' : 's'}`;
  if (localSteps.length === 0) return `${collection}, no local steps`;
  return `${collection} + ${localSteps.length} local step${localSteps.length === 1 ? '' : 's'} of obflow: ${localSteps.join(', ')}`;
}
