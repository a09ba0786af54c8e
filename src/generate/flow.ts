// The AIS flow: an ordered array of steps (docs/bank-interface.md §5.3), each built by its own module under steps/.

import type { StepContext, StepSpec } from './model.js';
import { accountAccessConsentStep } from './steps/account-access-consent.js';
import { accountBalancesStep } from './steps/account-balances.js';
import { accountsStep } from './steps/accounts.js';
import { allBalancesStep } from './steps/all-balances.js';
import { clientCredentialsStep } from './steps/client-credentials.js';
import { codeExchangeStep } from './steps/code-exchange.js';
import { discoveryStep } from './steps/discovery.js';
import { eachAccountStep } from './steps/each-account.js';
import { psuConsentStep } from './steps/psu-consent.js';
import { refreshStep } from './steps/refresh.js';
import { transactionsStep } from './steps/transactions.js';
import { unsupportedStep } from './steps/unsupported.js';

/** The steps in the order they run; `<step>.postman_collection.json` each, folders of the whole-flow collection. */
export const STEP_NAMES = [
  'discovery',
  'client-credentials',
  'account-access-consent',
  'psu-consent',
  'code-exchange',
  'accounts',
  'each-account',
  'account-balances',
  'all-balances',
  'transactions',
  'unsupported',
  'refresh',
] as const;
export type StepName = (typeof STEP_NAMES)[number];

/** A step's builder; `afterItem` is the name of the first request after the step in the flow ('' for the last). */
const BUILDERS: Record<StepName, (context: StepContext, afterItem: string) => StepSpec> = {
  discovery: discoveryStep,
  'client-credentials': clientCredentialsStep,
  'account-access-consent': accountAccessConsentStep,
  'psu-consent': psuConsentStep,
  'code-exchange': codeExchangeStep,
  accounts: accountsStep,
  'each-account': eachAccountStep,
  'account-balances': accountBalancesStep,
  'all-balances': allBalancesStep,
  transactions: (_context, afterItem) => transactionsStep(afterItem),
  unsupported: unsupportedStep,
  refresh: refreshStep,
};

/** Pure: every step of the flow, in order. */
export function buildFlow(context: StepContext): StepSpec[] {
  // Built from the last step back, so that each builder knows the request that follows its step.
  const steps: StepSpec[] = [];
  for (const name of [...STEP_NAMES].reverse()) {
    const afterItem = steps.find((later) => later.items.length > 0)?.items[0]?.name ?? '';
    const step = BUILDERS[name](context, afterItem);
    if (step.name !== name) throw new TypeError(`step module for ${name} names itself ${step.name}`);
    steps.unshift(step);
  }
  return steps;
}
