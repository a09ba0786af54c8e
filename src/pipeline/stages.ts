// The TPP pipeline as stages over one session: register → environment → generate → run (docs/bank-interface.md §5.3).
// The CLI commands and `demo` are thin handlers over these; each stage takes the session's seams (dispatcher, clock,
// ids, logger) and returns data.

import { access, constants, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import { API_VERSIONS, type ApiVersion } from '../generate/api-versions.js';
import { ObflowError } from '../errors.js';
import { ensureDirectory } from '../fs.js';
import {
  buildObflowEnvironment,
  downloadEnvironment,
  environmentPath,
  readSavedEnvironment,
  writeEnvironment,
  type PostmanEnvironment,
} from '../environment/index.js';
import { SECRET_VARIABLE_KEYS } from '../generate/variables.js';
import { readSigningKey } from '../pki/verify.js';
import {
  registerClient,
  requireStoredRegistration,
  type RegisterClientInput,
  type RegisterClientResult,
  type StoredRegistration,
  type TokenEndpointAuthMethod,
} from '../registration/index.js';
import { DEFAULT_REPORTERS, runSteps, type ReporterName, type RunResult, type RunSubscriber, type VersionRun } from '../run/index.js';
import { HTML_REPORT_FILE } from '../run/reporters/html.js';
import { stateLayout } from '../state/layout.js';
import { checkEnvironmentComplete, clientValues } from './client-values.js';
import type { Session } from './session.js';
import { flowInputs, planRun } from './run-plan.js';
import { type Target } from './target.js';
import { checkBeforeRun } from './run-checks.js';

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
    ...(session.config.flow.fapi === '2.0' ? { fapi: '2.0' as const } : {}),
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
    return (await session.discovery()).token_endpoint_auth_methods_supported;
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
  const addresses = await session.discovery();
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
  // A fresh environment (a new registration, perhaps) replaces what the versions' runs chained from the old one.
  await Promise.all(
    API_VERSIONS.map((version) =>
      rm(environmentPath(session.config.stateDir, versionEnvironmentStem(session.target, version)), { force: true }),
    ),
  );
  return { environment, path };
}

/**
 * The file of one API version's chained environment (`<target>-<profile>.v4.0`): a run over several versions
 * (`--api-version 3.1,4.0`) saves each version's state to its own, so a later `obflow run <step> --api-version 4.0`
 * continues v4.0's consent, not the version that ran last.
 */
export function versionEnvironmentStem(target: Target, version: ApiVersion): string {
  return `${environmentStem(target)}.v${version}`;
}

/** Saves a run's chained environment: under `stem` (default the environment stage's file). */
export async function saveEnvironment(
  session: Session,
  environment: PostmanEnvironment,
  stem = environmentStem(session.target),
): Promise<string> {
  return writeEnvironment(session.config.stateDir, stem, environment);
}

export async function readEnvironmentFile(config: ObflowConfig, target: Target): Promise<PostmanEnvironment> {
  return readSavedEnvironment(environmentPath(config.stateDir, environmentStem(target)));
}

/**
 * The environment a run of `version` continues, and the stem to save it under: the version's own file when a run over
 * several versions left one (versionEnvironmentStem), else the environment stage's.
 */
export async function readVersionEnvironment(
  config: ObflowConfig,
  target: Target,
  version: ApiVersion,
): Promise<{ environment: PostmanEnvironment; stem: string }> {
  const own = versionEnvironmentStem(target, version);
  const exists = await access(environmentPath(config.stateDir, own)).then(
    () => true,
    () => false,
  );
  const stem = exists ? own : environmentStem(target);
  return { environment: await readSavedEnvironment(environmentPath(config.stateDir, stem)), stem };
}

// ---- generate: src/pipeline/generate.ts (light: the CLI loads it without this module) ----------------------------------

export { collectionsDirOf, generateStage } from './generate.js';

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
  /** The cli reporter prints every request and check (`--verbose`), not only a line per step. */
  verbose?: boolean;
  /** A terminal's live line during a long step (src/run/subscribers/live-line.ts); the CLI gives it on a TTY only. */
  liveLine?: RunSubscriber;
  /** More subscribers to the run's events (the bench times the run's phases with one). */
  subscribers?: readonly RunSubscriber[];
  /** Only the collections' steps, as a workspace's own runner runs them (no local id_token steps): the report a
   *  workspace ships counts what its run.sh will count (src/pipeline/workspace.ts). */
  collectionStepsOnly?: boolean;
  /** A run over two API versions: keep the transaction pages' bodies (the comparison adds them up). */
  keepTransactionBodies?: boolean;
  /** …and the other version's finished run, for the later version's page (src/run/reporters/html.ts). */
  compareWith?: VersionRun;
}

// checkEnvironmentTarget lives with the other checks before a run (src/pipeline/run-checks.ts).
export { checkEnvironmentTarget } from './run-checks.js';

export async function runStage(session: Session, options: RunStageOptions): Promise<RunResult> {
  const { config, target } = session;
  await checkBeforeRun(session, options, await storedRegistration(session));
  // Where this run writes, before anything is sent: a file standing where a folder should be is ERR_WRITE_FAILED.
  const state = stateLayout(config.stateDir);
  const runDir = state.run;
  await ensureDirectory(runDir, { secret: true });
  const reporters = options.reporters ?? DEFAULT_REPORTERS;
  const { steps, environment, sslClientCertList, caBundle, release } = await planRun(session, options);
  try {
    return await runSteps({
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
      ...(options.verbose === true ? { verbose: true } : {}),
      ...(options.liveLine !== undefined ? { first: [options.liveLine] } : {}),
      ...(options.subscribers !== undefined ? { subscribers: options.subscribers } : {}),
      // The session loaded and checked the transport material: the preflight does not read it again.
      transportMaterial: session.transport,
      target: { name: target.name, profile: target.profile, consent: target.consent, apiVersion: config.flow.apiVersion },
      ...(options.keepTransactionBodies === true ? { keepTransactionBodies: true } : {}),
      ...(options.compareWith !== undefined ? { compareWith: options.compareWith } : {}),
    });
  } finally {
    // The PEM copy of a legacy PFX's key goes with the run (src/pipeline/transport-copy.ts).
    await release();
  }
}

/** Where the JUnit reports go: `output.reports`, else `<stateDir>/reports`. */
export function reportsDir(config: ObflowConfig): string {
  return config.output.reports ?? stateLayout(config.stateDir).reports;
}

/** The HTML report a run with the `html` reporter writes. */
export function htmlReportPath(config: ObflowConfig): string {
  return join(reportsDir(config), HTML_REPORT_FILE);
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
