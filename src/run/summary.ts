// The demo's closing summary from a finished run: accounts with their InterimAvailable balance and transaction count,
// steps passed. Reads only the non-secret state variables (generate/variables.ts) and the accounts list body.

import type { PostmanEnvironment } from '../environment/merge.js';
import { accountLabels, accountsFromValues, type AccountRow } from '../runner-rules.js';
import type { ExecutionRecord, StepResult } from './result.js';

/** One account the run read: the report page's row, read as every workspace reads it (src/runner-rules.ts). */
export type AccountSummary = AccountRow;

export interface RunSummary {
  accounts: AccountSummary[];
  steps: { passed: number; total: number; failed?: string };
}

export function buildRunSummary(input: {
  environment: PostmanEnvironment;
  steps: readonly StepResult[];
  executions?: readonly ExecutionRecord[];
  totalSteps?: number;
}): RunSummary {
  const labels = new Map((input.executions ?? []).flatMap((execution) => accountLabels(execution.json)));
  const accounts = accountsFromValues(input.environment.values, labels);
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
