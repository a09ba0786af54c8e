// The demo's closing summary from a finished run: accounts with their InterimAvailable balance and transaction count,
// steps passed. Reads only the non-secret state variables (generate/variables.ts) and the accounts list body.

import type { PostmanEnvironment } from '../environment/merge.js';
import type { ReportAccount } from '../report/html.js';
import type { ExecutionRecord, StepResult } from './result.js';

/** One account the run read: the report page's row (src/report/html.ts). */
export type AccountSummary = ReportAccount;

export interface RunSummary {
  accounts: AccountSummary[];
  steps: { passed: number; total: number; failed?: string };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function valueOf(environment: PostmanEnvironment, key: string): string | undefined {
  const entry = environment.values.find((value) => value.key === key);
  return entry === undefined || entry.type === 'secret' ? undefined : entry.value;
}

function labelsFrom(executions: readonly ExecutionRecord[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const execution of executions) {
    const accounts = (execution.json as { Data?: { Account?: unknown } } | undefined)?.Data?.Account;
    if (!Array.isArray(accounts)) continue;
    for (const account of accounts as Record<string, unknown>[]) {
      const label = [account.Nickname, account.AccountSubType, account.AccountType].find((part) => typeof part === 'string');
      if (typeof account.AccountId === 'string' && typeof label === 'string') labels.set(account.AccountId, label);
    }
  }
  return labels;
}

export function buildRunSummary(input: {
  environment: PostmanEnvironment;
  steps: readonly StepResult[];
  executions?: readonly ExecutionRecord[];
  totalSteps?: number;
}): RunSummary {
  const ids = parseJson(valueOf(input.environment, 'account_ids'));
  const balances = (parseJson(valueOf(input.environment, 'interim_balances')) ?? {}) as Record<
    string,
    { Amount?: unknown; Currency?: unknown; CreditDebitIndicator?: unknown }
  >;
  const counts = (parseJson(valueOf(input.environment, 'transaction_counts')) ?? {}) as Record<string, unknown>;
  const labels = labelsFrom(input.executions ?? []);
  const accountIds = Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  const accounts = accountIds.map((accountId): AccountSummary => {
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
  const failed = input.steps.find((step) => !step.passed);
  return {
    accounts,
    steps: {
      passed: input.steps.filter((step) => step.passed).length,
      total: input.totalSteps ?? input.steps.length,
      ...(failed !== undefined ? { failed: failed.name } : {}),
    },
  };
}

/** Plain lines for the terminal: one per account, then the steps line. */
export function formatRunSummary(summary: RunSummary): string[] {
  const lines = summary.accounts.map((account) => {
    const balance =
      account.balance === undefined
        ? 'balance n/a'
        : `${account.balance.creditDebitIndicator === 'Debit' ? '-' : ''}${account.balance.amount} ${account.balance.currency} (InterimAvailable)`;
    const transactions = account.transactions === undefined ? 'transactions n/a' : `${account.transactions} transactions`;
    return `${account.accountId}${account.label !== undefined ? ` ${account.label}` : ''}: ${balance}, ${transactions}`;
  });
  lines.push(
    `steps passed: ${summary.steps.passed}/${summary.steps.total}${summary.steps.failed !== undefined ? ` (failed: ${summary.steps.failed})` : ''}`,
  );
  return lines;
}
