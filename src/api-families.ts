// The API families a run covers (OBIE Read/Write APIs: accounts, later payments, funds confirmation, VRP), one row
// each: who may call it, the scope its token needs, where it sits under a version's path, its steps in run order and
// where its files go. Imports nothing (the CLI's help lists a family's steps without loading anything else); the
// generator, the run plan, `obflow run <step>` and the registration's scope read the rows (docs/pipeline.md, "Versions
// and API families"). A new family is a row here plus its step modules (src/generate/steps/), not a branch elsewhere.

/** The TPP's regulatory roles of a software statement (docs/bank-interface.md §2.1 `software_roles`) and the scope each
 *  adds to a registration's `scope` (§2.1: "accounts for AISP, payments for PISP, or both"; CBPII adds none there). In
 *  the order §2.1 lists the scopes, so the registration request keeps its bytes. */
export const REGULATORY_ROLES = {
  AISP: { scope: 'accounts' },
  PISP: { scope: 'payments' },
  CBPII: { scope: undefined },
} as const satisfies Readonly<Record<string, { scope: string | undefined }>>;
export type RegulatoryRole = keyof typeof REGULATORY_ROLES;

/** "The service" of §2.1's scope: every registration asks for it (OIDC Core §3.1.2.1 `openid`). */
export const SERVICE_SCOPE = 'openid';

/** The accounts family's steps in the order they run (src/generate/flow.ts builds each; docs/collections.md). */
const ACCOUNTS_STEPS = [
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

export interface ApiFamily {
  /** How config, flags and files name it. */
  name: 'accounts';
  /** How people name it (OBIE's API name). */
  label: string;
  /** The short name before a version in lines, collection names and leg labels (`AIS v4.0`). */
  short: string;
  /** The regulatory role that may call it; the scope its tokens need is that role's (REGULATORY_ROLES). */
  role: RegulatoryRole;
  /** The OBIE base-path segment under a version's root (`/open-banking/v4.0/aisp`). The same in every version obflow
   *  speaks (OBIE R/W v3.1 and OBL v4.0 OpenAPI `servers`); a family whose segment moved would make this a table. */
  segment: string;
  /** Its steps in run order: `<step>.postman_collection.json` each, folders of its whole-flow collection. */
  steps: readonly string[];
  /** Its collections' (and a run's reports') sub-folder: accounts' are the output folder itself, as they always were
   *  (collections/, collections/v4.0/); a later family gets its own (collections/payments/). */
  folder: string;
  /** The prefix of its own environment variables, if it has any (accounts' keep their names: docs/collections.md). */
  variablePrefix: string | undefined;
}

/** One row per family; accounts is the only one so far. */
export const API_FAMILIES = {
  accounts: {
    name: 'accounts',
    label: 'Account and Transaction API',
    short: 'AIS',
    role: 'AISP',
    segment: 'aisp',
    steps: ACCOUNTS_STEPS,
    folder: '',
    variablePrefix: undefined,
  },
} as const satisfies Readonly<Record<ApiFamily['name'], ApiFamily>>;

export type ApiFamilyName = keyof typeof API_FAMILIES;
export type AccountsStepName = (typeof ACCOUNTS_STEPS)[number];

/** Every family, in the order a run covers them. */
export const FAMILY_LIST: readonly ApiFamily[] = Object.values(API_FAMILIES);

/** The scope a family's tokens need: its role's. */
export function familyScope(family: Pick<ApiFamily, 'role'>): string | undefined {
  return REGULATORY_ROLES[family.role].scope;
}
