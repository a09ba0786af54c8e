// The difference between AIS v3.1 and v4.0 of one bank, on one page: per account, v3.1 beside v4.0 — the
// balance (amount, currency, credit/debit; type InterimAvailable ↔ ITAV), the number and signed sum of transactions,
// and the account's fields — with every difference the code mapping does not explain as a failed check that names the
// field and both values. Pure: two finished runs in, a comparison out (the CLI prints it; the later version's
// report.html shows it as its "v3.1 beside v4.0" section, src/run/reporters/html.ts).

import type { ApiFamilyName } from '../../api-families.js';
import { environmentValue, type PostmanEnvironment } from '../../environment/index.js';
import { API_VERSION_ROWS, type ApiVersion } from '../../generate/api-versions.js';
import { TRANSACTION_PAGE } from '../../runner-rules.js';

/**
 * What v4.0 renames and recodes (ISO 20022 code values instead of names): the field names and, per field, the values.
 * A difference these explain is no difference. The emulator's twin tables (src/sandbox/resource/v4-codes.ts) are tied
 * to these by test/unit/compare-versions.test.ts; both rooms meet only on the wire.
 */
export const V4_FIELD_NAMES: Readonly<Record<string, string>> = { AccountType: 'AccountCategory', AccountSubType: 'AccountTypeCode' };
export const V4_VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AccountType: { Business: 'Business', Personal: 'Personal' },
  AccountSubType: { CurrentAccount: 'CACC', Savings: 'SVGS', CreditCard: 'CARD', Loan: 'LOAN', Mortgage: 'MORT' },
  'Balance.Type': { InterimAvailable: 'ITAV' },
};

/** The two versions the comparison sets side by side, in its columns' order: its tables map the first's names and
 *  codes to the second's (a run over both compares them: src/pipeline/legs.ts). */
export const COMPARED_VERSIONS = { first: '3.1', second: '4.0' } as const satisfies Readonly<Record<'first' | 'second', ApiVersion>>;
/** The family whose legs it compares: it reads accounts, balances and transactions (src/api-families.ts). */
export const COMPARED_FAMILY: ApiFamilyName = 'accounts';

/** The balance type each version's collections accept (docs/collections.md, "Versions"): the version's row. */
const balanceType = (version: ApiVersion): string => API_VERSION_ROWS[version].balanceType;

/** One version's run, as the comparison reads it. */
export interface VersionLeg {
  version: ApiVersion;
  /** AccountId → the account as GET /accounts answered it. */
  accounts: Record<string, Record<string, unknown>>;
  /** AccountId → its balance (the balance steps' record). */
  balances: Record<string, { Amount: string; Currency: string; CreditDebitIndicator: string }>;
  /** AccountId → the number of transactions read. */
  transactions: Record<string, number>;
  /** AccountId → the signed sum of the transactions read (`-12.30 GBP`; one per currency, `; `-joined), from the
   *  transaction pages' bodies a run over two versions keeps (RunStepsInput.keepTransactionBodies); none otherwise. */
  sums: Record<string, string>;
}

export interface VersionDifference {
  account: string;
  field: string;
  v31: string;
  v40: string;
}

export interface AccountComparison {
  account: string;
  balance: { v31: string; v40: string };
  transactions: { v31: string; v40: string };
  /** The signed sum of the transactions read, per version. */
  sums: { v31: string; v40: string };
  /** The account's fields one version has and the other lacks (after the v4.0 renames): each also a difference. */
  oneSided: { v31: string[]; v40: string[] };
}

export interface VersionComparison {
  accounts: AccountComparison[];
  /** Differences the code mapping explains (AccountType Personal ↔ AccountCategory Personal, …). */
  explained: VersionDifference[];
  /** Differences it does not: each a failed check. */
  differences: VersionDifference[];
}

const ABSENT = '(absent)';

function json(text: string | undefined): unknown {
  try {
    return text === undefined || text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** Decimal places kept when adding amounts (OBActiveOrHistoricCurrencyAndAmount allows up to 5). */
const SCALE = 100_000n;

function minorUnits(amount: string): bigint | undefined {
  const match = /^(\d{1,13})(?:\.(\d{1,5}))?$/.exec(amount);
  if (match === null) return undefined;
  return BigInt(match[1] ?? '0') * SCALE + BigInt((match[2] ?? '').padEnd(5, '0'));
}

function decimal(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const fraction = (abs % SCALE)
    .toString()
    .padStart(5, '0')
    .replace(/0{1,3}$/, '');
  return `${sign}${abs / SCALE}.${fraction}`;
}

/**
 * AccountId → the signed sum (Credit +, Debit −) of the transactions in the run's kept transaction pages, per
 * currency; a transaction read twice (same TransactionId) counts once. Pure.
 */
export function transactionSums(
  executions: readonly { url: string; method: string; status?: number | undefined; json?: unknown }[],
): Record<string, string> {
  const totals = new Map<string, Map<string, bigint>>();
  const seen = new Set<string>();
  for (const execution of executions) {
    if (execution.method !== 'GET' || execution.status !== 200 || !TRANSACTION_PAGE.test(execution.url)) continue;
    const list = (execution.json as { Data?: { Transaction?: Record<string, unknown>[] } } | undefined)?.Data?.Transaction ?? [];
    for (const transaction of list) {
      const account = transaction.AccountId;
      const money = transaction.Amount as { Amount?: unknown; Currency?: unknown } | undefined;
      if (typeof account !== 'string' || typeof money?.Amount !== 'string' || typeof money.Currency !== 'string') continue;
      const id = typeof transaction.TransactionId === 'string' ? `${account}\u0000${transaction.TransactionId}` : undefined;
      if (id !== undefined && seen.has(id)) continue;
      if (id !== undefined) seen.add(id);
      const units = minorUnits(money.Amount);
      if (units === undefined) continue;
      const byCurrency = totals.get(account) ?? new Map<string, bigint>();
      totals.set(account, byCurrency);
      byCurrency.set(
        money.Currency,
        (byCurrency.get(money.Currency) ?? 0n) + (transaction.CreditDebitIndicator === 'Debit' ? -units : units),
      );
    }
  }
  const sums: Record<string, string> = {};
  for (const [account, byCurrency] of totals)
    sums[account] = [...byCurrency]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([currency, units]) => `${decimal(units)} ${currency}`)
      .join('; ');
  return sums;
}

/** A version's leg from its run's chained environment and the accounts body it read. */
export function legOfRun(
  version: ApiVersion,
  run: {
    environment: PostmanEnvironment;
    executions: readonly { url: string; method: string; status?: number | undefined; json?: unknown }[];
  },
): VersionLeg {
  const accounts: VersionLeg['accounts'] = {};
  const read = run.executions.find(
    (execution) => execution.method === 'GET' && /\/aisp\/accounts$/.test(execution.url.split('?')[0] ?? ''),
  );
  const list = (read?.json as { Data?: { Account?: Record<string, unknown>[] } } | undefined)?.Data?.Account ?? [];
  for (const account of list) if (typeof account.AccountId === 'string') accounts[account.AccountId] = account;
  return {
    version,
    accounts,
    balances: (json(environmentValue(run.environment, 'interim_balances')) ?? {}) as VersionLeg['balances'],
    transactions: (json(environmentValue(run.environment, 'transaction_counts')) ?? {}) as VersionLeg['transactions'],
    sums: transactionSums(run.executions),
  };
}

const text = (value: unknown): string => (value === undefined ? ABSENT : typeof value === 'string' ? value : JSON.stringify(value));

/** Pure: v3.1 beside v4.0, account by account. */
export function compareVersions(v31: VersionLeg, v40: VersionLeg): VersionComparison {
  const explained: VersionDifference[] = [];
  const differences: VersionDifference[] = [];
  const note = (account: string, field: string, a: unknown, b: unknown, mapped: boolean): void => {
    if (text(a) === text(b)) return;
    (mapped ? explained : differences).push({ account, field, v31: text(a), v40: text(b) });
  };
  const ids = [...new Set([...Object.keys(v31.accounts), ...Object.keys(v40.accounts)])].sort();
  const rows: AccountComparison[] = [];
  for (const id of ids) {
    const a = v31.accounts[id];
    const b = v40.accounts[id];
    if (a === undefined || b === undefined) {
      differences.push({
        account: id,
        field: 'account',
        v31: a === undefined ? ABSENT : 'present',
        v40: b === undefined ? ABSENT : 'present',
      });
      continue;
    }
    // Fields: v3.1's under their v4.0 names, values through the code tables; a field on one side only is a difference.
    const seen = new Set<string>();
    const oneSided: AccountComparison['oneSided'] = { v31: [], v40: [] };
    for (const [field, value] of Object.entries(a)) {
      const renamed = V4_FIELD_NAMES[field] ?? field;
      seen.add(renamed);
      const table = V4_VALUES[field];
      const expected = table !== undefined && typeof value === 'string' ? table[value] : value;
      const other = b[renamed];
      if (other === undefined) oneSided.v31.push(field);
      if (text(expected) !== text(other))
        differences.push({ account: id, field: renamed === field ? field : `${field}/${renamed}`, v31: text(value), v40: text(other) });
      else note(id, renamed === field ? field : `${field}/${renamed}`, value, other, true);
    }
    for (const [field, value] of Object.entries(b))
      if (!seen.has(field)) {
        oneSided.v40.push(field);
        differences.push({ account: id, field, v31: ABSENT, v40: text(value) });
      }
    const balanceA = v31.balances[id];
    const balanceB = v40.balances[id];
    for (const key of ['Amount', 'Currency', 'CreditDebitIndicator'] as const)
      note(id, `Balance.${key}`, balanceA?.[key], balanceB?.[key], false);
    note(
      id,
      'Balance.Type',
      balanceType(v31.version),
      balanceType(v40.version),
      V4_VALUES['Balance.Type']?.[balanceType(v31.version)] === balanceType(v40.version),
    );
    note(id, 'transactions', v31.transactions[id], v40.transactions[id], false);
    note(id, 'transactions.sum', v31.sums[id], v40.sums[id], false);
    const money = (balance: typeof balanceA, version: ApiVersion): string =>
      balance === undefined
        ? ABSENT
        : `${balance.CreditDebitIndicator === 'Debit' ? '-' : ''}${balance.Amount} ${balance.Currency} (${balanceType(version)})`;
    rows.push({
      account: id,
      balance: { v31: money(balanceA, v31.version), v40: money(balanceB, v40.version) },
      transactions: { v31: text(v31.transactions[id]), v40: text(v40.transactions[id]) },
      sums: { v31: text(v31.sums[id]), v40: text(v40.sums[id]) },
      oneSided,
    });
  }
  return { accounts: rows, explained, differences };
}

/** The comparison as lines for people: one per account, then each difference as a failed check. */
export function formatComparison(comparison: VersionComparison): string[] {
  const lines = ['v3.1 beside v4.0:'];
  for (const row of comparison.accounts)
    lines.push(
      `  ${row.account}: ${row.balance.v31} | ${row.balance.v40}; transactions ${row.transactions.v31} | ${row.transactions.v40}, sum ${row.sums.v31} | ${row.sums.v40}`,
    );
  lines.push(`  ${comparison.explained.length} difference(s) explained by the v4.0 code mapping`);
  for (const difference of comparison.differences)
    lines.push(
      `✗ ${difference.account} ${difference.field}: v3.1 ${difference.v31}, v4.0 ${difference.v40} (not explained by the code mapping)`,
    );
  if (comparison.differences.length === 0) lines.push('✓ no unexplained difference');
  return lines;
}
