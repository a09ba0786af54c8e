// A family's flow: an ordered array of steps (its row's `steps`, src/api-families.ts; the AIS flow is
// docs/bank-interface.md §5.3), each built by its own module under steps/ — one module may serve several families.

import type { FamilyStepName } from '../api-families.js';
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
import { paymentConsentStep } from './steps/payment-consent.js';
import { paymentFundsCheckStep } from './steps/payment-funds-check.js';
import { paymentStep } from './steps/payment.js';
import { paymentDetailsStep } from './steps/payment-details.js';
import { fundsConsentStep } from './steps/funds-consent.js';
import { fundsConfirmationStep } from './steps/funds-confirmation.js';
import { fundsConsentDeleteStep } from './steps/funds-consent-delete.js';
import { vrpConsentStep } from './steps/vrp-consent.js';
import { vrpFundsCheckStep } from './steps/vrp-funds-check.js';
import { vrpPaymentStep } from './steps/vrp-payment.js';
import { vrpPaymentDetailsStep } from './steps/vrp-payment-details.js';
import { vrpMandateStep } from './steps/vrp-mandate.js';
import { vrpConsentDeleteStep } from './steps/vrp-consent-delete.js';

// The names live in a module of their own, which `obflow run --help` lists without loading the step builders.
export { STEP_NAMES, type StepName } from './step-names.js';

const BUILDERS: Record<FamilyStepName, (context: StepContext) => StepSpec> = {
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
  'payment-consent': paymentConsentStep,
  'payment-funds-check': paymentFundsCheckStep,
  payment: paymentStep,
  'payment-details': paymentDetailsStep,
  'funds-consent': fundsConsentStep,
  'funds-confirmation': fundsConfirmationStep,
  'funds-consent-delete': fundsConsentDeleteStep,
  'vrp-consent': vrpConsentStep,
  'vrp-funds-check': vrpFundsCheckStep,
  'vrp-payment': vrpPaymentStep,
  'vrp-payment-details': vrpPaymentDetailsStep,
  'vrp-mandate': vrpMandateStep,
  'vrp-consent-delete': vrpConsentDeleteStep,
};

/** Pure: every step of the context's family's flow, in order. */
export function buildFlow(context: StepContext): StepSpec[] {
  return (context.family.steps as readonly FamilyStepName[]).map((name) => {
    const step = BUILDERS[name](context);
    if (step.name !== name) throw new TypeError(`step module for ${name} names itself ${step.name}`);
    return step;
  });
}
