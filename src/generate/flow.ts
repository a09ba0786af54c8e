// The AIS flow: an ordered array of steps (docs/bank-interface.md §5.3), each built by its own module under steps/.

import type { StepContext, StepSpec } from './model.js';
import { STEP_NAMES, type StepName } from './step-names.js';
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

// The names live in a module of their own, which `obflow run --help` lists without loading the step builders.
export { STEP_NAMES, type StepName } from './step-names.js';

const BUILDERS: Record<StepName, (context: StepContext) => StepSpec> = {
  discovery: discoveryStep,
  'client-credentials': clientCredentialsStep,
  'account-access-consent': accountAccessConsentStep,
  'psu-consent': psuConsentStep,
  'code-exchange': codeExchangeStep,
  accounts: accountsStep,
  'each-account': eachAccountStep,
  'account-balances': accountBalancesStep,
  'all-balances': allBalancesStep,
  transactions: transactionsStep,
  unsupported: unsupportedStep,
  refresh: refreshStep,
};

/** Pure: every step of the flow, in order. */
export function buildFlow(context: StepContext): StepSpec[] {
  return STEP_NAMES.map((name) => {
    const step = BUILDERS[name](context);
    if (step.name !== name) throw new TypeError(`step module for ${name} names itself ${step.name}`);
    return step;
  });
}
