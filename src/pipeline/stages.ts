// The TPP pipeline as stages over one session: register → environment → generate → run (docs/bank-interface.md §5.3).
// The CLI commands and `demo` are thin handlers over these; each stage takes the session's seams (dispatcher, clock,
// ids, logger) and returns data.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Agent } from 'undici';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import type { PostmanEnvironment } from '../environment/merge.js';
import type { TransportMaterial } from '../pki/load.js';
import type { IdentityPaths, SoftwareStatementClaims } from '../pki/types.js';
import type { RegisterClientResult, StoredRegistration } from '../registration/index.js';
import type { RunResult, RunStep } from '../run/newman.js';
import { sandboxPsuUser, type Target } from './target.js';
import { originOf } from '../run/origin.js';

export interface SessionSeams {
  now: () => Date;
  newId: () => string;
  log: (line: string) => void;
  /** Manual consent: show the consent URL to the PSU, resolve with the redirect URL they paste (undefined: none). */
  ask: (consentUrl: string, redirectUri: string) => Promise<string | undefined>;
}

/** Everything the stages share for one target and identity; close() releases the mTLS connections. */
export interface Session extends SessionSeams {
  config: ObflowConfig;
  target: Target;
  identity: IdentityPaths;
  transport: TransportMaterial;
  statement: { jwt: string; claims: SoftwareStatementClaims };
  dispatcher: Agent;
  close(): Promise<void>;
}

export async function openSession(config: ObflowConfig, target: Target, identity: IdentityPaths, seams: Partial<SessionSeams> = {}): Promise<Session> {
  const { loadTransportMaterial } = await import('../pki/load.js');
  const { readSoftwareStatement, readDirectoryJwks, verifyKeyMatch, verifySoftwareStatement } = await import('../pki/verify.js');
  const { createMtlsDispatcher } = await import('../pki/tls.js');
  const now = seams.now ?? (() => new Date());
  const jwt = await readSoftwareStatement(identity.softwareStatement);
  const claims = await verifySoftwareStatement(jwt, await readDirectoryJwks(identity.directoryJwks), now());
  const transport = await loadTransportMaterial(identity.transport);
  // Before any connection: TLS would only say "key values mismatch", and the bank's CA would be blamed (exit 3).
  verifyKeyMatch(transport);
  const dispatcher = createMtlsDispatcher({ transport, serverCa: target.serverCaPem, insecure: target.insecure });
  return {
    config,
    target,
    identity,
    transport,
    statement: { jwt, claims },
    dispatcher,
    now,
    newId: seams.newId ?? randomUUID,
    log: seams.log ?? (() => undefined),
    ask: seams.ask ?? (async () => undefined),
    close: () => dispatcher.close(),
  };
}

// ---- register ------------------------------------------------------------------------------------------------------

export async function registerStage(session: Session, options: { force?: boolean; dryRun?: boolean } = {}): Promise<RegisterClientResult> {
  const { registerClient } = await import('../registration/index.js');
  const { readSigningKey } = await import('../pki/verify.js');
  // A client the bank registered but obflow could not store is lost (its secret is shown once): check first.
  if (options.dryRun !== true) await ensureWritable(join(session.config.stateDir, 'registrations'));
  const refreshToken = await offersRefresh(session);
  return registerClient({
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
    ...(refreshToken ? { refreshToken } : {}),
    dispatcher: session.dispatcher,
    now: session.now,
    newJti: session.newId,
    force: options.force === true,
    dryRun: options.dryRun === true,
    log: session.log,
  });
}

/** Whether the bank's discovery offers the refresh_token grant (OIDC Discovery §3 grant_types_supported), so the
 *  registration asks for it and the `refresh` step has a token to use. Best effort: a discovery that cannot be read
 *  here registers without it (the environment stage reports discovery problems with their own code). */
async function offersRefresh(session: Session): Promise<boolean> {
  const { fetchDiscovery } = await import('../environment/index.js');
  try {
    return (await fetchDiscovery(session.target.discoveryUrl, session.dispatcher)).grant_types_supported?.includes('refresh_token') === true;
  } catch {
    return false;
  }
}

export async function storedRegistration(session: Session): Promise<StoredRegistration> {
  const { requireStoredRegistration } = await import('../registration/index.js');
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
export async function environmentStage(session: Session, registration: StoredRegistration): Promise<{ environment: PostmanEnvironment; path: string }> {
  const { buildObflowEnvironment, downloadEnvironment, fetchDiscovery, writeEnvironment } = await import('../environment/index.js');
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
    },
  });
  const path = await writeEnvironment(session.config.stateDir, environmentStem(session.target), environment);
  return { environment, path };
}

export async function saveEnvironment(session: Session, environment: PostmanEnvironment): Promise<string> {
  const { writeEnvironment } = await import('../environment/index.js');
  return writeEnvironment(session.config.stateDir, environmentStem(session.target), environment);
}

export async function readEnvironmentFile(config: ObflowConfig, target: Target): Promise<PostmanEnvironment> {
  const { environmentPath, readSavedEnvironment } = await import('../environment/index.js');
  return readSavedEnvironment(environmentPath(config.stateDir, environmentStem(target)));
}

// ---- generate ------------------------------------------------------------------------------------------------------

/** Writes every collection; returns the paths and the step collections as built, so a run need not read them back. */
export async function generateStage(outDir: string): Promise<{ paths: string[]; collections: Record<string, object> }> {
  const { buildCollections, loadTemplates, stepFileName, STEP_NAMES, writeCollections } = await import('../generate/index.js');
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
  /** Flow inputs given for this run (flags), over what the saved environment says; undefined leaves a value alone. */
  overrides?: Readonly<Record<string, string | undefined>>;
  /** `all` or one step name. */
  select?: string;
  reporters?: ('cli' | 'junit')[];
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
export function checkEnvironmentTarget(environment: Pick<PostmanEnvironment, 'values'>, target: Pick<Target, 'name' | 'profile' | 'resourceBaseUrl' | 'authUrl'>): void {
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
      throw new ObflowError('ERR_ENVIRONMENT_STALE', `the saved environment's ${key} is ${have ?? value}, but the ${target.name} target (${target.profile}) is at ${want}`, {
        hint: 'The bank moved (e.g. `obflow sandbox` restarted on new ports): run `obflow environment` again.',
      });
    }
  }
}

export async function runStage(session: Session, options: RunStageOptions): Promise<RunResult> {
  const { config, target } = session;
  checkEnvironmentTarget(options.environment, target);
  // Where this run writes, before anything is sent: a file standing where a folder should be is ERR_WRITE_FAILED.
  const { ensureDirectory } = await import('../fs.js');
  const runDir = join(config.stateDir, 'run');
  await ensureDirectory(runDir, { secret: true });
  if ((options.reporters ?? ['junit']).includes('junit')) await ensureDirectory(reportsDir(config));
  const { withEnvironmentValues } = await import('../environment/merge.js');
  const given = Object.fromEntries(Object.entries(options.overrides ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const environment = withEnvironmentValues(options.environment, given);
  const { STEP_NAMES, SECRET_VARIABLE_KEYS } = await import('../generate/index.js');
  const run = await import('../run/index.js');
  const origins = run.bankOriginsOf(environment.values);
  if (origins.length === 0) {
    // A hand-edited or truncated file: without a bank address there is nothing to present the certificate to.
    throw new ObflowError('ERR_FILE_UNREADABLE', 'the environment names no https bank address (rs, issuer, tokenEndpoint, …)', {
      hint: 'Run `obflow environment` again to rewrite it.',
    });
  }
  // Only the steps this run needs: `run accounts` must not fail on another step's missing file.
  const wanted = options.select === undefined || options.select === 'all' ? STEP_NAMES : STEP_NAMES.filter((name) => name === options.select);
  const collections = options.collections ?? (await run.readStepCollections(config.output.collections, wanted));
  const consentStep = target.consent === 'browser' ? await browserConsent(session) : target.consent === 'manual' ? await manualConsent(session) : undefined;
  const steps: RunStep[] = run.buildRunPlan({
    stepNames: STEP_NAMES,
    collections,
    ...(options.select !== undefined ? { select: options.select } : {}),
    ...(consentStep ? { consentStep } : {}),
    localAfter: await idTokenSteps(session),
  });
  const sslClientCertList = run.buildSslClientCertList({ origins, transport: await newmanTransport(session, runDir) });
  const caBundle = target.serverCaPem.length > 0 ? await run.writeCaBundle(join(runDir, 'target-ca.pem'), target.serverCaPem) : undefined;
  await run.writeSslClientCertList(join(runDir, 'ssl-client-cert-list.json'), sslClientCertList);
  return run.runSteps({
    steps,
    environment,
    cwd: runDir,
    sslClientCertList,
    ...(caBundle ? { sslExtraCaCerts: caBundle } : {}),
    insecure: target.insecure,
    reporters: options.reporters ?? ['cli', 'junit'],
    reportDir: reportsDir(config),
    secretKeys: SECRET_VARIABLE_KEYS,
    log: options.progress ?? session.log,
  });
}

/** Where the JUnit reports go: `output.reports`, else `<stateDir>/reports`. */
export function reportsDir(config: ObflowConfig): string {
  return config.output.reports ?? join(config.stateDir, 'reports');
}

/** The flow inputs of a run as environment values: what the config and flags ask for (consent mode from the target). */
export function flowInputs(session: Session): Record<string, string | undefined> {
  const flow = session.config.flow;
  return {
    response_type: flow.responseType,
    consent_mode: session.target.consent === 'headless' ? 'headless' : 'interactive',
    psu_login_hint: flow.psuUser,
    max_pages: String(flow.maxPages),
  };
}

async function ensureWritable(dir: string): Promise<void> {
  const { access, constants, mkdir } = await import('node:fs/promises');
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
async function newmanTransport(session: Session, runDir: string): Promise<IdentityPaths['transport']> {
  const { transport } = session;
  if (transport.pfx === undefined || transport.pfx.nodeTlsReadable) return session.identity.transport;
  const { writeFileAtomic } = await import('../fs.js');
  const cert = join(runDir, 'transport-from-pfx.pem');
  const key = join(runDir, 'transport-from-pfx.key');
  await writeFileAtomic(cert, `${[transport.certPem, ...transport.chainPem].join('\n')}\n`, { secret: true });
  await writeFileAtomic(key, transport.keyPem, { secret: true });
  return { cert, key };
}

/** The id_token checks FAPI requires of the client (src/run/id-token.ts): after the PSU consent and after the code
 *  exchange, with the bank's keys fetched once per run through the session's mutual-TLS dispatcher. */
async function idTokenSteps(session: Session): Promise<{ after: string; step: RunStep }[]> {
  const { idTokenStep, jsonOver, jwksCache } = await import('../run/id-token.js');
  const keys = jwksCache(jsonOver(session.dispatcher));
  return [
    { after: 'psu-consent', step: idTokenStep({ source: 'authorization', keys, now: session.now }) },
    { after: 'code-exchange', step: idTokenStep({ source: 'token', keys, now: session.now }) },
  ];
}

async function manualConsent(session: Session): Promise<RunStep> {
  const { manualConsentStep } = await import('../run/consent/manual.js');
  return manualConsentStep({ ask: session.ask });
}

async function browserConsent(session: Session): Promise<RunStep> {
  const { browserConsentStep, spkiPinOf } = await import('../run/consent/browser.js');
  if (session.target.name !== 'sandbox') {
    throw new ObflowError('ERR_USAGE', 'browser consent is automated for the embedded sandbox only', {
      hint: 'Use flow.consent "manual" (open the consent URL yourself and paste the redirect back), or "headless" where the bank offers it.',
    });
  }
  const { username, password } = sandboxPsuUser(session.config);
  return browserConsentStep({ username, password, trustedSpki: session.target.serverCaPem.map(spkiPinOf), log: session.log });
}
