// The API families a run covers (OBIE Read/Write APIs: accounts, later payments, funds confirmation, VRP), one row
// each: who may call it, the scope its token needs, where it sits under a version's path, its steps in run order and
// where its files go. Imports nothing (the CLI's help lists a family's steps without loading anything else); the
// generator, the run plan, `obflow run <step>` and the registration's scope read the rows (docs/pipeline.md, "Versions
// and API families"). A new family is a row here plus its step modules (src/generate/steps/), not a branch elsewhere.

/** The TPP's regulatory roles of a software statement (docs/bank-interface.md §2.1 `software_roles`) and the scope a
 *  family of that role adds to a registration's `scope` (§2.1: "accounts for AISP, payments for PISP, or both"; OB R/W
 *  Data API Profile, "Pre-conditions for TPPs": `fundsconfirmations` for a CBPII). In the order §2.1 lists the scopes,
 *  so the registration request keeps its bytes. */
export const REGULATORY_ROLES = {
  AISP: { scope: 'accounts' },
  PISP: { scope: 'payments' },
  CBPII: { scope: 'fundsconfirmations' },
} as const satisfies Readonly<Record<string, { scope: string }>>;
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

/** The payments family's steps (PISP domestic payments, OB R/W Payment Initiation API; docs/collections.md): the
 *  discovery, token and consent steps are the accounts family's modules, parametrised by the row. */
const PAYMENTS_STEPS = [
  'discovery',
  'client-credentials',
  'payment-consent',
  'psu-consent',
  'code-exchange',
  'payment-funds-check',
  'payment',
  'payment-details',
] as const;

/** The funds family's steps (CBPII, OB R/W Confirmation of Funds API; docs/collections.md). */
const FUNDS_STEPS = [
  'discovery',
  'client-credentials',
  'funds-consent',
  'psu-consent',
  'code-exchange',
  'funds-confirmation',
  'funds-consent-delete',
] as const;

/** The VRP family's steps (PISP domestic variable recurring payments, OB R/W VRP API and the OBL cVRP v4.0 file;
 *  docs/collections.md): the consent, its funds confirmation, one payment read back, the mandate walk against the
 *  consent's limits, and the consent's DELETE. */
const VRP_STEPS = [
  'discovery',
  'client-credentials',
  'vrp-consent',
  'psu-consent',
  'code-exchange',
  'vrp-funds-check',
  'vrp-payment',
  'vrp-payment-details',
  'vrp-mandate',
  'vrp-consent-delete',
] as const;

export interface ApiFamily {
  /** How config, flags and files name it. */
  name: 'accounts' | 'payments' | 'funds' | 'vrp';
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
  /** The file stem of its whole-flow collection (`obflow-ais.postman_collection.json`). */
  flowCollection: string;
  /** Whether its POSTs are signed (`x-jws-signature`, OB R/W Data API Profile "Message Signing") and idempotent
   *  (`x-idempotency-key`), and its answers signed by the bank: the run then needs the TPP's signing key and the bank's
   *  signing keys (docs/collections.md, "Message signing"). */
  signsMessages: boolean;
  /** Whether the bank interface lists its scope among the supported ones (docs/bank-interface.md §4.3: the service,
   *  accounts, payments), so the discovery step checks scopes_supported has it; beyond the interface OIDC Discovery 1.0
   *  §3 lets a server leave a scope it supports unlisted. */
  interfaceScope: boolean;
  /** Whether its consent step moves money (a payment): such a flow pointed at a bank that is not a sandbox needs
   *  flow.payments.allowLiveBank naming it (src/config/schema.ts). */
  movesMoney: boolean;
  /** What the flow does with the money it moves, as the workspace's guide says it (absent: it moves none). */
  journey?: string;
}

/** One row per family. */
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
    flowCollection: 'obflow-ais',
    interfaceScope: true,
    signsMessages: false,
    movesMoney: false,
  },
  payments: {
    name: 'payments',
    label: 'Payment Initiation API',
    short: 'PIS',
    role: 'PISP',
    segment: 'pisp',
    steps: PAYMENTS_STEPS,
    folder: 'payments',
    variablePrefix: 'payment_',
    flowCollection: 'obflow-pis',
    interfaceScope: true,
    signsMessages: true,
    movesMoney: true,
    journey: 'a signed, idempotent domestic payment, checked against its consent',
  },
  funds: {
    name: 'funds',
    label: 'Confirmation of Funds API',
    short: 'CoF',
    role: 'CBPII',
    segment: 'cbpii',
    steps: FUNDS_STEPS,
    folder: 'funds',
    variablePrefix: 'funds_',
    flowCollection: 'obflow-cof',
    interfaceScope: false,
    signsMessages: false,
    movesMoney: false,
  },
  vrp: {
    name: 'vrp',
    label: 'Domestic VRP API',
    short: 'VRP',
    role: 'PISP',
    segment: 'pisp',
    steps: VRP_STEPS,
    folder: 'vrp',
    variablePrefix: 'vrp_',
    flowCollection: 'obflow-vrp',
    interfaceScope: true,
    signsMessages: true,
    movesMoney: true,
    journey:
      'a variable recurring payments mandate asked for, its payments signed and made up to each of its limits, each payment ' +
      'past a limit refused by the bank, then the mandate revoked',
  },
} as const satisfies Readonly<Record<ApiFamily['name'], ApiFamily>>;

export type ApiFamilyName = keyof typeof API_FAMILIES;
export type AccountsStepName = (typeof ACCOUNTS_STEPS)[number];
/** Every step name of every family (a step module may serve several families: psu-consent, code-exchange, …). */
export type FamilyStepName = (typeof ACCOUNTS_STEPS | typeof PAYMENTS_STEPS | typeof FUNDS_STEPS | typeof VRP_STEPS)[number];

/** The family names, in the table's order (config `flow.apis`, `--apis`). */
export const API_FAMILY_NAMES = Object.keys(API_FAMILIES) as ApiFamilyName[];
/** What `flow.apis` means when nothing sets it: the account flow, as before families existed. */
export const DEFAULT_API_FAMILIES: readonly ApiFamilyName[] = ['accounts'];

/** Every family, in the order a run covers them. */
export const FAMILY_LIST: readonly ApiFamily[] = Object.values(API_FAMILIES);

/** The scope a family's tokens need: its role's. */
export function familyScope(family: Pick<ApiFamily, 'role'>): string {
  return REGULATORY_ROLES[family.role].scope;
}

/** The rows of the named families, in the table's order whatever the order asked (a run covers accounts, then
 *  payments, then funds; the registration's scope lists them in §2.1's order). */
export function familiesOf(names: readonly string[]): ApiFamily[] {
  return FAMILY_LIST.filter((family) => names.includes(family.name));
}

/** Every step name of these families, each once, in run order (`obflow run <step>`'s list). */
export function stepNamesOf(families: readonly Pick<ApiFamily, 'steps'>[]): string[] {
  return [...new Set(families.flatMap((family) => family.steps))];
}

/** The `--apis` option of run, demo, generate and workspace (one description for all four; a workspace holds one
 *  family's flow, src/pipeline/workspace.ts). */
export const API_FAMILIES_OPTION = {
  type: 'string',
  describe:
    `API families, comma-separated: ${Object.keys(API_FAMILIES).join(', ')} (default: flow.apis, else ${DEFAULT_API_FAMILIES.join(',')}); ` +
    'the registration asks for their scopes; workspace: one',
} as const;
