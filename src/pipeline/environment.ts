// The environment stage: the bank's helper environment merged with discovery, obflow's flow inputs and its
// registration, written (0600) for the run; and the files the runs chain their state through (one per API version).

import { access, rm } from 'node:fs/promises';
import type { ObflowConfig } from '../config/schema.js';
import { API_VERSION_ROWS, API_VERSIONS, type ApiVersion } from '../generate/api-versions.js';
import {
  buildObflowEnvironment,
  downloadEnvironment,
  environmentPath,
  readSavedEnvironment,
  writeEnvironment,
  type PostmanEnvironment,
} from '../environment/index.js';
import { readSigningKey } from '../pki/verify.js';
import type { StoredRegistration } from '../registration/index.js';
import { checkEnvironmentComplete, clientValues } from './client-values.js';
import { flowInputs } from './run-plan.js';
import type { Session } from './session.js';
import { type Target } from './target.js';

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
  return `${environmentStem(target)}${API_VERSION_ROWS[version].environmentSuffix}`;
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
