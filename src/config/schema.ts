// The one config schema: it yields the TypeScript type (ObflowConfig), the defaults, and the published JSON Schema
// (obflow.config.schema.json, generated from it by `obflow config-schema --write` and checked by a test).

import type { input as ZodInput, output as ZodOutput } from 'zod';
import { z } from './zod.js';

import { DEFAULT_MAX_PAGES } from '../generate/flow-defaults.js';
import { BANK_PRESET_NAMES } from './presets.js';
import { SANDBOX_PROFILES } from './profiles.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../client-auth.js';
import {
  DEFAULT_FAPI_PROFILE,
  FAPI_PROFILE_NAMES,
  FAPI_PROFILES,
  profileOfSandboxMode,
  REQUEST_OBJECT_SIGNING_ALGS,
  RESPONSE_TYPES,
  SANDBOX_FAPI_MODES,
  type FapiProfile,
} from '../fapi-profile.js';
import { API_VERSIONS, DEFAULT_API_VERSION } from '../generate/api-versions.js';
import { API_FAMILY_NAMES, DEFAULT_API_FAMILIES, familiesOf, type ApiFamilyName } from '../api-families.js';
import { PAYMENT_DEFAULTS, FUNDS_DEFAULTS, OB_TRUST_ANCHOR, paymentAmountProblem, PAYMENT_TEXT } from './payment.js';
import {
  AUTHENTICATION_METHODS,
  controlParameterProblems,
  DEFAULT_VRP_TYPE,
  INTERACTION_TYPES,
  PERIOD_ALIGNMENTS,
  PERIOD_TYPE_NAMES,
  VRP_CONTROL_DEFAULTS,
  VRP_TYPE_NAMES,
  vrpTypeVersionProblem,
  type PeriodTypeName,
  type VrpTypeName,
} from '../generate/vrp-types.js';

export { SANDBOX_PROFILES, type SandboxProfile } from './profiles.js';
export { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from '../client-auth.js';

/** How config keys are spelt (README "A real bank"; test/unit/config.test.ts holds every key to it). */
export const KEY_NAMING_RULE =
  "Key names: a key that carries a standard's or the bank interface's own name keeps its spelling, snake_case: the " +
  '`bank` section (its addresses are the interface placeholders {base_url}, {sandbox_base_url}, {auth_url}, {token_url}, ' +
  'docs/bank-interface.md) and the registration metadata names of RFC 7591 and OpenID Connect Registration ' +
  '(token_endpoint_auth_method, request_object_signing_alg, registration.refresh_token_grant for the refresh_token grant). ' +
  "obflow's own keys are camelCase (stateDir, flow.responseType). A key in the other spelling is refused with the right one named.";

/** The API families the embedded emulator can serve (`obflow sandbox --apis`): twin of the emulator's
 *  API_FAMILY_NAMES (src/sandbox/contracts.ts), tied by test/unit/sandbox-families.test.ts. */
export const SANDBOX_APIS = ['accounts', 'payments', 'funds', 'vrp'] as const;

const path = (description: string) => z.string().min(1).describe(description);
/** A bank address: mutual TLS needs https. */
const httpsUrl = (description: string) =>
  z
    .url()
    .refine((value) => value.startsWith('https://'), { message: 'must be an https:// address (mutual TLS)' })
    .describe(description);

const transportPem = z
  .strictObject({
    cert: path('Transport certificate (PEM) issued by the directory for the software statement.'),
    key: path('Private key (PEM) of the transport certificate.'),
  })
  .describe('Transport certificate as a PEM certificate and key.');

const transportPfx = z
  .strictObject({
    pfx: path('Transport certificate and key as one PKCS#12 (PFX/P12) file.'),
    passphrase: z.string().optional().describe('Passphrase of the PFX (prefer OBFLOW_IDENTITY__TRANSPORT__PASSPHRASE).'),
  })
  .describe('Transport certificate as a PFX file.');

const identity = z
  .strictObject({
    softwareStatement: path('The software statement assertion (JWT) downloaded from the directory.'),
    transport: z.union([transportPem, transportPfx]),
    signing: z
      .strictObject({
        key: path('Private signing key (PEM) whose public half is in the software statement JWKS.'),
        kid: z.string().min(1).describe('Key id of the signing key, as published in the JWKS.'),
      })
      .describe('Key that signs the registration request (PS256).'),
    directoryRoots: z.array(z.string().min(1)).min(1).describe("The directory's root CA certificates (PEM)."),
    directoryIssuing: z.array(z.string().min(1)).min(1).describe("The directory's issuing CA certificates (PEM)."),
    directoryJwks: path("The directory's public signing keys (JWKS) that verify software statements."),
    redirectUris: z
      .array(z.url())
      .default([])
      .describe('Redirect URIs to use (each must be in the statement); empty means all of the statement.'),
  })
  .describe("The TPP's own identity files; paths are relative to the config file.");

const bank = z
  .strictObject({
    preset: z
      .enum(BANK_PRESET_NAMES)
      .optional()
      .describe("A known bank's published addresses (ozone-model-bank: the UK Open Banking model bank); every key set here overrides it."),
    name: z.string().min(1).default('bank').describe('A short name for the bank, used in file names.'),
    // No schema default: left out it is "sandbox" (resolvedConfig), but a bank that was not said to be a sandbox is not
    // sent payments without flow.payments.allowLiveBank (configProblems).
    environment: z
      .enum(['sandbox', 'production'])
      .optional()
      .describe('Which of the bank environments to call (default: sandbox; set it to "sandbox" to send payments to a bank sandbox).'),
    base_url: httpsUrl('{base_url}: production resource server address.').optional(),
    sandbox_base_url: httpsUrl('{sandbox_base_url}: sandbox resource server address.').optional(),
    auth_url: httpsUrl('{auth_url}: authorisation server address (the issuer); required unless a preset sets it.').optional(),
    token_url: httpsUrl('{token_url}: token endpoint; default: from discovery.').optional(),
    environment_helper_path: z
      .string()
      .startsWith('/')
      .default('/sandbox-helper/v1.0/postman/environment')
      .describe('Path of the environment file helper on the resource server.'),
    registration_aud: z
      .string()
      .min(1)
      .optional()
      .describe('The `aud` of the registration JWT when the bank expects another form than {auth_url} (the model bank: its issuer id).'),
    // No schema default: left out, it follows flow.fapi (resolvedConfig below).
    token_endpoint_auth_method: z
      .enum([...TOKEN_ENDPOINT_AUTH_METHODS, 'auto'])
      .optional()
      .describe(
        'How obflow authenticates at the token endpoint, and registers: client_secret_basic (docs/bank-interface.md §2.1), ' +
          "private_key_jwt, tls_client_auth, or auto (the first of private_key_jwt, tls_client_auth, client_secret_basic the bank's discovery lists). " +
          'Default: the FAPI profile\'s (client_secret_basic; private_key_jwt under flow.fapi "2.0"). Also applies to the embedded sandbox.',
      ),
    tls_client_auth_subject_dn: z
      .string()
      .min(1)
      .optional()
      .describe(
        "tls_client_auth: the subject DN to register (default: the transport certificate's, RFC 4514, most specific first). Set it when the bank writes DNs differently.",
      ),
    server_ca: z.array(z.string().min(1)).default([]).describe("CA certificates (PEM) that verify the bank's servers."),
    insecure: z
      .boolean()
      .default(false)
      .describe("Skip server certificate verification (the spec allows it for the bank's self-signed sandbox)."),
  })
  .describe(
    "A real bank's addresses (docs/bank-interface.md, Placeholders). Its keys keep the interface's snake_case ({auth_url} is bank.auth_url).",
  );

const sandbox = z
  .strictObject({
    profile: z.enum(SANDBOX_PROFILES).default('strict-headless').describe('Which emulator client profile to register with.'),
    seed: z.string().min(1).default('obflow').describe('Seed of the emulated bank data.'),
    resourcePort: z.int().min(0).max(65535).default(0).describe('Resource server port of `obflow sandbox` (0: any free port).'),
    authPort: z.int().min(0).max(65535).default(0).describe('Authorisation server port of `obflow sandbox` (0: any free port).'),
    tokenAuth: z
      .array(z.enum(TOKEN_ENDPOINT_AUTH_METHODS))
      .min(1)
      .default([...TOKEN_ENDPOINT_AUTH_METHODS])
      .describe('Client authentication methods `obflow sandbox` accepts (e.g. private_key_jwt and tls_client_auth, as the bank today).'),
    apiVersions: z
      .array(z.enum(API_VERSIONS))
      .min(1)
      .default([...API_VERSIONS])
      .describe(
        'Versions of the Account and Transaction API the emulator serves side by side (3.1: /open-banking/v3.1/aisp, 4.0: /open-banking/v4.0/aisp); 3.1 alone is docs/bank-interface.md exactly.',
      ),
    apis: z
      .array(z.enum(SANDBOX_APIS))
      .min(1)
      .default(['accounts'])
      .describe(
        'API families the emulator serves: accounts (AIS), payments (PISP domestic payments, /pisp), funds (CBPII confirmation of funds, /cbpii), ' +
          'vrp (domestic variable recurring payments, sweeping and commercial, /pisp); ' +
          'accounts alone is docs/bank-interface.md exactly.',
      ),
    par: z
      .enum(['required', 'optional', 'off'])
      .optional()
      .describe(
        'Pushed authorization requests (RFC 9126) at `obflow sandbox`: required (as FAPI 2.0 banks), optional, or off (default: off; required under sandbox.fapi "2.0").',
      ),
    fapi: z
      .enum(SANDBOX_FAPI_MODES)
      .default('interface')
      .describe(
        'FAPI profile of `obflow sandbox` (docs/sandbox.md, "FAPI modes"): interface (the bank interface as written), ' +
          '1-advanced (code only with JARM), or 2.0 (Security Profile: PAR, PKCE, code, iss).',
      ),
  })
  // A mode certified for a profile that pushes every request (FAPI 2.0) requires PAR, so sandbox.par is absent (then
  // "required") or "required"; a list of methods with none the profile allows leaves no client in. Said once, naming both.
  .transform((value, ctx) => {
    const { par, ...rest } = value;
    const certified = profileOfSandboxMode(value.fapi);
    const mode = `sandbox.fapi "${value.fapi}"`;
    if (certified?.par === 'always' && par !== undefined && par !== 'required') {
      ctx.issues.push({
        code: 'custom',
        input: par,
        path: ['par'],
        message: `is "${par}", but ${mode} requires pushed authorization requests (${certified.clause.par}): leave sandbox.par out or set it to "required"`,
      });
      return z.NEVER;
    }
    if (certified !== undefined && !value.tokenAuth.some((method) => certified.authMethods.includes(method))) {
      ctx.issues.push({
        code: 'custom',
        input: value.tokenAuth,
        path: ['tokenAuth'],
        message: `has only ${value.tokenAuth.join(', ')}, but ${mode} accepts ${certified.authMethods.join(' or ')} (${certified.clause.authMethods}): add one of them`,
      });
      return z.NEVER;
    }
    const resolved: 'required' | 'optional' | 'off' = par ?? (certified?.par === 'always' ? 'required' : 'off');
    return { ...rest, par: resolved };
  })
  .describe('The embedded bank emulator.');

// Scripted consent (docs/pipeline.md, "Consent modes"): the bank's consent pages as steps, each with one action.
const selector = (description: string) => z.string().min(1).describe(description);
const stepName = z.string().min(1).optional().describe('How errors name this step (default: step <n>).');
const consentScriptStep = z
  .union([
    z
      .strictObject({
        name: stepName,
        fill: selector('The field to type into (a Playwright selector: CSS, text=…, role=…).'),
        with: z
          .enum(['username', 'password'])
          .describe("Which of the PSU's credentials to type (from the environment or flow.browser.credentials.file)."),
      })
      .describe('Type the PSU username or password into a field.'),
    z
      .strictObject({ name: stepName, tick: selector('The account checkboxes; those in flow.browser.accounts (default all) are ticked.') })
      .describe('Tick accounts.'),
    z.strictObject({ name: stepName, click: selector('The element to click.') }).describe('Click a button or link.'),
    z
      .strictObject({ name: stepName, waitFor: z.string().min(1).describe('Text that must appear on the page.') })
      .describe('Wait for text.'),
  ])
  .describe('One step of the consent script.');

const browser = z
  .strictObject({
    script: z
      .union([
        z.enum(['sandbox', 'none']),
        z.strictObject({
          steps: z
            .array(consentScriptStep)
            .min(1)
            .describe('The steps, in order; after the last one the bank must redirect to the redirect URI.'),
          errorSelector: selector(
            "Where the bank's pages show an error (e.g. [role=alert]): it ends the consent with the bank's words.",
          ).optional(),
        }),
      ])
      .optional()
      .describe(
        '"sandbox": the embedded sandbox\'s pages (the default with target "sandbox"); "none": a person consents in a window (the default with a bank); or the bank\'s pages as steps.',
      ),
    accounts: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Accounts a tick step ticks: AccountIds or name substrings (default: all offered).'),
    headless: z
      .boolean()
      .optional()
      .describe('Default: headless with a script, a visible window without one (needs DISPLAY or WAYLAND_DISPLAY).'),
    executablePath: z.string().min(1).default('/usr/bin/chromium').describe('The Chromium (or Chrome) that browser consent starts.'),
    timeoutSeconds: z.int().min(1).max(86_400).default(300).describe('How long the PSU (or the script) has to reach the redirect URI.'),
    stepTimeoutSeconds: z.int().min(1).max(3_600).default(30).describe('How long one script step waits for its element.'),
    credentials: z
      .strictObject({
        usernameEnv: z.string().min(1).default('OBFLOW_PSU_USERNAME').describe("Environment variable holding the PSU's username."),
        passwordEnv: z.string().min(1).default('OBFLOW_PSU_PASSWORD').describe("Environment variable holding the PSU's password."),
        file: path(
          'A secret JSON file { "username": …, "password": … } (used where the variables are unset); never the config file.',
        ).optional(),
      })
      .prefault({})
      .describe("Where a bank's script finds the PSU's credentials (never in the config file). The sandbox uses its test users."),
  })
  .describe('Browser consent (flow.consent "browser").');

// The payment the payments family makes and the checks the funds family asks (docs/collections.md, "Payments"): their
// values go into the environment at every run (src/pipeline/family-inputs.ts), so the collections carry none.
const amount = (description: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      const problem = paymentAmountProblem(value);
      if (problem !== undefined) ctx.issues.push({ code: 'custom', input: value, message: problem });
    })
    .describe(description);
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code of three capital letters (ActiveOrHistoricCurrencyCode), e.g. "GBP"');
/** A value written inside a JSON string of a signed body: no quote, backslash, control character or `{{`. */
const text = (max: number, description: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(PAYMENT_TEXT, 'must not hold a double quote, a backslash, braces or a control character')
    .describe(description);
const accountIdentification = z.strictObject({
  schemeName: text(40, 'The scheme of the identification (OBExternalAccountIdentification4Code), e.g. UK.OBIE.SortCodeAccountNumber.'),
  identification: text(256, 'The identification in that scheme (a sort code and account number: 14 digits).'),
  name: text(350, 'The name of the account holder, as the account is held.'),
});

const payment = z
  .strictObject({
    amount: amount('InstructedAmount.Amount: a positive decimal with at most 5 decimals (OBActiveCurrencyAndAmount_SimpleType).').default(
      PAYMENT_DEFAULTS.amount,
    ),
    currency: currency.default(PAYMENT_DEFAULTS.currency).describe('InstructedAmount.Currency (a domestic payment: GBP).'),
    creditorAccount: accountIdentification.default(PAYMENT_DEFAULTS.creditorAccount).describe('The payee (CreditorAccount).'),
    reference: text(35, 'RemittanceInformation Reference (v4.0: Structured CreditorReferenceInformation.Reference).').default(
      PAYMENT_DEFAULTS.reference,
    ),
  })
  .describe('The domestic payment the payments flow makes (flow.apis "payments"); the defaults pay a sandbox payee 10.00 GBP.');

const payments = z
  .strictObject({
    allowLiveBank: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Payments at target "bank" go only to a bank said to be a sandbox (bank.environment "sandbox"); to pay at another on purpose, name it here (its bank.name).',
      ),
  })
  .describe('What a flow that moves money may do (flow.apis "payments").');

const messageSigning = z
  .strictObject({
    tan: z
      .string()
      .min(1)
      .default(OB_TRUST_ANCHOR)
      .describe(
        'The trust anchor of the signing keys, http://openbanking.org.uk/tan of the signatures (OB R/W Data API Profile, "Message Signing").',
      ),
    bankIss: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The bank's http://openbanking.org.uk/iss on its signed answers (default: its obParticipantId, the {org-id} of the profile).",
      ),
    bankJwksUri: httpsUrl(
      "Where the bank publishes the keys of its signed answers when not at discovery's jwks_uri (e.g. the directory's keystore).",
    ).optional(),
  })
  .describe("Message signing: obflow signs its payment requests and checks the bank's signed answers (x-jws-signature).");

const funds = z
  .strictObject({
    debtorAccount: accountIdentification
      .extend({ name: text(350, 'The name of the account holder (optional).').optional() })
      .optional()
      .describe(
        "The PSU's account the funds are checked on (the consent's DebtorAccount; required for a bank; the sandbox's PSU's current account by default).",
      ),
    availableAmount: amount('An amount the account holds: the check must answer FundsAvailable true.').default(
      FUNDS_DEFAULTS.availableAmount,
    ),
    unavailableAmount: amount('An amount beyond the balance and overdraft: the check must answer FundsAvailable false.').default(
      FUNDS_DEFAULTS.unavailableAmount,
    ),
    currency: currency.default(FUNDS_DEFAULTS.currency).describe("The currency of both checks (the account's)."),
  })
  .describe('The confirmation of funds flow (flow.apis "funds").');

// The VRP family's mandate (docs/collections.md, "Variable recurring payments"): the standard's
// OBDomesticVRPControlParameters under its own names (a standard's names keep their spelling, KEY_NAMING_RULE); the rules
// between members are controlParameterProblems (src/generate/vrp-types.ts), run in configProblems below.
const vrpMoney = z.strictObject({
  Amount: z.string().describe('A positive decimal with at most 5 decimals, as text (OBActiveCurrencyAndAmount_SimpleType), e.g. "10.00".'),
  Currency: currency.describe('ActiveOrHistoricCurrencyCode, e.g. "GBP" (one currency for the whole mandate).'),
});
const vrpDateTime = (description: string) =>
  z.iso.datetime({ offset: true }).describe(`${description} An ISO 8601 date-time with a time zone, e.g. "2026-01-01T00:00:00+00:00".`);
const controlParameters = z
  .strictObject({
    ValidFromDateTime: vrpDateTime('The first day payments may be made (its time is disregarded).').optional(),
    ValidToDateTime: vrpDateTime('The last day payments may be made (its time is disregarded).').optional(),
    MaximumIndividualAmount: vrpMoney.describe('The most a single payment may be.'),
    PeriodicLimits: z
      .array(
        vrpMoney.extend({
          PeriodType: z
            .enum(PERIOD_TYPE_NAMES as [PeriodTypeName, ...PeriodTypeName[]])
            .describe('Day, Week, Fortnight, Month, Half-year or Year.'),
          PeriodAlignment: z
            .enum(PERIOD_ALIGNMENTS)
            .describe("Consent (periods from the consent's creation) or Calendar (pro-rated first period)."),
        }),
      )
      .describe('The most the payments of one period may add up to, one entry per period (at least one).'),
    PSUAuthenticationMethods: z.array(z.enum(AUTHENTICATION_METHODS)).min(1).describe('UK.OBIE.SCA and/or UK.OBIE.SCANotRequired.'),
    PSUInteractionTypes: z.array(z.enum(INTERACTION_TYPES)).min(1).optional().describe('InSession and/or OffSession.'),
  })
  .describe(
    'OBDomesticVRPControlParameters of the consent (VRPType is flow.vrp.type); the mandate walk is planned from it. Default: 10.00 GBP a payment, 25.00 GBP a consent-aligned day, SCANotRequired.',
  );
const vrp = z
  .strictObject({
    type: z
      .enum(VRP_TYPE_NAMES as [VrpTypeName, ...VrpTypeName[]])
      .default(DEFAULT_VRP_TYPE)
      .describe('VRPType: Sweeping (default), Other (v3.1 and v4.0), or the commercial CVRP1, CVRP2, CVRP3 (v4.0, OBL cVRP).'),
    controlParameters: controlParameters.default(VRP_CONTROL_DEFAULTS),
  })
  .describe(
    'The variable recurring payments flow (flow.apis "vrp"): the mandate asked, walked and revoked; its payee is flow.payment.creditorAccount.',
  );

const flow = z
  .strictObject({
    apis: z
      .array(z.enum(API_FAMILY_NAMES as [ApiFamilyName, ...ApiFamilyName[]]))
      .min(1)
      .default([...DEFAULT_API_FAMILIES])
      .transform((names) => familiesOf(names).map((family) => family.name))
      .describe(
        'API families the flow covers: accounts (AIS), payments (PISP domestic payments, signed and idempotent), funds (CBPII confirmation of funds); ' +
          '`--apis` wins. The registration asks for their scopes.',
      ),
    payment: payment.prefault({}),
    payments: payments.prefault({}),
    messageSigning: messageSigning.prefault({}),
    funds: funds.prefault({}),
    vrp: vrp.prefault({}),
    // No schema default: left out, it follows flow.fapi (resolvedConfig below).
    responseType: z
      .enum(RESPONSE_TYPES)
      .optional()
      .describe('OIDC response type of the PSU consent (default: the FAPI profile\'s: "code id_token"; "code" under flow.fapi "2.0").'),
    consent: z
      .enum(['auto', 'headless', 'browser', 'manual'])
      .default('auto')
      .describe(
        'How the PSU consents: headless (one redirect), browser (Chromium: a consent script, or the PSU in a window), manual ' +
          '(you open the consent URL and paste the redirect back), auto (from the sandbox profile; headless for a bank).',
      ),
    psuUser: z.string().min(1).optional().describe('Test user who consents (login_hint; the browser logs in as them).'),
    request_object_signing_alg: z
      .enum(REQUEST_OBJECT_SIGNING_ALGS)
      .optional()
      .describe(
        'The request object of the consent URL: none (docs/bank-interface.md §2.1) or PS256 (FAPI 1 Advanced Part 2 §5.2.2), registered as request_object_signing_alg ' +
          '(default: the FAPI profile\'s: none; PS256 under flow.fapi "2.0").',
      ),
    apiVersion: z
      .enum(API_VERSIONS)
      .default(DEFAULT_API_VERSION)
      .describe(
        'Which Account and Transaction API version the collections speak: 3.1 (docs/bank-interface.md) or 4.0 (OBL Read/Write v4.0, ISO 20022 codes); `--api-version` wins.',
      ),
    maxPages: z.int().min(1).max(10_000).default(DEFAULT_MAX_PAGES).describe('Guard against endless transaction paging.'),
    allowSkips: z
      .boolean()
      .default(true)
      .describe(
        'A step that did not run (skipped, with its reason: e.g. refresh when the bank issued no refresh token) leaves the run ' +
          'passing; false (`run --no-skips`) fails the run on it (ERR_RUN_SKIPPED), for CI where every step must run.',
      ),
    par: z
      .enum(['auto', 'always', 'never'])
      .default('auto')
      .describe(
        'Pushed authorization requests (RFC 9126) with PKCE S256 in the psu-consent step: always, never, or auto (when the target requires them: ' +
          'the discovery register/environment read says require_pushed_authorization_requests, or the embedded sandbox requires them; always under flow.fapi "2.0").',
      ),
    jarm: z
      .boolean()
      .default(false)
      .describe(
        'JARM for responseType "code" (FAPI 1 Advanced §5.2.2-2): ask response_mode=jwt and verify the response JWT (signature, iss, aud, exp) before taking the code.',
      ),
    fapi: z
      .enum(FAPI_PROFILE_NAMES)
      .default(DEFAULT_FAPI_PROFILE)
      .describe(
        'The FAPI profile the flow speaks (src/fapi-profile.ts): 1-advanced (FAPI 1 Advanced, as today) or 2.0 (FAPI 2.0 Security Profile: PAR + PKCE S256, ' +
          'responseType "code", the iss response parameter of RFC 9207 checked, private_key_jwt or tls_client_auth, certificate-bound tokens, ' +
          'client assertions with aud = the issuer, PS256 request objects). A setting left out follows the profile; one that contradicts it is refused.',
      ),
    browser: browser.prefault({}),
  })
  .describe('The flow: its API families, versions, consent and FAPI profile, and what each family sends.');

const registration = z
  .strictObject({
    refresh_token_grant: z
      .boolean()
      .default(false)
      .describe(
        'Also ask for the refresh_token grant in grant_types (RFC 7591 §2). Off by default: docs/bank-interface.md §2.1 lists ' +
          'exactly authorization_code and client_credentials, and the bank issues refresh tokens to such clients anyway ' +
          '(`obflow sandbox --refresh-tokens as-registered` models a bank that does not).',
      ),
  })
  .describe('The dynamic client registration request (docs/bank-interface.md §2.1); its keys are named after RFC 7591 metadata.');

const output = z
  .strictObject({
    collections: z.string().min(1).default('collections').describe('Where `obflow generate` writes collections.'),
    reports: z.string().min(1).optional().describe('Where `obflow run` writes reports (default: <stateDir>/reports).'),
  })
  .describe('Output folders; relative to the config file.');

const configObject = z
  .strictObject({
    $schema: z.string().optional(),
    target: z
      .enum(['sandbox', 'bank'])
      .default('sandbox')
      .describe('sandbox: the embedded emulator with the local identity; bank: the addresses in `bank`.'),
    stateDir: z.string().min(1).default('.obflow').describe('State folder: identity, registrations, environment (secrets).'),
    sandbox: sandbox.prefault({}),
    bank: bank.optional(),
    identity: identity.optional(),
    flow: flow.prefault({}),
    registration: registration.prefault({}),
    output: output.prefault({}),
  })
  .describe(`obflow configuration (obflow.config.json). ${KEY_NAMING_RULE}`);
type ParsedConfig = ZodOutput<typeof configObject>;

export const configSchema = configObject.transform((config, ctx) => {
  const fapi = FAPI_PROFILES[config.flow.fapi];
  const problems = [...configProblems(config, fapi), ...fapiProblems(config, fapi)];
  for (const { path, message } of problems) ctx.issues.push({ code: 'custom', input: config, path, message });
  return problems.length > 0 ? z.NEVER : resolvedConfig(config, fapi);
});

interface Problem {
  path: string[];
  message: string;
}

function configProblems(config: ParsedConfig, fapi: FapiProfile): Problem[] {
  const problems: Problem[] = [];
  if (config.target === 'bank') {
    if (!config.bank) problems.push({ path: ['bank'], message: 'is required when target is "bank"' });
    if (!config.identity) problems.push({ path: ['identity'], message: 'is required when target is "bank"' });
    if (config.bank && config.bank.auth_url === undefined)
      problems.push({ path: ['bank', 'auth_url'], message: 'is required (or a bank.preset that sets it)' });
  }
  // Money is moved only where the config says the bank is a sandbox, or names the bank it may move money at.
  const mover = familiesOf(config.flow.apis).find((family) => family.movesMoney);
  if (config.target === 'bank' && config.bank !== undefined && mover !== undefined && config.bank.environment !== 'sandbox') {
    const name = config.bank.name;
    if (config.flow.payments.allowLiveBank !== name) {
      const which =
        config.bank.environment === 'production' ? 'bank.environment is "production"' : 'bank.environment does not say "sandbox"';
      problems.push({
        path: ['flow', 'payments', 'allowLiveBank'],
        message:
          config.flow.payments.allowLiveBank === undefined
            ? `is not set, but flow.apis has ${mover.name} and ${which}: a payment there may be real; ` +
              `set bank.environment to "sandbox" for a bank sandbox, or flow.payments.allowLiveBank to "${name}" to pay at ${name} on purpose`
            : `is "${config.flow.payments.allowLiveBank}", but the bank is "${name}" (bank.name): set it to "${name}" to pay there on purpose`,
      });
    }
  }
  // JARM collections ask response_mode=jwt for code only.
  // The mandate's rules, and a VRPType the version's files define (src/generate/vrp-types.ts).
  if (config.flow.apis.includes('vrp')) {
    const vrpProblems = [
      vrpTypeVersionProblem(config.flow.vrp.type, [config.flow.apiVersion]),
      ...controlParameterProblems(config.flow.vrp.type, config.flow.vrp.controlParameters),
    ];
    for (const problem of vrpProblems)
      if (problem !== undefined) problems.push({ path: ['flow', 'vrp', ...problem.path], message: problem.message });
  }
  if (config.flow.jarm && (config.flow.responseType ?? fapi.defaults.responseType) !== 'code')
    problems.push({ path: ['flow', 'jarm'], message: 'asks JARM for flow.responseType "code" only; set flow.responseType to "code"' });
  return problems;
}

/**
 * What the FAPI profile cannot work with, each naming both settings: a response type, a
 * client authentication method or JARM the row does not allow, flow.par "never" under a profile that always pushes.
 * Only what the user set is refused: a key left out follows the profile (resolvedConfig), as oidc-provider's FAPI
 * profiles fill what their clients leave unset.
 */
function fapiProblems(config: ParsedConfig, fapi: FapiProfile): Problem[] {
  const problems: Problem[] = [];
  const problem = (message: string) => problems.push({ path: ['flow', 'fapi'], message: `"${fapi.name}" ${message}` });
  const { responseType } = config.flow;
  const method = config.bank?.token_endpoint_auth_method;
  if (responseType !== undefined && !fapi.responseTypes.includes(responseType))
    problem(
      `allows flow.responseType ${quoted(fapi.responseTypes)} only (${fapi.clause.responseTypes}), not "${responseType}"; set flow.responseType to "${fapi.defaults.responseType}" or leave it out`,
    );
  if (fapi.par === 'always' && config.flow.par === 'never')
    problem(`needs pushed authorization requests (${fapi.clause.par}), not flow.par "never"; set flow.par to "auto" or "always"`);
  if (method !== undefined && method !== 'auto' && !fapi.authMethods.includes(method))
    problem(
      `allows ${fapi.authMethods.join(' or ')} only (${fapi.clause.authMethods}), not bank.token_endpoint_auth_method "${method}"; ` +
        'set bank.token_endpoint_auth_method to one of them or leave it out',
    );
  if (config.flow.jarm && !fapi.jarm) {
    const jarmProfiles = FAPI_PROFILE_NAMES.filter((name) => FAPI_PROFILES[name].jarm);
    problem(`does not take flow.jarm (${fapi.clause.jarm}); flow.jarm is for ${quoted(jarmProfiles)}: set flow.jarm to false`);
  }
  return problems;
}

const quoted = (values: readonly string[]): string => values.map((value) => `"${value}"`).join(' or ');

/** The config as the stages take it: flow.fapi is the profile's row, and every key the profile implies where the user
 *  set nothing (flow.responseType, flow.request_object_signing_alg, bank.token_endpoint_auth_method) is the row's. */
function resolvedConfig(config: ParsedConfig, fapi: FapiProfile) {
  const { defaults } = fapi;
  return {
    ...config,
    bank:
      config.bank === undefined
        ? undefined
        : {
            ...config.bank,
            environment: config.bank.environment ?? ('sandbox' as const),
            token_endpoint_auth_method: config.bank.token_endpoint_auth_method ?? defaults.tokenEndpointAuthMethod,
          },
    flow: {
      ...config.flow,
      fapi,
      responseType: config.flow.responseType ?? defaults.responseType,
      request_object_signing_alg: config.flow.request_object_signing_alg ?? defaults.requestObjectSigningAlg,
    },
  };
}

export type ObflowConfig = ZodOutput<typeof configSchema>;
export type ObflowConfigInput = ZodInput<typeof configSchema>;
export type IdentityConfig = NonNullable<ObflowConfig['identity']>;
export type BankConfig = NonNullable<ObflowConfig['bank']>;

/** The JSON Schema editors use for autocompletion (written to obflow.config.schema.json). */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: 'https://obflow.dev/obflow.config.schema.json', title: 'obflow configuration' };
}
