// The TPP pipeline as stages over one session: register → environment → generate → run (docs/bank-interface.md §5.3).
// The CLI commands and `demo` are thin handlers over these; each stage takes the session's seams (dispatcher, clock,
// ids, logger) and returns data.

import { access, constants, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import { ensureDirectory, writeFileAtomic } from '../fs.js';
import {
  buildObflowEnvironment,
  downloadEnvironment,
  environmentPath,
  fetchDiscovery,
  readSavedEnvironment,
  withEnvironmentValues,
  writeEnvironment,
  type PostmanEnvironment,
} from '../environment/index.js';
import { buildCollections, loadTemplates, SECRET_VARIABLE_KEYS, STEP_NAMES, stepFileName, writeCollections } from '../generate/index.js';
import type { IdentityPaths } from '../pki/types.js';
import { readSigningKey } from '../pki/verify.js';
import {
  registerClient,
  requireStoredRegistration,
  type RegisterClientInput,
  type RegisterClientResult,
  type StoredRegistration,
  type TokenEndpointAuthMethod,
} from '../registration/index.js';
import { browserConsentStep, spkiPinOf } from '../run/consent/browser.js';
import { manualConsentStep } from '../run/consent/manual.js';
import { idTokenStep, jsonOver, jwksCache } from '../run/id-token.js';
import { browserConsentOptions } from '../run/consent/settings.js';
import {
  bankOriginsOf,
  buildRunPlan,
  DEFAULT_REPORTERS,
  buildSslClientCertList,
  readStepCollections,
  runSteps,
  writeCaBundle,
  writeSslClientCertList,
  type ReporterName,
  type RunResult,
  type RunStep,
} from '../run/index.js';
import { originOf } from '../run/origin.js';
import { HTML_REPORT_FILE } from '../report/subscriber.js';
import { stateLayout } from '../state/layout.js';
import { checkEnvironmentComplete, clientValues } from './client-values.js';
import type { Session } from './session.js';
import { sandboxPsuUser, type Target } from './target.js';

// ---- register ------------------------------------------------------------------------------------------------------

export async function registerStage(session: Session, options: { force?: boolean; dryRun?: boolean } = {}): Promise<RegisterClientResult> {
  // A client the bank registered but obflow could not store is lost (its secret is shown once): check first.
  if (options.dryRun !== true) await ensureWritable(stateLayout(session.config.stateDir).registrations);
  return registerClient(await registerInput(session, options));
}

/** What a registration of this session sends and stores (also the body of `register --update`). */
export async function registerInput(session: Session, options: { force?: boolean; dryRun?: boolean } = {}): Promise<RegisterClientInput> {
  return {
    stateDir: session.config.stateDir,
    target: session.target.name,
    profile: session.target.profile,
    authUrl: session.target.authUrl,
    registrationEndpoint: session.target.registrationEndpoint,
    softwareStatement: session.statement.jwt,
    statementClaims: session.statement.claims,
    ...(session.statement.claims.software_jwks ? { statementJwks: session.statement.claims.software_jwks } : {}),
    signingKey: await readSigningKey(session.identity.signing.key),
    kid: session.identity.signing.kid,
    transportCertificatePem: session.transport.certPem,
    redirectUris: session.identity.redirectUris,
    ...(session.target.registrationAudience !== undefined ? { audience: session.target.registrationAudience } : {}),
    refreshTokenGrant: session.config.registration.refresh_token_grant,
    tokenEndpointAuthMethod: tokenAuthSetting(session.config),
    ...(session.config.bank?.tls_client_auth_subject_dn !== undefined
      ? { tlsClientAuthSubjectDn: session.config.bank.tls_client_auth_subject_dn }
      : {}),
    requestObjectSigningAlg: session.config.flow.request_object_signing_alg,
    authMethodsSupported: () => authMethodsSupported(session),
    dispatcher: session.dispatcher,
    now: session.now,
    newJti: session.newId,
    force: options.force === true,
    dryRun: options.dryRun === true,
    log: session.log,
  };
}

/** What the bank's discovery lists in token_endpoint_auth_methods_supported. Best effort unless the setting is `auto`
 *  (which needs it): a discovery that cannot be read here leaves the choice to the bank, whose refusal names it, and
 *  the environment stage reports discovery problems with their own code. */
async function authMethodsSupported(session: Session): Promise<readonly string[] | undefined> {
  try {
    return (await fetchDiscovery(session.target.discoveryUrl, session.dispatcher)).token_endpoint_auth_methods_supported;
  } catch (error) {
    if (tokenAuthSetting(session.config) === 'auto') throw error;
    return undefined;
  }
}

/** bank.token_endpoint_auth_method (also read with the embedded sandbox); default client_secret_basic (§2.1). */
export function tokenAuthSetting(config: ObflowConfig): TokenEndpointAuthMethod | 'auto' {
  return config.bank?.token_endpoint_auth_method ?? 'client_secret_basic';
}

export async function storedRegistration(session: Session): Promise<StoredRegistration> {
  return requireStoredRegistration(session.config.stateDir, {
    softwareId: session.statement.claims.software_id,
    target: session.target.name,
    profile: session.target.profile,
  });
}

// ---- environment ---------------------------------------------------------------------------------------------------

export function environmentStem(target: Target): string {
  return `${target.name}-${target.profile}`;
}

/** Downloads the bank's helper environment, merges it with discovery and obflow's flow inputs, writes it (0600). */
export async function environmentStage(
  session: Session,
  registration: StoredRegistration,
): Promise<{ environment: PostmanEnvironment; path: string }> {
  const bank = await downloadEnvironment({
    helperUrl: session.target.environmentHelperUrl,
    clientId: registration.client_id,
    ...(registration.client_secret !== undefined ? { clientSecret: registration.client_secret } : {}),
    dispatcher: session.dispatcher,
    log: session.log,
  });
  const addresses = await fetchDiscovery(session.target.discoveryUrl, session.dispatcher);
  const environment = buildObflowEnvironment({
    name: `obflow ${environmentStem(session.target)}`,
    bank,
    discovery: { addresses, url: session.target.discoveryUrl },
    overrides: {
      // Production calls {base_url}; the helper file describes the sandbox resource server.
      ...(session.target.profile === 'production' ? { rs: session.target.resourceBaseUrl } : {}),
      // bank.token_url, when the config names one, over discovery's token_endpoint.
      tokenEndpoint: session.target.tokenUrl,
      ...flowInputs(session),
      // obflow's registration and identity, over the helper file's names for the same things.
      ...(await clientValues({
        registration,
        redirectUris: session.identity.redirectUris,
        statementRedirectUris: session.statement.claims.software_redirect_uris ?? [],
        signingKid: session.identity.signing.kid,
        signingKey: () => readSigningKey(session.identity.signing.key),
      })),
    },
  });
  checkEnvironmentComplete(environment, registration);
  const path = await writeEnvironment(session.config.stateDir, environmentStem(session.target), environment);
  return { environment, path };
}

export async function saveEnvironment(session: Session, environment: PostmanEnvironment): Promise<string> {
  return writeEnvironment(session.config.stateDir, environmentStem(session.target), environment);
}

export async function readEnvironmentFile(config: ObflowConfig, target: Target): Promise<PostmanEnvironment> {
  return readSavedEnvironment(environmentPath(config.stateDir, environmentStem(target)));
}

// ---- generate ------------------------------------------------------------------------------------------------------

/** Writes every collection; returns the paths and the step collections as built, so a run need not read them back. */
export async function generateStage(outDir: string): Promise<{ paths: string[]; collections: Record<string, object> }> {
  const files = buildCollections({ templates: loadTemplates() });
  await writeCollections(outDir, files);
  const byName = new Map(files.map((file) => [file.fileName, file.json]));
  const collections: Record<string, object> = {};
  for (const name of STEP_NAMES) {
    const json = byName.get(stepFileName(name));
    if (json !== undefined) collections[name] = JSON.parse(json) as object;
  }
  return { paths: files.map((file) => join(outDir, file.fileName)), collections };
}

// ---- run -----------------------------------------------------------------------------------------------------------

export interface RunStageOptions {
  environment: PostmanEnvironment;
  /** The step collections, when the caller has them (the demo just built them); otherwise read from output.collections. */
  collections?: Readonly<Record<string, object>>;
  /** `all` or one step name. */
  select?: string;
  /** Reporters by name (src/run/reporters/index.ts); default cli + junit. */
  reporters?: readonly ReporterName[];
  /** Progress lines of the cli reporter. */
  progress?: (line: string) => void;
}

/**
 * The saved environment must name the bank the session talks to: after `obflow sandbox` restarts on new ports (or the
 * config points at another bank) the file still carries the old addresses, and newman would call them — a refused
 * connection or, worse, another server. Compares origins (scheme, host, port): `rs` with the target's resource
 * server, `issuer` and `configEndpoint` with its `{auth_url}`; for the sandbox also `tokenEndpoint` (a real bank may
 * serve its token endpoint from another host, RFC 8705 §5 mTLS endpoint aliases). Throws ERR_ENVIRONMENT_STALE.
 */
export function checkEnvironmentTarget(
  environment: Pick<PostmanEnvironment, 'values'>,
  target: Pick<Target, 'name' | 'profile' | 'resourceBaseUrl' | 'authUrl'>,
): void {
  const expected: [string, string | undefined][] = [
    ['rs', originOf(target.resourceBaseUrl)],
    ['issuer', originOf(target.authUrl)],
    ['configEndpoint', originOf(target.authUrl)],
    ...(target.name === 'sandbox' ? [['tokenEndpoint', originOf(target.authUrl)] as [string, string | undefined]] : []),
  ];
  const values = new Map(environment.values.map((entry) => [entry.key, entry.value]));
  for (const [key, want] of expected) {
    const value = values.get(key);
    if (want === undefined || typeof value !== 'string' || value === '') continue;
    const have = originOf(value);
    if (have !== want) {
      throw new ObflowError(
        'ERR_ENVIRONMENT_STALE',
        `the saved environment's ${key} is ${have ?? value}, but the ${target.name} target (${target.profile}) is at ${want}`,
        {
          hint: 'The bank moved (e.g. `obflow sandbox` restarted on new ports): run `obflow environment` again.',
        },
      );
    }
  }
}

export async function runStage(session: Session, options: RunStageOptions): Promise<RunResult> {
  const { config, target } = session;
  checkEnvironmentTarget(options.environment, target);
  // Where this run writes, before anything is sent: a file standing where a folder should be is ERR_WRITE_FAILED.
  const state = stateLayout(config.stateDir);
  const runDir = state.run;
  await ensureDirectory(runDir, { secret: true });
  const reporters = options.reporters ?? DEFAULT_REPORTERS;
  // Flow inputs given for this run (flags) win over what `obflow environment` saved (config values were applied there).
  const environment = withEnvironmentValues(options.environment, givenFlowInputs(session));
  const origins = bankOriginsOf(environment.values);
  if (origins.length === 0) {
    // A hand-edited or truncated file: without a bank address there is nothing to present the certificate to.
    throw new ObflowError('ERR_FILE_UNREADABLE', 'the environment names no https bank address (rs, issuer, tokenEndpoint, …)', {
      hint: 'Run `obflow environment` again to rewrite it.',
    });
  }
  // Only the steps this run needs: `run accounts` must not fail on another step's missing file.
  const wanted =
    options.select === undefined || options.select === 'all' ? STEP_NAMES : STEP_NAMES.filter((name) => name === options.select);
  const collections = options.collections ?? (await readStepCollections(config.output.collections, wanted));
  const consentStep =
    target.consent === 'browser' ? await browserConsent(session) : target.consent === 'manual' ? await manualConsent(session) : undefined;
  const steps: RunStep[] = buildRunPlan({
    stepNames: STEP_NAMES,
    collections,
    ...(options.select !== undefined ? { select: options.select } : {}),
    ...(consentStep ? { consentStep } : {}),
    localAfter: idTokenSteps(session),
  });
  const sslClientCertList = buildSslClientCertList({ origins, transport: await newmanTransport(session) });
  const caBundle = target.serverCaPem.length > 0 ? await writeCaBundle(state.runFile('target-ca.pem'), target.serverCaPem) : undefined;
  await writeSslClientCertList(state.runFile('ssl-client-cert-list.json'), sslClientCertList);
  return runSteps({
    steps,
    environment,
    cwd: runDir,
    sslClientCertList,
    ...(caBundle ? { sslExtraCaCerts: caBundle } : {}),
    insecure: target.insecure,
    reporters,
    reportDir: reportsDir(config),
    secretKeys: SECRET_VARIABLE_KEYS,
    log: options.progress ?? session.log,
    // The session loaded and checked the transport material: the preflight does not read it again.
    transportMaterial: session.transport,
    target: { name: target.name, profile: target.profile },
  });
}

/** Where the JUnit reports go: `output.reports`, else `<stateDir>/reports`. */
export function reportsDir(config: ObflowConfig): string {
  return config.output.reports ?? stateLayout(config.stateDir).reports;
}

/** The HTML report a run with the `html` reporter writes. */
export function htmlReportPath(config: ObflowConfig): string {
  return join(reportsDir(config), HTML_REPORT_FILE);
}

/** The flow inputs of a run as environment values, one row each: the variable, the `flow` key (and flag) it comes
 *  from, and its value for the session (consent mode from the target, which resolves `auto`). */
type FlowSession = Pick<Session, 'config' | 'target' | 'overrides'>;

const FLOW_INPUTS: readonly { key: string; from: keyof ObflowConfig['flow']; value: (session: FlowSession) => string | undefined }[] = [
  { key: 'response_type', from: 'responseType', value: (session) => session.config.flow.responseType },
  { key: 'consent_mode', from: 'consent', value: (session) => (session.target.consent === 'headless' ? 'headless' : 'interactive') },
  { key: 'psu_login_hint', from: 'psuUser', value: (session) => session.config.flow.psuUser },
  { key: 'max_pages', from: 'maxPages', value: (session) => String(session.config.flow.maxPages) },
];

/** What the config and flags ask for, as environment values. */
export function flowInputs(session: FlowSession): Record<string, string | undefined> {
  return Object.fromEntries(FLOW_INPUTS.map((input) => [input.key, input.value(session)]));
}

/** Only the inputs the command's flags set (session.overrides.flow): those win over a saved environment's values. */
export function givenFlowInputs(session: FlowSession): Record<string, string> {
  const given: Record<string, string> = {};
  for (const input of FLOW_INPUTS) {
    const value = input.value(session);
    if (session.overrides.flow?.[input.from] !== undefined && value !== undefined) given[input.key] = value;
  }
  return given;
}

async function ensureWritable(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK);
  } catch (cause) {
    throw new ObflowError('ERR_WRITE_FAILED', `the state folder ${dir} is not writable`, {
      hint: 'Fix its permissions or pick another with --state-dir; nothing was sent to the bank.',
      cause,
    });
  }
}

/**
 * What newman reads the transport certificate from. A PFX in a legacy encoding (RC2-40, `openssl pkcs12 -legacy`) is
 * one Node 20's OpenSSL 3 cannot open, so newman would fail on it: hand newman PEM copies (mode 0600, state folder).
 */
async function newmanTransport(session: Session): Promise<IdentityPaths['transport']> {
  const { transport } = session;
  if (transport.pfx === undefined || transport.pfx.nodeTlsReadable) return session.identity.transport;
  const state = stateLayout(session.config.stateDir);
  const cert = state.runFile('transport-from-pfx.pem');
  const key = state.runFile('transport-from-pfx.key');
  await writeFileAtomic(cert, `${[transport.certPem, ...transport.chainPem].join('\n')}\n`, { secret: true });
  await writeFileAtomic(key, transport.keyPem, { secret: true });
  return { cert, key };
}

/** The id_token checks FAPI requires of the client (src/run/id-token.ts): after the PSU consent and after the code
 *  exchange, with the bank's keys fetched once per run through the session's mutual-TLS dispatcher. */
function idTokenSteps(session: Session): { after: string; step: RunStep }[] {
  const keys = jwksCache(jsonOver(session.dispatcher));
  return [
    { after: 'psu-consent', step: idTokenStep({ source: 'authorization', keys, now: session.now }) },
    { after: 'code-exchange', step: idTokenStep({ source: 'token', keys, now: session.now }) },
  ];
}

async function manualConsent(session: Session): Promise<RunStep> {
  return manualConsentStep({ ask: session.ask });
}

async function browserConsent(session: Session): Promise<RunStep> {
  // The embedded sandbox's PSU is a public test user; a bank's script reads its PSU from the environment or a secret file.
  const sandboxUser = session.config.target === 'sandbox' ? sandboxPsuUser(session.config) : undefined;
  const options = await browserConsentOptions(session.config.flow.browser, { sandboxUser, env: session.env });
  return browserConsentStep({
    ...options,
    trustedSpki: session.target.serverCaPem.map(spkiPinOf),
    ignoreHttpsErrors: session.target.insecure,
    ...(session.onInterrupt === undefined ? {} : { onInterrupt: session.onInterrupt }),
    log: session.log,
  });
}
