// The inputs of the payments and funds families (src/generate/variables.ts PAYMENT_VARIABLES, FUNDS_VARIABLES) from
// the config: the payment to make (flow.payment), how messages are signed (flow.messageSigning) and the funds checks
// (flow.funds). `obflow environment` writes them, and every run writes them again (run-plan.ts), so a run always sends
// what the config says now: nothing to compare (docs/pipeline.md, "What a run compares").

import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import { variablesOf } from '../generate/variables.js';

/** The local sandbox's PSUs' current accounts under its default seed (src/sandbox/data/bank.ts derives them from the
 *  seed alone): the funds checks' default account, as a CBPII is told its customer's account. A twin of the emulator's
 *  data, tied to it by test/unit/sandbox-contracts.test.ts (the two rooms meet only on the wire). */
export const SANDBOX_CURRENT_ACCOUNTS = {
  seed: 'obflow',
  scheme: 'UK.OBIE.SortCodeAccountNumber',
  byUser: { alex: '40809449735190', sam: '40396439876085', jo: '40801849706347' } as Readonly<Record<string, string>>,
} as const;

/** The account the funds checks are made on: flow.funds.debtorAccount, else (the sandbox, its default seed) the PSU's
 *  current account; ERR_CONFIG_INVALID when neither can say. */
export function fundsDebtorAccount(config: Pick<ObflowConfig, 'target' | 'sandbox' | 'flow'>): {
  schemeName: string;
  identification: string;
} {
  const set = config.flow.funds.debtorAccount;
  if (set !== undefined) return { schemeName: set.schemeName, identification: set.identification };
  const user = config.flow.psuUser ?? 'alex';
  const known = SANDBOX_CURRENT_ACCOUNTS.byUser[user];
  if (config.target === 'sandbox' && config.sandbox.seed === SANDBOX_CURRENT_ACCOUNTS.seed && known !== undefined)
    return { schemeName: SANDBOX_CURRENT_ACCOUNTS.scheme, identification: known };
  const why =
    config.target === 'sandbox'
      ? `the sandbox's accounts under sandbox.seed "${config.sandbox.seed}" are not known to obflow`
      : "a CBPII is told the PSU's account: obflow cannot know it";
  throw new ObflowError('ERR_CONFIG_INVALID', `flow.funds.debtorAccount is not set, and flow.apis has funds: ${why}`, {
    hint:
      'Set flow.funds.debtorAccount to the PSU\'s account ({ "schemeName": "UK.OBIE.SortCodeAccountNumber", ' +
      '"identification": "<sort code and account number>" }), or leave funds out of flow.apis.',
  });
}

type InputConfig = Pick<ObflowConfig, 'target' | 'sandbox' | 'flow'>;

/** Each family input's value, by its variable (one row per input of variables.ts that a setting gives). */
const FAMILY_INPUTS: Readonly<Record<string, (config: InputConfig) => string>> = {
  jws_tan: (config) => config.flow.messageSigning.tan,
  bank_jws_iss: (config) => config.flow.messageSigning.bankIss ?? '',
  bank_jws_jwks_uri: (config) => config.flow.messageSigning.bankJwksUri ?? '',
  payment_amount: (config) => config.flow.payment.amount,
  payment_currency: (config) => config.flow.payment.currency,
  payment_creditor_scheme: (config) => config.flow.payment.creditorAccount.schemeName,
  payment_creditor_identification: (config) => config.flow.payment.creditorAccount.identification,
  payment_creditor_name: (config) => config.flow.payment.creditorAccount.name,
  payment_reference: (config) => config.flow.payment.reference,
  funds_debtor_scheme: (config) => fundsDebtorAccount(config).schemeName,
  funds_debtor_identification: (config) => fundsDebtorAccount(config).identification,
  funds_available_amount: (config) => config.flow.funds.availableAmount,
  funds_unavailable_amount: (config) => config.flow.funds.unavailableAmount,
  funds_currency: (config) => config.flow.funds.currency,
  // The VRP payee is the payment's (flow.payment.creditorAccount): one payee a person sets for both families.
  vrp_creditor_scheme: (config) => config.flow.payment.creditorAccount.schemeName,
  vrp_creditor_identification: (config) => config.flow.payment.creditorAccount.identification,
  vrp_creditor_name: (config) => config.flow.payment.creditorAccount.name,
};

/** The environment values of the inputs the families of flow.apis have (none for the account flow). */
export function familyInputs(config: InputConfig): Record<string, string> {
  const values: Record<string, string> = {};
  for (const variable of variablesOf(config.flow.apis)) {
    const value = variable.family === undefined ? undefined : FAMILY_INPUTS[variable.key];
    if (value !== undefined) values[variable.key] = value(config);
  }
  return values;
}

/** The input variables a setting gives (the rows above): held to variables.ts by a test. */
export const FAMILY_INPUT_KEYS: readonly string[] = Object.keys(FAMILY_INPUTS);
