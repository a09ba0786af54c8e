// The demo's closing summary from a finished run: accounts with their balance (InterimAvailable; ITAV on AIS v4.0) and
// transaction count, the payment made (amount, payee, statuses, ids, signatures) and the funds checks, steps passed.
// Reads only the non-secret state variables (generate/variables.ts) and the accounts list body.

import type { PostmanEnvironment } from '../environment/merge.js';
import { API_VERSION_ROWS, DEFAULT_API_VERSION, type ApiVersion } from '../generate/api-versions.js';
import { FAMILY_LIST, stepNamesOf } from '../api-families.js';
import { writersOf } from '../generate/variables.js';
import {
  accountLabels,
  accountsFromValues,
  outcomesFromValues,
  stepCountNote,
  vrpMandateLines,
  type AccountRow,
  type FundsRow,
  type PaymentRow,
  type RunOutcomes,
} from '../runner-rules.js';
import { skipReasonOf, stepStatus, type ExecutionRecord, type StepResult } from './result.js';

export { outcomesOf } from '../runner-rules.js';

/** One account the run read: the report page's row, read as every workspace reads it (src/runner-rules.ts). */
export type AccountSummary = AccountRow;

/** Besides the accounts: what the run paid and checked, one entry per family (the payment, the funds checks, the VRP
 *  mandate: each limit, what the run used of it, the payments refused), when it reached the step that writes it. */
export interface RunSummary extends RunOutcomes {
  accounts: AccountSummary[];
  /** Steps by verdict: `skipped` ones did not run (their reasons in `skips`), `total` is the plan's. */
  steps: { passed: number; skipped: number; total: number; failed?: string };
  /** What `total` covers: the collection's steps, and obflow's local steps (consent in a browser or by hand, the
   *  id_token checks) by name. */
  counted: { collection: number; local: string[] };
  /** Each skipped step and why it did not run (empty when none was). */
  skips: { step: string; reason: string }[];
}

/** The flow's step that reads the accounts list (src/generate/flow.ts): a run whose plan has it but stopped before it
 *  read no accounts, and the state an earlier run left must not pass for this one's. */
const ACCOUNTS_STEP = 'accounts';

/**
 * An account's balance and transaction count as this run read them. A value whose writing step the plan has but the
 * run never reached is an earlier run's (the saved environment carries it): not shown as this one's. A transactions
 * step that began and did not pass (a failed page, the paging guard, a stop) read some pages only: its count is
 * marked partial, never passed off as the account's total.
 */
function thisRunsValues(
  accounts: readonly AccountRow[],
  steps: readonly StepResult[],
  planned: readonly string[] | undefined,
): AccountRow[] {
  if (planned === undefined) return [...accounts];
  const reached = new Map(steps.map((step) => [step.name, step]));
  const notReached = (key: string) => {
    const writers = writersOf(key);
    return writers.some((step) => planned.includes(step)) && !writers.some((step) => reached.has(step));
  };
  const staleBalance = notReached('interim_balances');
  const staleCount = notReached('transaction_counts');
  const partial = writersOf('transaction_counts').some((step) => reached.get(step)?.passed === false);
  return accounts.map(({ balance, transactions, ...account }) => ({
    ...account,
    ...(balance !== undefined && !staleBalance ? { balance } : {}),
    ...(transactions !== undefined && !staleCount ? { transactions, ...(partial ? { transactionsPartial: true } : {}) } : {}),
  }));
}

export function buildRunSummary(input: {
  environment: PostmanEnvironment;
  steps: readonly StepResult[];
  executions?: readonly ExecutionRecord[];
  /** Every step of the run's plan (RunResult.planned). */
  planned?: readonly string[];
}): RunSummary {
  const labels = new Map((input.executions ?? []).flatMap((execution) => accountLabels(execution.json)));
  const unreached = input.planned?.includes(ACCOUNTS_STEP) === true && !input.steps.some((step) => step.name === ACCOUNTS_STEP);
  const accounts = unreached ? [] : thisRunsValues(accountsFromValues(input.environment.values, labels), input.steps, input.planned);
  const failed = input.steps.find((step) => !step.passed);
  const skipped = input.steps.filter((step) => stepStatus(step) === 'skipped');
  // The plan's steps are the flow's collection steps (src/generate/step-names.ts) and obflow's local ones between them.
  const plan = input.planned ?? input.steps.map((step) => step.name);
  const collection = new Set<string>(stepNamesOf(FAMILY_LIST));
  // The payment, the funds checks and the VRP mandate as this run wrote them: a value whose writing step the plan has
  // but the run never reached is an earlier run's (as an account's balance, above). The writers are every family's
  // (src/generate/variables.ts writersOf), not the account flow's alone.
  const reachedAll = (key: string) =>
    input.planned === undefined || !writersOf(key).some((step) => plan.includes(step) && !input.steps.some((done) => done.name === step));
  return {
    accounts,
    ...outcomesFromValues(input.environment.values, reachedAll),
    counted: {
      collection: plan.filter((name) => collection.has(name)).length,
      local: plan.filter((name) => !collection.has(name)),
    },
    steps: {
      passed: input.steps.filter((step) => stepStatus(step) === 'passed').length,
      skipped: skipped.length,
      total: plan.length,
      ...(failed !== undefined ? { failed: failed.name } : {}),
    },
    skips: skipped.map((step) => ({ step: step.name, reason: skipReasonOf(step) })),
  };
}

/** Plain lines for the terminal: one per account (its balance labelled with the version's code: InterimAvailable in
 *  v3.1, ITAV in v4.0), then the steps line (it always says what the count covers and how many were skipped). */
export function formatRunSummary(summary: RunSummary, apiVersion: ApiVersion = DEFAULT_API_VERSION): string[] {
  const lines = summary.accounts.map((account) => {
    const balance =
      account.balance === undefined
        ? 'balance n/a'
        : `${account.balance.creditDebitIndicator === 'Debit' ? '-' : ''}${account.balance.amount} ${account.balance.currency} (${API_VERSION_ROWS[apiVersion].balanceType})`;
    const transactions =
      account.transactions === undefined
        ? 'transactions n/a'
        : account.transactionsPartial === true
          ? `${account.transactions} transactions read before the run stopped (not all of them)`
          : `${account.transactions} transactions`;
    return `${account.accountId}${account.label !== undefined ? ` ${account.label}` : ''}: ${balance}, ${transactions}`;
  });
  lines.push(...outcomeLines(summary));
  lines.push(
    `steps passed: ${summary.steps.passed}/${summary.steps.total} (${stepCountNote(summary.counted.collection, summary.counted.local)}), ` +
      `${summary.steps.skipped} skipped` +
      `${summary.skips.length > 0 ? ` (${summary.skips.map((skip) => skip.step).join(', ')})` : ''}` +
      `${summary.steps.failed !== undefined ? ` (failed: ${summary.steps.failed})` : ''}`,
  );
  return lines;
}

/** The lines of what the run paid and checked, each family's entry in turn (the terminal, the merged page). */
export function outcomeLines(outcomes: RunOutcomes): string[] {
  return [
    ...(outcomes.payment !== undefined ? [paymentLine(outcomes.payment)] : []),
    ...(outcomes.funds !== undefined ? [fundsLine(outcomes.funds)] : []),
    ...(outcomes.vrp !== undefined ? vrpMandateLines(outcomes.vrp) : []),
  ];
}

/** `payment dp-1: 10.00 GBP to ACME Inc, AcceptedSettlementCompleted; consent pdc-1 Consumed; 3 requests signed, 9 bank
 *  signatures verified`. */
export function paymentLine(payment: PaymentRow): string {
  const made = payment.paymentId === undefined ? 'payment not made' : `payment ${payment.paymentId}`;
  const amount = payment.amount === undefined ? '' : `: ${payment.amount} ${payment.currency ?? ''}`.trimEnd();
  const payee = payment.creditor === undefined ? '' : ` to ${payment.creditor}`;
  const status = payment.status === undefined ? '' : `, ${payment.status}`;
  const consent =
    payment.consentId === undefined
      ? ''
      : `; consent ${payment.consentId}${payment.consentStatus !== undefined ? ` ${payment.consentStatus}` : ''}`;
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const signatures =
    payment.signatures === undefined
      ? ''
      : `; ${plural(payment.signatures.signed, 'request')} signed, ${plural(payment.signatures.verified, 'bank signature')} verified`;
  return `${made}${amount}${payee}${status}${consent}${signatures}`;
}

/** `funds checks: 1.00 GBP available, 9999999999.00 GBP not available (consent fcc-1 deleted)`. */
export function fundsLine(funds: FundsRow): string {
  const checks = funds.checks.map((check) => `${check.amount} ${check.currency} ${check.available ? 'available' : 'not available'}`);
  const consent =
    funds.consentId === undefined
      ? ''
      : ` (consent ${funds.consentId}${funds.consentStatus !== undefined ? ` ${funds.consentStatus}` : ''})`;
  return `funds checks: ${checks.length > 0 ? checks.join(', ') : 'none made'}${consent}`;
}
