// The rules obflow's runner (src/run/) and every workspace's own runner (templates/workspace/run.mjs, report.mjs)
// share, typed once here: what a secret is and how it is redacted, which step an item belongs to, the accounts a run
// read and their labels, and what newman's request/assertion/script events say. tools/build.js copies this module's
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
 *  the skip, if the item sent no request and nothing of it failed (a script that threw, or a failed check of its
 *  pre-request script that stopped a bailing run, is a failure, not a skip). */
export function createSkipWatch(): {
  begin(item: string): void;
  console(messages: readonly unknown[]): void;
  request(): void;
  failed(): void;
  end(): { item: string; reason: string } | undefined;
} {
  let item: string | undefined;
  let requested = false;
  let threw = false;
  let reason: string | undefined;
  return {
    begin(name) {
      item = name;
      requested = false;
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
    failed() {
      threw = true;
    },
    end() {
      const skipped = item !== undefined && !requested && !threw ? { item, reason: reason ?? UNKNOWN_SKIP_REASON } : undefined;
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
