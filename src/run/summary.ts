// The demo's closing summary from a finished run: accounts with their balance (InterimAvailable; ITAV on AIS v4.0) and
// transaction count, steps passed. Reads only the non-secret state variables (generate/variables.ts) and the accounts list body.

import type { PostmanEnvironment } from '../environment/merge.js';
import { API_VERSION_ROWS, DEFAULT_API_VERSION, type ApiVersion } from '../generate/api-versions.js';
import { accountLabels, accountsFromValues, type AccountRow } from '../runner-rules.js';
import { skipReasonOf, stepStatus, type ExecutionRecord, type StepResult } from './result.js';

/** One account the run read: the report page's row, read as every workspace reads it (src/runner-rules.ts). */
export type AccountSummary = AccountRow;

export interface RunSummary {
  accounts: AccountSummary[];
  /** Steps by verdict: `skipped` ones did not run (their reasons in `skips`), `total` is the plan's. */
  steps: { passed: number; skipped: number; total: number; failed?: string };
  /** Each skipped step and why it did not run (empty when none was). */
  skips: { step: string; reason: string }[];
}

/** The flow's step that reads the accounts list (src/generate/flow.ts): a run whose plan has it but stopped before it
 *  read no accounts, and the state an earlier run left must not pass for this one's. */
const ACCOUNTS_STEP = 'accounts';

export function buildRunSummary(input: {
  environment: PostmanEnvironment;
  steps: readonly StepResult[];
  executions?: readonly ExecutionRecord[];
  totalSteps?: number;
  /** Every step of the run's plan (RunResult.planned). */
  planned?: readonly string[];
}): RunSummary {
  const labels = new Map((input.executions ?? []).flatMap((execution) => accountLabels(execution.json)));
  const unreached = input.planned?.includes(ACCOUNTS_STEP) === true && !input.steps.some((step) => step.name === ACCOUNTS_STEP);
  const accounts = unreached ? [] : accountsFromValues(input.environment.values, labels);
  const failed = input.steps.find((step) => !step.passed);
  const skipped = input.steps.filter((step) => stepStatus(step) === 'skipped');
  return {
    accounts,
    steps: {
      passed: input.steps.filter((step) => stepStatus(step) === 'passed').length,
      skipped: skipped.length,
      total: input.totalSteps ?? input.planned?.length ?? input.steps.length,
      ...(failed !== undefined ? { failed: failed.name } : {}),
    },
    skips: skipped.map((step) => ({ step: step.name, reason: skipReasonOf(step) })),
  };
}

/** Plain lines for the terminal: one per account (its balance labelled with the version's code: InterimAvailable in
 *  v3.1, ITAV in v4.0), then the steps line (it always says how many were skipped). */
export function formatRunSummary(summary: RunSummary, apiVersion: ApiVersion = DEFAULT_API_VERSION): string[] {
  const lines = summary.accounts.map((account) => {
    const balance =
      account.balance === undefined
        ? 'balance n/a'
        : `${account.balance.creditDebitIndicator === 'Debit' ? '-' : ''}${account.balance.amount} ${account.balance.currency} (${API_VERSION_ROWS[apiVersion].balanceType})`;
    const transactions = account.transactions === undefined ? 'transactions n/a' : `${account.transactions} transactions`;
    return `${account.accountId}${account.label !== undefined ? ` ${account.label}` : ''}: ${balance}, ${transactions}`;
  });
  lines.push(
    `steps passed: ${summary.steps.passed}/${summary.steps.total}, ${summary.steps.skipped} skipped` +
      `${summary.skips.length > 0 ? ` (${summary.skips.map((skip) => skip.step).join(', ')})` : ''}` +
      `${summary.steps.failed !== undefined ? ` (failed: ${summary.steps.failed})` : ''}`,
  );
  return lines;
}
