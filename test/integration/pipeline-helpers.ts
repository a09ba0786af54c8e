// Shared by the pipeline integration tests: drives obflow's own library (register → environment → certificate list →
// newman run) against the real emulator over real mutual TLS, exactly as the CLI handlers compose it.

import { createPrivateKey, randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import type { Agent } from 'undici';

import { buildObflowEnvironment, downloadEnvironment, fetchDiscovery, writeEnvironment, type PostmanEnvironment } from '../../src/environment/index.js';
import { STEP_NAMES, SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { loadTransportMaterial } from '../../src/pki/load.js';
import { createMtlsDispatcher } from '../../src/pki/tls.js';
import { registerClient, type StatementClaims, type StoredRegistration } from '../../src/registration/index.js';
import {
  bankOriginsOf,
  buildRunPlan,
  buildSslClientCertList,
  readStepCollections,
  runSteps,
  writeCaBundle,
  type RunResult,
  type RunStep,
  type SslClientCert,
} from '../../src/run/index.js';
import type { ProfileName } from '../../src/sandbox/contracts.js';
import type { TestIdentity } from '../helpers/identity.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

export const COLLECTIONS_DIR = join(import.meta.dirname, '..', '..', 'collections');

export interface Prepared {
  stateDir: string;
  registration: StoredRegistration;
  environment: PostmanEnvironment;
  environmentPath: string;
  certList: SslClientCert[];
  caBundle: string;
  collections: Record<string, object>;
  dispatcher: Agent;
}

export async function prepare(sandbox: TestSandbox, identity: TestIdentity, profile: ProfileName, overrides: Record<string, string> = {}): Promise<Prepared> {
  const stateDir = await mkdtemp(join(tmpdir(), 'obflow-pipeline-'));
  const transport = await loadTransportMaterial(identity.paths.transport);
  const dispatcher = createMtlsDispatcher({ transport, serverCa: [identity.pem.rootCa, identity.pem.issuingCa] });
  const urls = sandbox.urls.profiles[profile];
  const result = await registerClient({
    stateDir,
    target: 'sandbox',
    profile,
    authUrl: urls.auth_url,
    registrationEndpoint: sandbox.urls.registration_endpoint,
    softwareStatement: identity.softwareStatement,
    statementClaims: decodeJwt(identity.softwareStatement) as unknown as StatementClaims,
    statementJwks: identity.signingJwks,
    signingKey: createPrivateKey(identity.pem.signingKey), // the signing key, not the transport key, signs §2.1
    kid: identity.manifest.kid,
    transportCertificatePem: identity.pem.transportCert,
    dispatcher,
    now: () => new Date(),
    newJti: randomUUID,
  });
  if (result.kind === 'dry-run') throw new TypeError('not a dry run');
  const bank = await downloadEnvironment({ helperUrl: sandbox.urls.environment_helper, clientId: result.registration.client_id, dispatcher });
  const addresses = await fetchDiscovery(urls.discovery_url, dispatcher);
  const environment = buildObflowEnvironment({
    name: `obflow sandbox ${profile}`,
    bank,
    discovery: { addresses, url: urls.discovery_url },
    overrides: { consent_mode: profile.endsWith('interactive') ? 'interactive' : 'headless', ...overrides },
  });
  const environmentPath = await writeEnvironment(stateDir, `sandbox-${profile}`, environment);
  const certList = buildSslClientCertList({ origins: bankOriginsOf(environment.values), transport: identity.paths.transport });
  const caBundle = await writeCaBundle(join(stateDir, 'target-ca.pem'), [identity.pem.rootCa, identity.pem.issuingCa]);
  const collections = await readStepCollections(COLLECTIONS_DIR, STEP_NAMES);
  return { stateDir, registration: result.registration, environment, environmentPath, certList, caBundle, collections, dispatcher };
}


export async function runAll(prepared: Prepared, options: { steps?: RunStep[]; select?: string; consentStep?: RunStep; certList?: SslClientCert[] } = {}): Promise<RunResult> {
  const steps = options.steps ?? buildRunPlan({
    stepNames: STEP_NAMES,
    collections: prepared.collections,
    ...(options.select !== undefined ? { select: options.select } : {}),
    ...(options.consentStep !== undefined ? { consentStep: options.consentStep } : {}),
  });
  return runSteps({
    steps,
    environment: prepared.environment,
    cwd: prepared.stateDir,
    sslClientCertList: options.certList ?? prepared.certList,
    sslExtraCaCerts: prepared.caBundle,
    reporters: ['junit'],
    reportDir: join(prepared.stateDir, 'reports'),
    secretKeys: SECRET_VARIABLE_KEYS,
    log: () => undefined,
  });
}

/** A readable account of a failed run for assertion messages. */
export function describeRun(result: RunResult): string {
  return result.steps.map((step) => `${step.passed ? 'ok ' : 'FAIL'} ${step.name} (${step.requests} req, ${step.assertions.failed}/${step.assertions.total} failed)${step.failures.map((f) => `\n    - ${f.item} :: ${f.test} :: ${f.message}`).join('')}`).join('\n');
}
