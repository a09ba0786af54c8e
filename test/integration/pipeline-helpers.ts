// Shared by the pipeline integration tests: drives obflow's own library (register → environment → certificate list →
// newman run) against the real emulator over real mutual TLS, exactly as the CLI handlers compose it.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import type { ObflowConfig } from '../../src/config/schema.js';
import { environmentValue, withEnvironmentValues, type PostmanEnvironment } from '../../src/environment/index.js';
import { STEP_NAMES, SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { openTargetSession } from '../../src/pipeline/session.js';
import { environmentStage, saveEnvironment } from '../../src/pipeline/environment.js';
import { registerStage } from '../../src/pipeline/register.js';
import { sandboxTarget } from '../../src/pipeline/target.js';
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
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

export const COLLECTIONS_DIR = join(import.meta.dirname, '..', '..', 'collections');

export interface Prepared {
  stateDir: string;
  environment: PostmanEnvironment;
  environmentPath: string;
  certList: SslClientCert[];
  caBundle: string;
  collections: Record<string, object>;
  dispatcher: Agent;
}

/**
 * Registers with the emulator and writes the merged environment through the same stages the CLI runs
 * (src/pipeline/register.ts, environment.ts), then lays out what newman needs (certificate list, CA bundle, collections) so a test can
 * run exactly the steps it wants, with whatever certificate list it wants to prove a point with.
 */
export async function prepare(
  sandbox: TestSandbox,
  identity: TestIdentity,
  profile: ProfileName,
  overrides: Record<string, string> = {},
  configPatch: Record<string, unknown> = {},
): Promise<Prepared> {
  const stateDir = await tempDir('obflow-pipeline-');
  const config = parseConfig({ stateDir, output: { collections: COLLECTIONS_DIR }, sandbox: { profile }, ...configPatch }, 'test');
  const serverCa = [identity.pem.rootCa, identity.pem.issuingCa];
  const session = await openTargetSession(config, sandboxTarget(config, sandbox.urls, serverCa), identity.paths);
  const registered = await registerStage(session, { force: true });
  if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
  const merged = await environmentStage(session, registered.registration);
  const environment = withEnvironmentValues(merged.environment, overrides);
  const environmentPath = await saveEnvironment(session, environment);
  const certList = buildSslClientCertList({ origins: bankOriginsOf(environment.values), transport: identity.paths.transport });
  const caBundle = await writeCaBundle(join(stateDir, 'target-ca.pem'), serverCa);
  const collections = await readStepCollections(COLLECTIONS_DIR, STEP_NAMES);
  return { stateDir, environment, environmentPath, certList, caBundle, collections, dispatcher: session.dispatcher };
}

/** Registers and runs the steps up to the PSU's consent (through psu-consent); returns what they wrote and what a
 *  consent driver reads from it: the PSU's consent URL, the redirect URI and the state. */
export async function prepareUpToConsent(
  sandbox: TestSandbox,
  identity: TestIdentity,
  profile: ProfileName,
): Promise<{ ready: Prepared; environment: PostmanEnvironment; consentUrl: string; redirectUri: string; state: string }> {
  const ready = await prepare(sandbox, identity, profile);
  const result = await runSteps({
    steps: buildRunPlan({ stepNames: STEP_NAMES.slice(0, STEP_NAMES.indexOf('psu-consent') + 1), collections: ready.collections }),
    environment: ready.environment,
    cwd: ready.stateDir,
    sslClientCertList: ready.certList,
    sslExtraCaCerts: ready.caBundle,
    reporters: [],
  });
  expect(result.passed, describeRun(result)).toBe(true);
  const get = (key: string): string => environmentValue(result.environment, key) ?? '';
  return {
    ready,
    environment: result.environment,
    consentUrl: get('psu_consent_url') || get('consent_url'),
    redirectUri: get('redirectUrl'),
    state: get('state'),
  };
}

/** One emulator and one prepared client for a test file: started before its tests, stopped and removed after. */
export function usePreparedSandbox(profile: ProfileName = 'strict-headless'): {
  readonly sandbox: TestSandbox;
  readonly prepared: Prepared;
} {
  const fixture = {} as { sandbox: TestSandbox; prepared: Prepared };
  beforeAll(async () => {
    fixture.sandbox = await startTestSandbox();
    fixture.prepared = await prepare(fixture.sandbox, await getTestIdentity(), profile);
  });
  afterAll(async () => {
    await fixture.prepared?.dispatcher.close();
    await fixture.sandbox?.close();
    if (fixture.prepared !== undefined) await rm(fixture.prepared.stateDir, { recursive: true, force: true });
  });
  return fixture;
}

/**
 * The emulator configured as a `target: bank` (the way a TPP configures a real bank), for a test file: an emulator,
 * the test identity and a work folder, started before its tests and removed after. `config(bank)` is that bank's
 * config: the emulator's addresses and CA under `bank`, with `bank` (a preset, a helper path, …) on top.
 */
export function useEmulatorAsBank(prefix: string): {
  readonly sandbox: TestSandbox;
  readonly identity: TestIdentity;
  config(bank: Record<string, unknown>): ObflowConfig;
} {
  const fixture = {} as { sandbox: TestSandbox; identity: TestIdentity; work: string };
  beforeAll(async () => {
    fixture.identity = await getTestIdentity();
    fixture.sandbox = await startTestSandbox();
    fixture.work = await tempDir(prefix);
  });
  afterAll(async () => {
    await fixture.sandbox?.close();
    if (fixture.work !== undefined) await rm(fixture.work, { recursive: true, force: true });
  });
  return {
    get sandbox() {
      return fixture.sandbox;
    },
    get identity() {
      return fixture.identity;
    },
    config(bank) {
      const { sandbox, identity, work } = fixture;
      return parseConfig(
        {
          target: 'bank',
          stateDir: join(work, 'state'),
          output: { collections: COLLECTIONS_DIR, reports: join(work, 'reports') },
          bank: {
            sandbox_base_url: sandbox.urls.sandbox_base_url,
            auth_url: sandbox.urls.profiles['strict-headless'].auth_url,
            server_ca: [...identity.paths.directoryRoots, ...identity.paths.directoryIssuing],
            ...bank,
          },
          identity: identity.paths,
        },
        'test',
      );
    },
  };
}

export async function runAll(
  prepared: Prepared,
  options: {
    steps?: RunStep[];
    select?: string;
    consentStep?: RunStep;
    certList?: SslClientCert[];
    /** Default junit. */
    reporters?: Parameters<typeof runSteps>[0]['reporters'];
    subscribers?: Parameters<typeof runSteps>[0]['subscribers'];
  } = {},
): Promise<RunResult> {
  const steps =
    options.steps ??
    buildRunPlan({
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
    reporters: options.reporters ?? ['junit'],
    ...(options.subscribers !== undefined ? { subscribers: options.subscribers } : {}),
    reportDir: join(prepared.stateDir, 'reports'),
    secretKeys: SECRET_VARIABLE_KEYS,
    log: () => undefined,
  });
}

/** A readable account of a failed run for assertion messages. */
export function describeRun(result: RunResult): string {
  return result.steps
    .map(
      (step) =>
        `${step.passed ? 'ok ' : 'FAIL'} ${step.name} (${step.requests} req, ${step.assertions.failed}/${step.assertions.total} failed)${step.failures.map((f) => `\n    - ${f.item} :: ${f.test} :: ${f.message}`).join('')}`,
    )
    .join('\n');
}

/**
 * A session of obflow's own library against a test sandbox for these flow settings (state and reports in a fresh temp
 * folder, the strict-headless client), registered anew and its environment written: where a test starts a run
 * through `runLegsStage` as the CLI would. The caller closes the session.
 */
export async function registeredSandboxSession(
  sandbox: TestSandbox,
  flow: Record<string, unknown>,
  prefix: string,
): Promise<{ work: string; session: Awaited<ReturnType<typeof openTargetSession>>; environment: PostmanEnvironment }> {
  const work = await tempDir(prefix);
  const config = parseConfig(
    {
      stateDir: join(work, 'state'),
      output: { collections: COLLECTIONS_DIR, reports: join(work, 'reports') },
      sandbox: { profile: 'strict-headless' },
      flow,
    },
    'test',
  );
  const target = sandboxTarget(config, sandbox.urls, [sandbox.identity.pem.rootCa, sandbox.identity.pem.issuingCa]);
  const session = await openTargetSession(config, target, sandbox.identity.paths);
  try {
    const registered = await registerStage(session, { force: true });
    if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
    const { environment } = await environmentStage(session, registered.registration);
    return { work, session, environment };
  } catch (error) {
    await session.close();
    throw error;
  }
}
