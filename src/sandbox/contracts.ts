// The seams inside the bank emulator: what the authorisation side (auth/) and the resource side (resource/) share.
// Both sides are wired together only in src/sandbox/index.ts (startSandbox). Nothing outside src/sandbox imports this.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PeerCertificate } from 'node:tls';

import type { Bank } from './data/bank.js';
import type { FapiMode } from './auth/fapi.js';

/** The four client profiles of the sandbox (docs/bank-interface.md §1): each has its own issuer / {auth_url}. */
export const PROFILE_NAMES = ['strict-headless', 'strict-interactive', 'permissive-headless', 'permissive-interactive'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** A profile's rules are its tolerances (src/sandbox/policy.ts: strict profiles have none, permissive ones tolerate
 *  common client mistakes, never unsafe ones); what is left is how the PSU consents. */
export interface Profile {
  name: ProfileName;
  /** headless: one GET of the consent URL redirects with a code; interactive: real login and consent pages. */
  consent: 'headless' | 'interactive';
}

/** The bank's x-fapi-financial-id (OB organisation id of the ASPSP): what the TPP sends, what the environment
 *  helper publishes as obParticipantId. */
export const BANK_FINANCIAL_ID = '0015800001041RHAAY';

export function profileOf(name: ProfileName): Profile {
  const consent = name.endsWith('-interactive') ? 'interactive' : 'headless';
  return { name, consent };
}

/** Every address the sandbox serves; printed by `obflow sandbox --json`. */
export interface SandboxUrls {
  /** {sandbox_base_url}: resource server origin (registration, environment helper, AIS API). */
  sandbox_base_url: string;
  /** {sandbox_base_url}/dynamic-client-registration/v3.2/register */
  registration_endpoint: string;
  /** {sandbox_base_url}/sandbox-helper/v1.0/postman/environment (takes ?client_id=) */
  environment_helper: string;
  /** {sandbox_base_url}/open-banking/v3.1/aisp */
  aisp_base_url: string;
  /** Per profile: {auth_url} (the issuer), its token endpoint and discovery document. */
  profiles: Record<ProfileName, { auth_url: string; token_url: string; discovery_url: string; authorization_endpoint: string }>;
}

export interface SandboxHandle {
  urls: SandboxUrls;
  /** The FAPI mode it runs in (SandboxOptions.fapi resolved), for its start line. */
  fapi: FapiMode;
  close(): Promise<void>;
}

// ---- What the TPP side must agree on (copied there, not imported: the two rooms meet only on the wire) -------------
// PROFILE_NAMES above (src/config/profiles.ts SANDBOX_PROFILES), the test users (data/users.ts TEST_USERS;
// src/pipeline/target.ts SANDBOX_TEST_USERS) and the environment helper's file (below; src/environment/merge.ts).
// test/unit/sandbox-contracts.test.ts compares each pair: values, and the types assignable both ways.

/** One entry of the environment helper's Postman environment (Postman v2.1 environment). */
export interface PostmanEnvironmentValue {
  key: string;
  value: string;
  type: 'default' | 'secret';
  enabled: boolean;
}

/** The environment helper's answer (bank-interface §4.2). */
export interface PostmanEnvironment {
  id: string;
  name: string;
  values: PostmanEnvironmentValue[];
  _postman_variable_scope: 'environment';
}

// ---- Consents (account-access, domestic-payment and funds-confirmation consents) ---------------------------------

/**
 * The status of a consent of any kind, in the v3.1 names (each version's own words come from its table, e.g.
 * resource/v4-codes.ts CONSENT_STATUS): AwaitingAuthorisation → Authorised | Rejected; Authorised → Consumed (a
 * payment consent its payment used, PISP v3.1.11 / v4.0 "COND") or Revoked (deleted by the TPP). store/consents.ts
 * holds which transitions each kind has.
 */
export type ConsentStatus = 'AwaitingAuthorisation' | 'Authorised' | 'Rejected' | 'Revoked' | 'Consumed';

/** The kinds of consent the bank keeps, one per API family (families.ts): what the PSU authorises at the pages. */
export const CONSENT_KINDS = ['account-access', 'domestic-payment', 'funds-confirmation', 'domestic-vrp'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/** What every consent has, whatever its kind. Field names on the wire are the OBIE ones. */
export interface ConsentCommon {
  ConsentId: string;
  /** The client (TPP registration) that created it with a client-credentials token. */
  clientId: string;
  Status: ConsentStatus;
  CreationDateTime: string;
  StatusUpdateDateTime: string;
  ExpirationDateTime?: string;
  /** Set when the PSU authorises: which test user, and which of their accounts they selected (for a payment or a
   *  funds-confirmation consent, the one account it debits or checks). */
  psuId?: string;
  accountIds?: string[];
  /** The API version it was created on; absent: 3.1 (consents stored before v4.0 was served). */
  apiVersion?: AisApiVersion;
}

/** One account-access consent (AIS v3.1 account-access-consents) as the bank stores it. */
export interface ConsentRecord extends ConsentCommon {
  /** Absent on account-access consents (every consent stored before other kinds existed is one). */
  kind?: 'account-access';
  Permissions: string[];
  TransactionFromDateTime?: string;
  TransactionToDateTime?: string;
}

/** An OBCashAccount: the account identification a payment or funds-confirmation consent names. */
export interface CashAccount {
  SchemeName: string;
  Identification: string;
  Name?: string;
  SecondaryIdentification?: string;
}

/**
 * One domestic-payment consent (PISP domestic-payment-consents): the request as the TPP sent it (every member the
 * version defines; the response "contains the full original payload from the request", v4.0 domestic-payment-consents
 * "Domestic Payment Consent - Response"), and what the bank derived from it.
 */
export interface PaymentConsentRecord extends ConsentCommon {
  kind: 'domestic-payment';
  /** OBWriteDomesticConsent4 Data less ConsentId-like members: ReadRefundAccount?, Initiation, Authorisation?, SCASupportData?. */
  Data: Record<string, unknown>;
  Risk: Record<string, unknown>;
  /** InstructedAmount in minor units (pence): the funds checks and the debit use it. */
  amountMinor: number;
  /** The payment made with it (Consumed). */
  paymentId?: string;
}

/** One funds-confirmation consent (CBPII funds-confirmation-consents). */
export interface FundsConsentRecord extends ConsentCommon {
  kind: 'funds-confirmation';
  DebtorAccount: CashAccount;
}

/**
 * A variable recurring payment mandate's limits, read once from its ControlParameters when the consent is created (VRP
 * v4.0 domestic-vrp-consents, OBDomesticVRPControlParameters; the same in v3.1.11), amounts in minor units: what every
 * payment under it is checked against (resource/vrp-limits.ts).
 */
export interface VrpMandate {
  /** VRPType: the types of payment it allows (UK.OBIE.VRPType.*). */
  vrpTypes: string[];
  /** PSUAuthenticationMethods (UK.OBIE.SCA, UK.OBIE.SCANotRequired). */
  authenticationMethods: string[];
  /** PSUInteractionTypes (InSession, OffSession); absent: any. */
  interactionTypes?: string[];
  /** ValidFromDateTime / ValidToDateTime as instants (UTC ISO); absent: from creation, open-ended. */
  validFrom?: string;
  validTo?: string;
  /** The currency of MaximumIndividualAmount and every periodic limit. */
  currency: string;
  maximumIndividualMinor: number;
  periodicLimits: { PeriodType: string; PeriodAlignment: string; amountMinor: number }[];
}

/** One domestic VRP consent (VRP domestic-vrp-consents): the request as kept (the answer echoes it), and its mandate. */
export interface VrpConsentRecord extends ConsentCommon {
  kind: 'domestic-vrp';
  /** OBDomesticVRPConsentRequest Data: ReadRefundAccount?, ControlParameters, Initiation. */
  Data: Record<string, unknown>;
  Risk: Record<string, unknown>;
  mandate: VrpMandate;
}

export type AnyConsentRecord = ConsentRecord | PaymentConsentRecord | FundsConsentRecord | VrpConsentRecord;

/** The kind of a stored consent (a record without `kind` is an account-access consent). */
export function consentKindOf(consent: AnyConsentRecord): ConsentKind {
  return consent.kind ?? 'account-access';
}

export interface ConsentStore {
  create(record: AnyConsentRecord): Promise<AnyConsentRecord>;
  get(consentId: string): Promise<AnyConsentRecord | undefined>;
  /** AwaitingAuthorisation → Authorised. Throws ConsentStateError from any other state. */
  authorise(consentId: string, psuId: string, accountIds: string[], now: Date): Promise<AnyConsentRecord>;
  /** AwaitingAuthorisation → Rejected (PSU cancelled). Throws ConsentStateError from any other state. */
  reject(consentId: string, now: Date): Promise<AnyConsentRecord>;
  /** Authorised or AwaitingAuthorisation → Revoked (DELETE by the TPP), for the kinds that have it. Throws
   *  ConsentStateError otherwise. */
  revoke(consentId: string, now: Date): Promise<AnyConsentRecord>;
}

export class ConsentStateError extends Error {
  override readonly name = 'ConsentStateError';
  constructor(
    readonly consentId: string,
    readonly status: ConsentStatus | 'missing',
    readonly wanted: ConsentStatus,
  ) {
    super(`consent ${consentId} is ${status}; cannot become ${wanted}`);
  }
}

/** A file of the data directory that cannot be read (damaged, truncated, another format): the sandbox refuses to
 *  start rather than fail request by request. The CLI turns it into ERR_SANDBOX_DATA naming `file`. */
export class SandboxDataError extends Error {
  override readonly name = 'SandboxDataError';
  constructor(
    readonly file: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${file} cannot be read: ${problem}`, options);
  }
}

/** A native module of the emulator (better-sqlite3) that this Node.js cannot load: built for another runtime or
 *  platform, or never built. The data is not at fault; the CLI turns it into ERR_NATIVE_MODULE naming `module`. */
export class SandboxNativeModuleError extends Error {
  override readonly name = 'SandboxNativeModuleError';
  constructor(
    readonly module: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${module} cannot be loaded: ${problem}`, options);
  }
}

// ---- Clients and tokens (owned by auth/, read by resource/) ---------------------------------------------------

/** A registered TPP client as the resource side needs to know it. */
export interface SandboxClient {
  clientId: string;
  profile: ProfileName;
  softwareId: string;
  orgId: string;
  redirectUris: string[];
  /** SHA-256 thumbprints (base64url, as x5t#S256) of transport certificates allowed for this client. */
  certificateThumbprints: string[];
  /** The software statement's public keys (software_jwks): the keys a signed request's `kid` must name (OB R/W Data
   *  API Profile v4.0, "Message Signing": the key is one lodged with the Trust Anchor for this software statement). */
  signingKeys: { keys: Record<string, unknown>[] };
}

export interface ClientDirectory {
  get(clientId: string): Promise<SandboxClient | undefined>;
}

/** What the resource server learns from an access token (RFC 7662 introspection, in process). */
export interface AccessTokenInfo {
  clientId: string;
  profile: ProfileName;
  /** client_credentials tokens may create consents; authorization_code tokens may read account data. */
  grant: 'client_credentials' | 'authorization_code';
  scopes: string[];
  /** For authorization_code (and refreshed) tokens: the consent the PSU authorised (openbanking_intent_id). */
  consentId?: string;
  /** RFC 8705 cnf.x5t#S256 of the certificate the token was issued to. */
  certificateThumbprint?: string;
  expiresAt: Date;
}

/**
 * RFC 8705 §3 (FAPI 1 Advanced Part 2 §6.2.1-1): the access token was issued to the certificate presented on this
 * connection (its cnf.x5t#S256). The one binding check of the emulator: the AIS calls ask it (unless a profile
 * tolerates access-token-unbound) and DCR management asks it in every profile.
 */
export function isBoundToPresentedCertificate(
  token: Pick<AccessTokenInfo, 'certificateThumbprint'>,
  ctx: Pick<RequestContext, 'peerThumbprint'>,
): boolean {
  return token.certificateThumbprint !== undefined && token.certificateThumbprint === ctx.peerThumbprint;
}

export interface TokenVerifier {
  /** undefined when the token is unknown, expired or revoked. */
  verify(accessToken: string): Promise<AccessTokenInfo | undefined>;
}

// ---- HTTP plumbing shared by both origins ----------------------------------------------------------------------

/** Per-request context the top-level server builds before dispatching to a side. */
export interface RequestContext {
  /** The TLS peer certificate if the client presented one (empty object from Node otherwise → undefined here). */
  peerCertificate: PeerCertificate | undefined;
  /** True when the presented certificate chains to the directory's issuing CA (socket.authorized). */
  peerAuthorized: boolean;
  /** x5t#S256 of the presented certificate (base64url SHA-256 of the DER), when one was presented. */
  peerThumbprint: string | undefined;
  /** x-fapi-interaction-id echoed from the request, or a fresh UUID. */
  interactionId: string;
  /** The request target, parsed once by the server (index.ts serve) before any handler runs; a target that does not
   *  parse (`//`, `//[`, `/\`) is answered 400 there and never reaches a handler. Handlers read this, never req.url. */
  url: RequestTarget;
  /** Filled in by handlers so the one-line request log can name the client (undefined until one does). */
  clientId: string | undefined;
  now(): Date;
}

/**
 * A parsed request target as handlers read it: a WHATWG URL, offered without its setters. serve.ts keeps the
 * resource origin's recent targets parsed and hands the same one to every request for that target (a keep-alive
 * client asks for the same few paths over and over), so no handler may change it, and this type lets none.
 */
export interface RequestTarget {
  readonly pathname: string;
  readonly search: string;
  readonly searchParams: ReadonlySearchParams;
}

/** URLSearchParams without append, delete, set and sort. */
export type ReadonlySearchParams = Pick<
  URLSearchParams,
  'get' | 'getAll' | 'has' | 'forEach' | 'keys' | 'values' | 'entries' | 'toString'
> &
  Iterable<[string, string]>;

export type SandboxHandler = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => Promise<void>;

/**
 * The Account and Transaction API versions the emulator can serve side by side: 3.1 is
 * docs/bank-interface.md; 4.0 the OBL Read/Write v4.0 API over the same bank. Twin of the TPP side's API_VERSIONS
 * (src/generate/api-versions.ts), tied by test/unit/api-versions.test.ts.
 */
export const AIS_API_VERSIONS = ['3.1', '4.0'] as const;
export type AisApiVersion = (typeof AIS_API_VERSIONS)[number];

/**
 * The API families the emulator can serve (families.ts has one row each: base paths, routes, scope, role, consent
 * kind): `accounts` (AIS, the interface's), `payments` (PISP domestic payments), `funds` (CBPII confirmation of funds),
 * `vrp` (domestic variable recurring payments, sweeping and commercial). Twin of the config's SANDBOX_APIS
 * (src/config/schema.ts), tied by test/unit/sandbox-families.test.ts.
 */
export const API_FAMILY_NAMES = ['accounts', 'payments', 'funds', 'vrp'] as const;
export type ApiFamilyName = (typeof API_FAMILY_NAMES)[number];

/** Options of startSandbox; every seam injectable, every field has a default in index.ts. */
export interface SandboxOptions {
  /** Server certificate and key (PEM), from the local trust directory. */
  serverCertificate: string;
  serverKey: string;
  /** Trust anchors for client certificates: the directory's issuing CA (and root), PEM. */
  clientCa: string[];
  /** The directory's public JWKS: verifies software statement assertions. */
  directoryJwks: { keys: Record<string, unknown>[] };
  /** Where clients, consents, grants and tokens persist. Required: tests and the demo pass a fresh temp dir. */
  dataDir: string;
  /** The ID-token signing key (a private RSA JWK with kid, alg PS256) instead of the data folder's keys.json, which is
   *  then neither read nor written: the demo's emulator starts on a fresh folder each time and keeps its key in the
   *  state folder (src/state/embedded-sandbox.ts). */
  idTokenKey?: Record<string, unknown>;
  /** Listen address; the URLs use it too. Default 127.0.0.1. */
  host?: string;
  /** Default 0 for both (tests). `obflow sandbox` may fix them. */
  resourcePort?: number;
  authPort?: number;
  /** Seed of the generated bank data (users' accounts and transactions). */
  seed?: string;
  now?: () => Date;
  /** Fresh ids (client_id, ConsentId); default crypto.randomUUID. Secrets (client secrets, codes, tokens) are always
   *  random and never come from here. */
  newId?: () => string;
  /** One line per request (already redacted). Default: silent. */
  log?: (line: string) => void;
  /** Also log bodies (secrets masked). */
  verbose?: boolean;
  /** How often expired tokens, codes, interactions, jtis and consents are pruned while running (besides once at
   *  start). Default 60 000 ms; tests shorten it. */
  pruneIntervalMs?: number;
  /** How the PSU login and consent pages look (docs/sandbox.md, "Page skins"); default `default`. */
  pageSkin?: PageSkinName;
  /** Issue deliberately wrong id_tokens (a bad signature, a wrong c_hash or openbanking_intent_id), so a TPP's
   *  verification can be tested (docs/sandbox.md, "ID token faults"). Default: correct ones. */
  idTokenFault?: IdTokenFault;
  /** The client authentication methods the bank accepts at registration and the token endpoint, in the order
   *  discovery lists them. Default: all three (TOKEN_AUTH_METHODS). */
  tokenAuthMethods?: readonly TokenAuthMethod[];
  /** The AIS versions served, each under /open-banking/v<version>/aisp; default both (AIS_API_VERSIONS). Another
   *  version's paths answer 404, as any path the bank does not implement. */
  apiVersions?: readonly AisApiVersion[];
  /** The API families served (`obflow sandbox --apis`), each under its base path of every served version; default
   *  `accounts` alone, the interface's account-only bank: another family's paths answer 404, as any path the bank
   *  does not implement. */
  apis?: readonly ApiFamilyName[];
  /** The bank's message-signing key (a private RSA JWK with kid, alg PS256) instead of the one kept in keys.json, as
   *  idTokenKey is for the ID-token key. Without it, and with idTokenKey given, a serving of `payments` makes one for
   *  this run only. */
  messageSigningKey?: Record<string, unknown>;
  /** Serve v4.0 with one value deliberately different from v3.1 (docs/sandbox-ais.md, "Version drift"), so a TPP's
   *  comparison of the two versions can be tested. Default: the same bank on both. */
  versionDrift?: VersionDrift;
  /** Pushed authorization requests (RFC 9126, `obflow sandbox --par`): `required` refuses an authorization request
   *  that was not pushed; `optional` offers the endpoint; `off` (default) neither offers nor accepts it. */
  par?: ParMode;
  /** Which FAPI profile the authorisation server is certified for (`obflow sandbox --fapi`, docs/sandbox.md "FAPI
   *  modes"): `interface` (default) is the bank interface as it is; `1-advanced` refuses plain `code` without JARM;
   *  `2.0` is the FAPI 2.0 Security Profile (PAR required, so `par` must be absent or `required`). */
  fapi?: FapiMode;
  /** Refresh tokens (`obflow sandbox --refresh-tokens`): `always` (default) grants refresh_token to every client that
   *  registers authorization_code, as before; `as-registered` only to a client whose grant_types lists it (RFC 7591
   *  §2), so the §2.1 registration (authorization_code, client_credentials) gets no refresh token. */
  refreshTokens?: RefreshTokenMode;
}

/** What `versionDrift` changes on v4.0 only: an account's Nickname, every balance's amount or every transaction's
 *  amount (one penny more). */
export const VERSION_DRIFTS = ['account-nickname', 'balance-amount', 'transaction-amount'] as const;
export type VersionDrift = (typeof VERSION_DRIFTS)[number];

/** RFC 9126 at the emulator (docs/sandbox.md, "Pushed authorization requests"). */
export const PAR_MODES = ['required', 'optional', 'off'] as const;
export type ParMode = (typeof PAR_MODES)[number];

/** Whether a client gets refresh tokens it did not register (docs/sandbox.md, "Registration (DCR v3.2)"). */
export const REFRESH_TOKEN_MODES = ['always', 'as-registered'] as const;
export type RefreshTokenMode = (typeof REFRESH_TOKEN_MODES)[number];

/** FAPI at the emulator (docs/sandbox.md, "FAPI modes"): the modes are its table's (src/sandbox/auth/fapi.ts). */
export { FAPI_MODES, type FapiMode } from './auth/fapi.js';

/**
 * Client authentication at the token endpoint (OIDC Core §9; RFC 7523 §2.2; RFC 8705 §2.1), as a client registers it
 * (token_endpoint_auth_method). `obflow sandbox --token-auth …` narrows what the bank accepts (docs/sandbox.md).
 */
export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt', 'tls_client_auth'] as const;
export type TokenAuthMethod = (typeof TOKEN_AUTH_METHODS)[number];

/**
 * A deliberately wrong id_token, for testing that a TPP verifies what FAPI 1 Advanced §5.2.2.1 / OIDC Core §3.3.2.12
 * require (`obflow sandbox --id-token-fault …`): the signature, c_hash, or openbanking_intent_id; or no id_token at all
 * in a `code id_token` redirect (the response's detached signature missing).
 */
export const ID_TOKEN_FAULTS = ['bad-signature', 'wrong-c-hash', 'wrong-intent-id', 'missing'] as const;
export type IdTokenFault = (typeof ID_TOKEN_FAULTS)[number];

/** The looks of the PSU pages: the default, and an alternate with other ids, labels and texts (tests consent scripts). */
export const PAGE_SKIN_NAMES = ['default', 'alternate'] as const;
export type PageSkinName = (typeof PAGE_SKIN_NAMES)[number];

// ---- The resource side's entry point (implemented in resource/index.ts as createResourceHandler(deps)) -------------

/** What startSandbox hands the resource server. It answers every request on the resource origin that is not
 *  registration (/dynamic-client-registration/…) or the environment helper (/sandbox-helper/…), 404 for unknown. */
export interface ResourceServerDeps {
  consents: ConsentStore;
  tokens: TokenVerifier;
  clients: ClientDirectory;
  /** The generated bank (accounts, balances, transactions), created once by startSandbox and shared with auth/. */
  bank: Bank;
  now(): Date;
  /** Fresh ids (ConsentId, interaction ids). */
  newId(): string;
  /** The AIS versions served (SandboxOptions.apiVersions). */
  apiVersions: readonly AisApiVersion[];
  /** SandboxOptions.versionDrift. */
  versionDrift?: VersionDrift;
  /** The API families served (SandboxOptions.apis). */
  apis: readonly ApiFamilyName[];
}
