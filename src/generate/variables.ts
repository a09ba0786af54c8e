// The environment-variable contract of obflow's collections: what the bank's helper environment provides, what the
// user may set, and the state each step writes. State passes between steps only through the environment
// (pm.environment): collection variables are lost between newman runs (docs/pipeline.md#newman-findings).

import { API_FAMILIES, familiesOf, type ApiFamilyName } from '../api-families.js';
import { DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD } from '../client-auth.js';
import { DEFAULT_MAX_PAGES } from './flow-defaults.js';

/** The transactions loop's page guard (src/generate/flow-defaults.ts). */
export { DEFAULT_MAX_PAGES };

/** Who provides a variable: the bank's environment helper, the user (inputs with defaults), or a step (state). */
export type VariableSource = 'bank' | 'input' | 'state';

export interface VariableSpec {
  key: string;
  source: VariableSource;
  description: string;
  /** Value the environment merge uses when nothing else sets it ('' = empty but present). */
  default: string;
  /** Typed `secret` in the environment; never printed in reports or logs. */
  secret: boolean;
  /** For state: the step(s) that write it (read by later steps and by the runner). */
  writtenBy?: readonly string[];
  /** For an input: the `flow` config key (and flag) it comes from (src/pipeline/run-plan.ts reads it for a run). */
  flow?: FlowInputKey;
  /** The API family it belongs to, when not every flow has it (src/api-families.ts): an environment holds the
   *  variables of its flow's families only (flow.apis), so the account flow's environment is as it always was. */
  family?: ApiFamilyName;
}

/** The `flow` config keys that are flow inputs of a run (src/config/schema.ts `flow`). */
export type FlowInputKey = 'responseType' | 'consent' | 'psuUser' | 'maxPages';

/** The bank helper's variables, named as the model bank's own Postman collection expects them (docs/bank-interface.md §2.5). */
export const BANK_VARIABLES: readonly VariableSpec[] = [
  {
    key: 'rs',
    source: 'bank',
    default: '',
    secret: false,
    description: 'Resource server base URL ({sandbox_base_url} / {base_url}); AIS paths are appended as /open-banking/v3.1/aisp/…',
  },
  {
    key: 'issuer',
    source: 'bank',
    default: '',
    secret: false,
    description: 'Authorisation server issuer ({auth_url}); the request object audience and the id_token iss.',
  },
  {
    key: 'configEndpoint',
    source: 'bank',
    default: '',
    secret: false,
    description: 'OpenID discovery document URL ({auth_url}/.well-known/openid-configuration).',
  },
  {
    key: 'jwksUri',
    source: 'bank',
    default: '',
    secret: false,
    description:
      "jwks_uri from discovery (written by `obflow environment` and the discovery step): the keys that verify the bank's id_token signatures.",
  },
  {
    key: 'authEndpoint',
    source: 'bank',
    default: '',
    secret: false,
    description: 'authorization_endpoint; overwritten from discovery by the discovery step.',
  },
  {
    key: 'tokenEndpoint',
    source: 'bank',
    default: '',
    secret: false,
    description: 'token_endpoint ({token_url}); overwritten from discovery by the discovery step.',
  },
  {
    key: 'basicToken',
    source: 'bank',
    default: '',
    secret: true,
    description: 'base64(client_id:client_secret) for client_secret_basic at the token endpoint.',
  },
  {
    key: '_clientId',
    source: 'bank',
    default: '',
    secret: false,
    description: 'The registered client id (request object iss and client_id, id_token aud).',
  },
  {
    key: '_clientSecret',
    source: 'bank',
    default: '',
    secret: true,
    description: "The registered client secret (obflow uses basicToken; kept for the bank's own collection).",
  },
  {
    key: 'oidcClient',
    source: 'bank',
    default: '',
    secret: false,
    description: "The client id as the bank's own collection names it (not used by obflow's requests).",
  },
  {
    key: 'redirectUrl',
    source: 'bank',
    default: '',
    secret: false,
    description: 'The registered redirect URI the PSU returns to; sent as redirect_uri.',
  },
  {
    key: 'obParticipantId',
    source: 'bank',
    default: '',
    secret: false,
    description: "The bank's participant id, sent as x-fapi-financial-id (required by AIS v3.1.1).",
  },
  {
    key: 'request-scope',
    source: 'bank',
    default: '',
    secret: false,
    description:
      'Scope the bank\'s own collection requests (not used by obflow: client credentials ask for "accounts", the consent URL for "openid accounts").',
  },
];

/** obflow's inputs: set in the environment (merge) or by the runner; the defaults are the headless flow. */
export const INPUT_VARIABLES: readonly VariableSpec[] = [
  {
    key: 'response_type',
    source: 'input',
    flow: 'responseType',
    default: 'code id_token',
    secret: false,
    description: 'OIDC response type of the consent URL: "code id_token" (hybrid, parameters in the fragment) or "code" (query).',
  },
  {
    key: 'consent_mode',
    source: 'input',
    flow: 'consent',
    default: 'headless',
    secret: false,
    description:
      '"headless": the consent URL GET redirects straight to redirectUrl; "interactive": it leads to the bank\'s ' +
      'login page and the runner drives a browser with consent_url, then writes auth_code (and id_token).',
  },
  {
    key: 'psu_login_hint',
    source: 'input',
    flow: 'psuUser',
    default: '',
    secret: false,
    description: "Optional login_hint naming the test user (empty: the bank's default user).",
  },
  {
    key: 'token_endpoint_auth_method',
    source: 'input',
    default: DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD,
    secret: false,
    description:
      'How the token requests authenticate, as registered: client_secret_basic (Basic basicToken), private_key_jwt ' +
      '(a PS256 client assertion signed with signing_key) or tls_client_auth (client_id; the transport certificate is the credential).',
  },
  {
    key: 'request_object_signing_alg',
    source: 'input',
    default: 'none',
    secret: false,
    description: "The consent URL's request object as registered: none (unsigned) or PS256 (signed with signing_key).",
  },
  {
    key: 'signing_kid',
    source: 'input',
    default: '',
    secret: false,
    description: "The signing key's kid in the software statement's JWKS (header of the client assertion and PS256 request objects).",
  },
  {
    key: 'signing_key',
    source: 'input',
    default: '',
    secret: true,
    description:
      'The private signing key as a JWK (JSON), for private_key_jwt and PS256 request objects only; empty otherwise. ' +
      'The workspace leaves it empty unless --include-secrets.',
  },
  {
    key: 'max_pages',
    source: 'input',
    flow: 'maxPages',
    default: String(DEFAULT_MAX_PAGES),
    secret: false,
    description: 'Page guard per account for the transactions loop; reaching it with Links.Next still present fails the step.',
  },
];

/** State written by the steps, read by later steps (and by the runner for its summary). */
export const STATE_VARIABLES: readonly VariableSpec[] = [
  {
    key: 'client_credentials_token',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['client-credentials'],
    description: 'Access token of the client credentials grant (scope accounts): creates and reads the consent.',
  },
  {
    key: 'client_assertion',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['client-credentials', 'code-exchange', 'refresh'],
    description: 'private_key_jwt: the last client assertion sent (RFC 7523 §3), kept so the run redacts it.',
  },
  {
    key: 'consent_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['account-access-consent', 'payment-consent', 'funds-consent', 'vrp-consent'],
    description:
      "ConsentId of the flow's consent (account access, domestic payment, funds confirmation or domestic VRP); the request object's openbanking_intent_id.",
  },
  {
    key: 'state',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['psu-consent'],
    description: 'OAuth state of the consent URL; must come back unchanged.',
  },
  {
    key: 'nonce',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['psu-consent'],
    description: 'OIDC nonce of the consent URL; must be in the id_token.',
  },
  {
    key: 'consent_url',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['psu-consent'],
    description:
      'The consent URL (authEndpoint + parameters + unsigned request object) the PSU opens; the runner gives it to the browser in interactive mode.',
  },
  {
    key: 'psu_consent_url',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['psu-consent'],
    description:
      "Interactive mode: the consent URL the runner opens in the PSU's browser (same state and nonce as " +
      'consent_url, a fresh request-object jti, so no request object is presented twice); empty in headless mode.',
  },
  {
    key: 'parEndpoint',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['discovery'],
    description: "flow.par: the bank's pushed_authorization_request_endpoint (RFC 9126 §5), read from discovery.",
  },
  {
    key: 'code_verifier',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['psu-consent'],
    description: 'flow.par: the PKCE code_verifier (RFC 7636 §4.1) of the pushed request; sent at the code exchange.',
  },
  {
    key: 'auth_code',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['psu-consent', 'runner'],
    description: 'Authorisation code from the redirect (headless: read from Location; interactive: written by the runner).',
  },
  {
    key: 'id_token',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['psu-consent', 'runner'],
    description: 'id_token from the redirect fragment (response_type "code id_token").',
  },
  {
    key: 'bank_jwks',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['psu-consent'],
    description: 'JSON array of the RSA keys (kid, n, e) read from jwksUri: the collection verifies id_token signatures with them.',
  },
  {
    key: 'token_id_token',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['code-exchange'],
    description: "id_token of the token response (OIDC Core §3.1.3.3), verified like the authorisation response's.",
  },
  {
    key: 'access_token',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['code-exchange', 'refresh'],
    description: 'Access token of the authorization_code grant (then of the refresh_token grant): reads account data.',
  },
  {
    key: 'refresh_token',
    source: 'state',
    default: '',
    secret: true,
    writtenBy: ['code-exchange', 'refresh'],
    description: 'Refresh token, when the bank issues one; the refresh step uses it (and keeps a rotated one).',
  },
  {
    key: 'account_ids',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['accounts'],
    description: 'JSON array of the AccountIds /accounts returned, in order.',
  },
  {
    key: 'account_index',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['each-account', 'account-balances', 'transactions'],
    description: 'Loop cursor over account_ids inside one step; empty between steps.',
  },
  {
    key: 'account_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['each-account', 'account-balances', 'transactions'],
    description: 'The AccountId of the current loop iteration (used in the request path).',
  },
  {
    key: 'interim_balances',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['account-balances'],
    description: "JSON object AccountId → {Amount, Currency, CreditDebitIndicator} of the InterimAvailable balance (the runner's summary).",
  },
  {
    key: 'transactions_next_url',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['transactions'],
    description: "Links.Next of the last page read (the next request), empty at an account's first page.",
  },
  {
    key: 'transactions_first_url',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['transactions'],
    description: "URL of the current account's first page: every page link must share its origin and path.",
  },
  {
    key: 'transactions_seen_urls',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['transactions'],
    description: 'JSON array of the page URLs already requested for the current account: Links.Next must not repeat one.',
  },
  {
    key: 'transactions_page',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['transactions'],
    description: 'Number of pages read so far for the current account (the max_pages guard).',
  },
  {
    key: 'transaction_counts',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['transactions'],
    description: "JSON object AccountId → number of transactions read across all pages (the runner's summary).",
  },
];

/** The steps of the families whose row signs messages (src/api-families.ts signsMessages), each family's own: not the
 *  discovery, token and PSU steps it shares with the accounts flow. Every one of them signs a request or verifies the
 *  bank's signature on an answer (docs/collections.md, "Message signing"), and the first of them, its consent step,
 *  fetches the bank's signing keys before the family's first signed POST. A run of one step reads the writers to name
 *  the step that must run first (src/pipeline/run-checks.ts stepPrerequisites). */
const SIGNING_FAMILY_STEPS: readonly (readonly string[])[] = Object.values(API_FAMILIES)
  .filter((family) => family.signsMessages)
  .map((family) => family.steps.filter((step) => !(API_FAMILIES.accounts.steps as readonly string[]).includes(step)));
const BANK_KEYS_WRITERS: readonly string[] = SIGNING_FAMILY_STEPS.flatMap((steps) => steps.slice(0, 1));
const SIGNATURE_COUNT_WRITERS: readonly string[] = SIGNING_FAMILY_STEPS.flat();

/** A family's own variable (VariableSpec.family): `ofFamily('vrp')({ … })`. */
const ofFamily =
  (family: ApiFamilyName) =>
  (spec: Omit<VariableSpec, 'family'>): VariableSpec => ({ ...spec, family });
const payments = ofFamily('payments');
const funds = ofFamily('funds');
const vrp = ofFamily('vrp');

/** The payments family's variables (docs/collections.md, "Payments"): the payment to make and how messages are signed
 *  (inputs, from flow.payment and flow.messageSigning at every run), and what its steps write. */
export const PAYMENT_VARIABLES: readonly VariableSpec[] = [
  payments({
    key: 'orgId',
    source: 'bank',
    default: '',
    secret: false,
    description:
      "The software statement's org_id: {org-id} of the signatures' http://openbanking.org.uk/iss (obflow writes the statement's).",
  }),
  payments({
    key: 'softwareId',
    source: 'bank',
    default: '',
    secret: false,
    description:
      "The software statement's software_id: {software-statement-id} of http://openbanking.org.uk/iss (obflow writes the statement's).",
  }),
  payments({
    key: 'payment_amount',
    source: 'input',
    default: '10.00',
    secret: false,
    description: 'flow.payment.amount: InstructedAmount.Amount of the consent and the payment.',
  }),
  payments({
    key: 'payment_currency',
    source: 'input',
    default: 'GBP',
    secret: false,
    description: 'flow.payment.currency: InstructedAmount.Currency.',
  }),
  payments({
    key: 'payment_creditor_scheme',
    source: 'input',
    default: '',
    secret: false,
    description: "flow.payment.creditorAccount.schemeName: the payee's CreditorAccount.SchemeName.",
  }),
  payments({
    key: 'payment_creditor_identification',
    source: 'input',
    default: '',
    secret: false,
    description: 'flow.payment.creditorAccount.identification: CreditorAccount.Identification.',
  }),
  payments({
    key: 'payment_creditor_name',
    source: 'input',
    default: '',
    secret: false,
    description: 'flow.payment.creditorAccount.name: CreditorAccount.Name.',
  }),
  payments({
    key: 'payment_reference',
    source: 'input',
    default: '',
    secret: false,
    description:
      'flow.payment.reference: the reference the payee sees (v3.1 RemittanceInformation.Reference; v4.0 its structured creditor reference).',
  }),
  payments({
    key: 'jws_tan',
    source: 'input',
    default: 'openbanking.org.uk',
    secret: false,
    description:
      "flow.messageSigning.tan: http://openbanking.org.uk/tan of the signatures obflow makes, and the one the bank's must carry.",
  }),
  payments({
    key: 'bank_jws_iss',
    source: 'input',
    default: '',
    secret: false,
    description: "flow.messageSigning.bankIss: the bank's http://openbanking.org.uk/iss; empty: obParticipantId (its {org-id}).",
  }),
  payments({
    key: 'bank_jws_jwks_uri',
    source: 'input',
    default: '',
    secret: false,
    description: "flow.messageSigning.bankJwksUri: where the bank's signing keys are published; empty: jwksUri (discovery).",
  }),
  payments({
    key: 'bank_signing_jwks',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: BANK_KEYS_WRITERS,
    description: "JSON array of the bank's RSA signing keys (kid, n, e): the collection verifies every x-jws-signature with them.",
  }),
  payments({
    key: 'signatures_checked',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: SIGNATURE_COUNT_WRITERS,
    description: 'JSON {signed, verified}: requests obflow signed and bank signatures verified in this flow (the reports show them).',
  }),
  payments({
    key: 'payment_consent_idempotency_key',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent'],
    description:
      'x-idempotency-key of POST /domestic-payment-consents, sent again by the replay checks (OB R/W Data API Profile, "Idempotency").',
  }),
  payments({
    key: 'payment_instruction_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent'],
    description: 'InstructionIdentification of the payment (fresh per consent).',
  }),
  payments({
    key: 'payment_end_to_end_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent'],
    description: 'EndToEndIdentification of the payment (fresh per consent).',
  }),
  payments({
    key: 'payment_changed_amount',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent', 'payment'],
    description: 'Another amount than payment_amount: the body sent again with the same x-idempotency-key, which the bank must refuse.',
  }),
  payments({
    key: 'payment_initiation',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent'],
    description: "JSON of the consent's Data.Initiation as the bank answered: the payment's must equal it.",
  }),
  payments({
    key: 'payment_consent_created',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent'],
    description: "The consent's CreationDateTime: a replay must answer the consent created first.",
  }),
  payments({
    key: 'payment_consent_status',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-consent', 'payment-funds-check', 'payment'],
    description: "The consent's Status as last read (v3.1 names, v4.0 codes; the reports show it).",
  }),
  payments({
    key: 'payment_funds_available',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment-funds-check'],
    description: "FundsAvailableResult.FundsAvailable of the consent's funds confirmation.",
  }),
  payments({
    key: 'payment_idempotency_key',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment'],
    description: 'x-idempotency-key of POST /domestic-payments, sent again by the replay checks.',
  }),
  payments({
    key: 'payment_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment'],
    description: 'DomesticPaymentId of the payment made.',
  }),
  payments({
    key: 'payment_self_url',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment'],
    description: "The payment's Links.Self: the payment is read back there.",
  }),
  payments({
    key: 'payment_created',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment'],
    description: "The payment's CreationDateTime: a replay must answer the payment made first.",
  }),
  payments({
    key: 'payment_status',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['payment', 'payment-details'],
    description: "The payment's Status as last read (the reports show it).",
  }),
];

/** The funds family's variables (docs/collections.md, "Confirmation of funds"): the account and amounts of the checks
 *  (inputs, from flow.funds at every run) and their answers. */
export const FUNDS_VARIABLES: readonly VariableSpec[] = [
  funds({
    key: 'funds_debtor_scheme',
    source: 'input',
    default: 'UK.OBIE.SortCodeAccountNumber',
    secret: false,
    description: "flow.funds.debtorAccount.schemeName: the scheme of the PSU's account.",
  }),
  funds({
    key: 'funds_debtor_identification',
    source: 'input',
    default: '',
    secret: false,
    description: "flow.funds.debtorAccount.identification: the PSU's account the funds are checked on (the consent's DebtorAccount).",
  }),
  funds({
    key: 'funds_available_amount',
    source: 'input',
    default: '1.00',
    secret: false,
    description: 'flow.funds.availableAmount: the check must answer FundsAvailable true.',
  }),
  funds({
    key: 'funds_unavailable_amount',
    source: 'input',
    default: '9999999999.00',
    secret: false,
    description: 'flow.funds.unavailableAmount: the check must answer FundsAvailable false.',
  }),
  funds({
    key: 'funds_currency',
    source: 'input',
    default: 'GBP',
    secret: false,
    description: 'flow.funds.currency: the currency of both checks.',
  }),
  funds({
    key: 'funds_consent_status',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['funds-consent', 'funds-consent-delete'],
    description: "The funds-confirmation consent's Status as last read (deleted once revoked).",
  }),
  funds({
    key: 'funds_checks',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['funds-confirmation'],
    description: 'JSON array of the funds checks made: {Amount, Currency, FundsAvailable, FundsConfirmationId} (the reports show them).',
  }),
];

/** The VRP family's variables (docs/collections.md, "Variable recurring payments"): the payee (inputs, from
 *  flow.payment.creditorAccount at every run) and what its steps write; the mandate itself (flow.vrp) is in the
 *  collections, whose walk is planned from it. The message-signing variables are the payments family's (variablesOf). */
export const VRP_VARIABLES: readonly VariableSpec[] = [
  vrp({
    key: 'vrp_creditor_scheme',
    source: 'input',
    default: '',
    secret: false,
    description: "flow.payment.creditorAccount.schemeName: the VRP payee's CreditorAccount.SchemeName.",
  }),
  vrp({
    key: 'vrp_creditor_identification',
    source: 'input',
    default: '',
    secret: false,
    description: 'flow.payment.creditorAccount.identification: CreditorAccount.Identification.',
  }),
  vrp({
    key: 'vrp_creditor_name',
    source: 'input',
    default: '',
    secret: false,
    description: 'flow.payment.creditorAccount.name: CreditorAccount.Name.',
  }),
  vrp({
    key: 'vrp_consent_idempotency_key',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-consent'],
    description: 'x-idempotency-key of POST /domestic-vrp-consents, sent again by the replay check.',
  }),
  vrp({
    key: 'vrp_consent_created',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-consent'],
    description: "The consent's CreationDateTime as created (the replay must answer the same consent).",
  }),
  vrp({
    key: 'vrp_control_parameters',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-consent'],
    description: "JSON of the consent's ControlParameters as the bank created it (later reads must answer them unchanged).",
  }),
  vrp({
    key: 'vrp_consent_status',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-consent', 'vrp-funds-check', 'vrp-consent-delete'],
    description: "The VRP consent's Status as last read (the reports show it).",
  }),
  vrp({
    key: 'vrp_idempotency_key',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment', 'vrp-mandate', 'vrp-consent-delete'],
    description: 'x-idempotency-key of the latest POST /domestic-vrps (a fresh one for each payment).',
  }),
  vrp({
    key: 'vrp_instruction_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment', 'vrp-mandate', 'vrp-consent-delete'],
    description: 'InstructionIdentification of the latest payment (fresh for each payment).',
  }),
  vrp({
    key: 'vrp_end_to_end_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment', 'vrp-mandate', 'vrp-consent-delete'],
    description: 'EndToEndIdentification of the latest payment (fresh for each payment).',
  }),
  vrp({
    key: 'vrp_funds_available',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-funds-check'],
    description: "FundsAvailable of the consent's funds confirmation (Available or NotAvailable).",
  }),
  vrp({
    key: 'vrp_payment_id',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment'],
    description: 'DomesticVRPId of the payment the vrp-payment step made.',
  }),
  vrp({
    key: 'vrp_payment_self_url',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment'],
    description: "The payment's Links.Self, where it is read back.",
  }),
  vrp({
    key: 'vrp_payment_created',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment'],
    description: "The payment's CreationDateTime (the replay must answer the same payment).",
  }),
  vrp({
    key: 'vrp_payment_status',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment'],
    description: "The payment's Status as last read.",
  }),
  vrp({
    key: 'vrp_walk',
    source: 'state',
    default: '',
    secret: false,
    writtenBy: ['vrp-payment', 'vrp-mandate'],
    description:
      'JSON array of the payments made under the mandate and the refusals met: {Amount, Outcome, Limit, Status, DomesticVRPId, ErrorCode} (the reports show them).',
  }),
];

/** Every variable a collection may read or write, in contract order. */
export const ENVIRONMENT_VARIABLES: readonly VariableSpec[] = [
  ...BANK_VARIABLES,
  ...INPUT_VARIABLES,
  ...STATE_VARIABLES,
  ...PAYMENT_VARIABLES,
  ...FUNDS_VARIABLES,
  ...VRP_VARIABLES,
];

/** The variables steps write, of every family (the rows with `writtenBy`: STATE_VARIABLES and each family's own state),
 *  each with its writers. A run of one step names the step to run first from them (src/pipeline/run-checks.ts
 *  stepPrerequisites), and a run's summary shows a value as this run's only when its writing step ran
 *  (src/run/summary.ts): both ask here, so a payment's or a mandate's state counts as the account flow's does. */
export const WRITTEN_VARIABLES: readonly (VariableSpec & { writtenBy: readonly string[] })[] = ENVIRONMENT_VARIABLES.flatMap((spec) =>
  spec.writtenBy !== undefined ? [{ ...spec, writtenBy: spec.writtenBy }] : [],
);

/** Every family's state: what a run writes into the environment (a workspace or a fresh environment starts without). */
export const RUN_STATE_VARIABLES: readonly VariableSpec[] = ENVIRONMENT_VARIABLES.filter((spec) => spec.source === 'state');

const WRITERS: ReadonlyMap<string, readonly string[]> = new Map(WRITTEN_VARIABLES.map((spec) => [spec.key, spec.writtenBy]));

/** The steps that write `key` (none when no step does: the bank's environment or the user gives it). */
export function writersOf(key: string): readonly string[] {
  return WRITERS.get(key) ?? [];
}

/** The payments family's variables of message signing (the statement's ids, the trust anchor, the bank's keys and the
 *  signature counts): every family whose row signs messages has them (the VRP family's steps sign as payments' do). */
const SIGNING_VARIABLE_KEYS: ReadonlySet<string> = new Set([
  'orgId',
  'softwareId',
  'jws_tan',
  'bank_jws_iss',
  'bank_jws_jwks_uri',
  'bank_signing_jwks',
  'signatures_checked',
]);

/** The variables of a flow over these families: every family's own, and those every flow has. */
export function variablesOf(families: readonly string[]): VariableSpec[] {
  const signs = familiesOf(families).some((family) => family.signsMessages);
  return ENVIRONMENT_VARIABLES.filter(
    (spec) => spec.family === undefined || families.includes(spec.family) || (signs && SIGNING_VARIABLE_KEYS.has(spec.key)),
  );
}

export const VARIABLE_KEYS: ReadonlySet<string> = new Set(ENVIRONMENT_VARIABLES.map((v) => v.key));

export const SECRET_VARIABLE_KEYS: ReadonlySet<string> = new Set(ENVIRONMENT_VARIABLES.filter((v) => v.secret).map((v) => v.key));
