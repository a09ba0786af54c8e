// The environment stage: the bank's helper environment merged with discovery, obflow's flow inputs and its
// registration, written (0600) for the run; and the files the runs chain their state through (one per API version).

import { access, rm } from 'node:fs/promises';
import type { ObflowConfig } from '../config/schema.js';
import { API_VERSION_ROWS, API_VERSIONS, type ApiVersion } from '../generate/api-versions.js';
import {
  buildObflowEnvironment,
  downloadEnvironment,
  environmentPath,
  environmentValue,
  withEnvironmentValues,
  readSavedEnvironment,
  writeEnvironment,
  type PostmanEnvironment,
} from '../environment/index.js';
import { readSigningKey } from '../pki/verify.js';
import type { StoredRegistration } from '../registration/index.js';
import { checkEnvironmentComplete, clientValues } from './client-values.js';
import { familyInputs } from './family-inputs.js';
import { familiesOf, FAMILY_LIST, type ApiFamily } from '../api-families.js';
import { flowInputs, givenFlowInputs } from './run-plan.js';
import { checkRegistrationSettings } from './saved-settings.js';
import type { Session } from './session.js';
import { type Target } from './target.js';
import { certificateRows, type CertificateRow } from '../workspace/certificates.js';

export function environmentStem(target: Target): string {
  return `${target.name}-${target.profile}`;
}

/** Downloads the bank's helper environment, merges it with discovery and obflow's flow inputs, writes it (0600). */
export async function environmentStage(
  session: Session,
  registration: StoredRegistration,
): Promise<{ environment: PostmanEnvironment; path: string }> {
  // A registration made for other settings than the config's (auth method, FAPI profile, …): named, not written on.
  await checkRegistrationSettings(session, registration);
  const bank = await downloadEnvironment({
    helperUrl: session.target.environmentHelperUrl,
    clientId: registration.client_id,
    ...(registration.client_secret !== undefined ? { clientSecret: registration.client_secret } : {}),
    // What a 404 tells the user to fix: the client id's source, and the setting naming the helper's path.
    clientSource: registration.metadata.external === true ? 'external' : 'registered',
    ...(session.config.target === 'bank' && session.config.bank !== undefined
      ? { helperPathSetting: { key: 'bank.environment_helper_path', value: session.config.bank.environment_helper_path } }
      : {}),
    dispatcher: session.dispatcher,
    log: session.log,
  });
  const addresses = await session.discovery();
  const families = familiesOf(session.config.flow.apis);
  const messageSigning = families.some((family) => family.signsMessages)
    ? { orgId: session.statement.claims.org_id, softwareId: session.statement.claims.software_id }
    : undefined;
  const environment = buildObflowEnvironment({
    families: families.map((family) => family.name),
    name: `obflow ${environmentStem(session.target)}`,
    bank,
    discovery: { addresses, url: session.target.discoveryUrl },
    overrides: {
      // Production calls {base_url}; the helper file describes the sandbox resource server.
      ...(session.target.profile === 'production' ? { rs: session.target.resourceBaseUrl } : {}),
      // bank.token_url, when the config names one, over discovery's token_endpoint.
      tokenEndpoint: session.target.tokenUrl,
      ...flowInputs(session),
      // The payment, signing and funds settings of the families (written again by every run: run-plan.ts).
      ...familyInputs(session.config),
      // obflow's registration and identity, over the helper file's names for the same things.
      ...(await clientValues({
        registration,
        redirectUris: session.identity.redirectUris,
        statementRedirectUris: session.statement.claims.software_redirect_uris ?? [],
        signingKid: session.identity.signing.kid,
        signingKey: () => readSigningKey(session.identity.signing.key),
        ...(messageSigning !== undefined ? { messageSigning } : {}),
      })),
    },
  });
  checkEnvironmentComplete(environment, registration, messageSigning !== undefined);
  const path = await writeEnvironment(session.config.stateDir, environmentStem(session.target), environment);
  // A fresh environment (a new registration, perhaps) replaces what the versions' and families' runs chained from the
  // old one.
  const chained = [
    ...API_VERSIONS.map((version) => versionEnvironmentStem(session.target, version)),
    ...FAMILY_LIST.flatMap((family) =>
      [false, true].flatMap((several) => API_VERSIONS.map((version) => familyEnvironmentStem(session.target, version, family, several))),
    ),
  ];
  const written = environmentStem(session.target);
  await Promise.all(
    [...new Set(chained)]
      .filter((stem) => stem !== written)
      .map((stem) => rm(environmentPath(session.config.stateDir, stem), { force: true })),
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

/**
 * Saves a run's chained environment: under `stem` (default the environment stage's file). The flow inputs a flag of
 * this run gave (`run all --psu-user jo`) were for this run only: the file keeps what `obflow environment` wrote for
 * them, so the next run compares the config with that (src/pipeline/saved-settings.ts), not with a one-off flag.
 */
export async function saveEnvironment(
  session: Session,
  environment: PostmanEnvironment,
  stem = environmentStem(session.target),
): Promise<string> {
  const given = Object.keys(givenFlowInputs(session));
  let kept = environment;
  if (given.length > 0) {
    const before = await readSavedEnvironment(environmentPath(session.config.stateDir, stem)).catch(() =>
      readEnvironmentFile(session.config, session.target).catch(() => undefined),
    );
    const values: Record<string, string> = {};
    for (const key of given) {
      const value = before === undefined ? undefined : environmentValue(before, key);
      if (value !== undefined) values[key] = value;
    }
    kept = withEnvironmentValues(environment, values);
  }
  return writeEnvironment(session.config.stateDir, stem, kept);
}

export async function readEnvironmentFile(config: ObflowConfig, target: Target): Promise<PostmanEnvironment> {
  return readSavedEnvironment(environmentPath(config.stateDir, environmentStem(target)));
}

/**
 * The file of another family's chained environment (`<target>-<profile>.payments`, `….v4.0.payments` in a run over
 * several versions): a family's run keeps its consent, tokens and state apart from the account flow's (the two share
 * variable names: consent_id, access_token), so `obflow run transactions` after a payments run still reads accounts'.
 * Accounts' own is the version's or the environment stage's, as it always was.
 */
export function familyEnvironmentStem(target: Target, version: ApiVersion, family: ApiFamily, severalVersions: boolean): string {
  const base = severalVersions ? versionEnvironmentStem(target, version) : environmentStem(target);
  return family.folder === '' ? base : `${base}.${family.name}`;
}

/** The environment a leg of `family` continues: its family's own file when an earlier run of the family left one,
 *  else the version's (readVersionEnvironment); and the stem to save it under (undefined: accounts' rules). */
export async function readFamilyEnvironment(
  config: ObflowConfig,
  target: Target,
  version: ApiVersion,
  family: ApiFamily,
  severalVersions: boolean,
): Promise<{ environment: PostmanEnvironment; stem: string | undefined }> {
  if (family.folder !== '') {
    const own = familyEnvironmentStem(target, version, family, severalVersions);
    const path = environmentPath(config.stateDir, own);
    const exists = await access(path).then(
      () => true,
      () => false,
    );
    if (exists) return { environment: await readSavedEnvironment(path), stem: own };
    return { environment: (await readVersionEnvironment(config, target, version)).environment, stem: own };
  }
  return readVersionEnvironment(config, target, version);
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

/** What Postman needs to call the bank as obflow's runs do (docs/postman-certificates.md): one client certificate per
 *  bank origin of the environment (host and port), the transport certificate's files, and the CA files that verify
 *  the bank's server certificate (Postman's "CA certificates"; empty: the system roots). */
export interface PostmanCertificates {
  rows: CertificateRow[];
  transport: { cert: string; key: string } | { pfx: string };
  ca: string[];
}

export function postmanCertificates(
  session: Pick<Session, 'config' | 'identity'>,
  environment: Pick<PostmanEnvironment, 'values'>,
): PostmanCertificates {
  const { transport } = session.identity;
  // The embedded sandbox's server certificate is issued by the local test directory (src/pipeline/session.ts).
  const ca =
    session.config.target === 'bank'
      ? (session.config.bank?.server_ca ?? [])
      : [...session.identity.directoryRoots, ...session.identity.directoryIssuing];
  return {
    rows: certificateRows(environment),
    transport: 'pfx' in transport ? { pfx: transport.pfx } : { cert: transport.cert, key: transport.key },
    ca,
  };
}

/** The secrets a written environment holds, for the line that says to keep it out of version control: the client
 *  secret (client_secret_basic), the private signing key (private_key_jwt or PS256 request objects), or none
 *  (tls_client_auth with unsigned request objects: the transport certificate, kept outside it, is the credential). */
export function environmentSecretsHeld(environment: Pick<PostmanEnvironment, 'values'>): string[] {
  const held = (key: string) => (environmentValue(environment, key) ?? '') !== '';
  const named = new Set(['_clientSecret', 'basicToken', 'signing_key']);
  // Whatever else is a secret and has a value (a bank's helper file may bring its own).
  const others = environment.values.filter((entry) => entry.type === 'secret' && entry.value !== '' && !named.has(entry.key));
  return [
    ...(held('_clientSecret') || held('basicToken') ? ['the client secret'] : []),
    ...(held('signing_key') ? ['the private signing key'] : []),
    ...(others.length > 0 ? [`the secret values of ${others.map((entry) => entry.key).join(', ')}`] : []),
  ];
}
