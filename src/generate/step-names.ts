// The AIS flow's step names in the order they run (src/generate/flow.ts builds each): the accounts family's row
// (src/api-families.ts), which imports nothing, so the CLI's help lists them without loading the builders.

import { API_FAMILIES, type AccountsStepName } from '../api-families.js';

/** The steps in the order they run; `<step>.postman_collection.json` each, folders of the whole-flow collection. */
export const STEP_NAMES = API_FAMILIES.accounts.steps;
export type StepName = AccountsStepName;
