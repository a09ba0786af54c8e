// The difference between AIS v3.1 and v4.0 of one bank, on one page (issue 29): per account, v3.1 beside v4.0 — the
// balance (amount, currency, credit/debit; type InterimAvailable ↔ ITAV), the number of transactions, and the
// account's fields — with every difference the code mapping does not explain as a failed check that names the field
// and both values. Pure: two finished runs in, a comparison out (the CLI prints it; the HTML report can show it).

import { environmentValue, type PostmanEnvironment } from '../environment/index.js';
import type { ApiVersion } from '../generate/api-versions.js';

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

/** The balance type each version's collections accept (docs/collections.md, "Versions"). */
const BALANCE_TYPE: Readonly<Record<ApiVersion, string>> = { '3.1': 'InterimAvailable', '4.0': 'ITAV' };

/** One version's run, as the comparison reads it. */
export interface VersionLeg {
  version: ApiVersion;
  /** AccountId → the account as GET /accounts answered it. */
  accounts: Record<string, Record<string, unknown>>;
  /** AccountId → its balance (the balance steps' record). */
  balances: Record<string, { Amount: string; Currency: string; CreditDebitIndicator: string }>;
  /** AccountId → the number of transactions read. */
  transactions: Record<string, number>;
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

/** A version's leg from its run's chained environment and the accounts body it read. */
export function legOfRun(
  version: ApiVersion,
  run: { environment: PostmanEnvironment; executions: readonly { url: string; method: string; json?: unknown }[] },
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
    for (const [field, value] of Object.entries(a)) {
      const renamed = V4_FIELD_NAMES[field] ?? field;
      seen.add(renamed);
      const table = V4_VALUES[field];
      const expected = table !== undefined && typeof value === 'string' ? table[value] : value;
      const other = b[renamed];
      if (text(expected) !== text(other))
        differences.push({ account: id, field: renamed === field ? field : `${field}/${renamed}`, v31: text(value), v40: text(other) });
      else note(id, renamed === field ? field : `${field}/${renamed}`, value, other, true);
    }
    for (const [field, value] of Object.entries(b))
      if (!seen.has(field)) differences.push({ account: id, field, v31: ABSENT, v40: text(value) });
    const balanceA = v31.balances[id];
    const balanceB = v40.balances[id];
    for (const key of ['Amount', 'Currency', 'CreditDebitIndicator'] as const)
      note(id, `Balance.${key}`, balanceA?.[key], balanceB?.[key], false);
    note(
      id,
      'Balance.Type',
      BALANCE_TYPE[v31.version],
      BALANCE_TYPE[v40.version],
      V4_VALUES['Balance.Type']?.[BALANCE_TYPE[v31.version]] === BALANCE_TYPE[v40.version],
    );
    note(id, 'transactions', v31.transactions[id], v40.transactions[id], false);
    const money = (balance: typeof balanceA, version: ApiVersion): string =>
      balance === undefined
        ? ABSENT
        : `${balance.CreditDebitIndicator === 'Debit' ? '-' : ''}${balance.Amount} ${balance.Currency} (${BALANCE_TYPE[version]})`;
    rows.push({
      account: id,
      balance: { v31: money(balanceA, v31.version), v40: money(balanceB, v40.version) },
      transactions: { v31: text(v31.transactions[id]), v40: text(v40.transactions[id]) },
    });
  }
  return { accounts: rows, explained, differences };
}

/** The comparison as lines for people: one per account, then each difference as a failed check. */
export function formatComparison(comparison: VersionComparison): string[] {
  const lines = ['v3.1 beside v4.0:'];
  for (const row of comparison.accounts)
    lines.push(`  ${row.account}: ${row.balance.v31} | ${row.balance.v40}; transactions ${row.transactions.v31} | ${row.transactions.v40}`);
  lines.push(`  ${comparison.explained.length} difference(s) explained by the v4.0 code mapping`);
  for (const difference of comparison.differences)
    lines.push(
      `✗ ${difference.account} ${difference.field}: v3.1 ${difference.v31}, v4.0 ${difference.v40} (not explained by the code mapping)`,
    );
  if (comparison.differences.length === 0) lines.push('✓ no unexplained difference');
  return lines;
}

/** The HTML report's file name for the comparison, beside the versions' folders in the reports folder. */
export const COMPARISON_PAGE = 'versions.html';

const escape = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/**
 * The comparison as a page of its own (<reports>/versions.html, beside <reports>/v3.1 and /v4.0, each with its run's
 * report): per account v3.1 beside v4.0, then every difference the mapping explains and every one it does not.
 */
export function renderComparisonPage(comparison: VersionComparison): string {
  const rows = comparison.accounts
    .map(
      (row) =>
        `<tr><td>${escape(row.account)}</td><td>${escape(row.balance.v31)}</td><td>${escape(row.balance.v40)}</td>` +
        `<td>${escape(row.transactions.v31)}</td><td>${escape(row.transactions.v40)}</td></tr>`,
    )
    .join('\n');
  const list = (items: readonly VersionDifference[], mark: string): string =>
    items
      .map(
        (item) =>
          `<li>${mark} ${escape(item.account)} <code>${escape(item.field)}</code>: v3.1 <code>${escape(item.v31)}</code>, v4.0 <code>${escape(item.v40)}</code></li>`,
      )
      .join('\n');
  const verdict =
    comparison.differences.length === 0
      ? '<p class="passed">✓ no unexplained difference</p>'
      : `<p class="failed">✗ ${comparison.differences.length} difference(s) the v4.0 code mapping does not explain</p>\n<ul>\n${list(comparison.differences, '✗')}\n</ul>`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>obflow: AIS v3.1 beside v4.0</title></head><body>',
    '<h1>AIS v3.1 beside v4.0</h1>',
    '<p>Each version\'s run has its own report: <a href="v3.1/report.html">v3.1</a>, <a href="v4.0/report.html">v4.0</a>.</p>',
    verdict,
    '<table><thead><tr><th>Account</th><th>Balance v3.1</th><th>Balance v4.0</th><th>Transactions v3.1</th><th>Transactions v4.0</th></tr></thead>',
    `<tbody>\n${rows}\n</tbody></table>`,
    `<h2>Explained by the v4.0 code mapping (${comparison.explained.length})</h2>`,
    `<ul>\n${list(comparison.explained, '=')}\n</ul>`,
    '</body></html>',
    '',
  ].join('\n');
}
