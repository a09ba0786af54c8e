// The AIS flow's step names in the order they run (src/generate/flow.ts builds each); imports nothing, so the CLI's
// help lists them without loading the builders.

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
