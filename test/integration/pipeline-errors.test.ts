// A run whose requests get no HTTP answer is not "checks failed": a bank that is not listening (connection refused)
// and a server certificate the run does not trust (TLS) end as the step's transport failure, which the CLI reports as
// ERR_REMOTE_UNREACHABLE / ERR_REMOTE_TLS (exit 3) naming the step and the origin — real sockets, real TLS.

import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';

import { runFailureError } from '../../src/pipeline/verdict.js';
import { environmentValue, withEnvironmentValues } from '../../src/environment/index.js';
import { STEP_NAMES, SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { bankOriginsOf, buildRunPlan, buildSslClientCertList, runSteps } from '../../src/run/index.js';
import { getTestIdentity } from '../helpers/identity.js';
import { describeRun, runAll, usePreparedSandbox } from './pipeline-helpers.js';

const fixture = usePreparedSandbox('strict-headless');

/** A port nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('transport failures during a run', () => {
  it("a bank that is not listening → the step's transport failure (unreachable) → ERR_REMOTE_UNREACHABLE naming step and origin", async () => {
    const port = await closedPort();
    const origin = `https://127.0.0.1:${port}`;
    const configEndpoint = environmentValue(fixture.prepared.environment, 'configEndpoint') ?? '';
    const environment = withEnvironmentValues(fixture.prepared.environment, {
      configEndpoint: configEndpoint.replace(/^https:\/\/[^/]+/, origin),
    });
    const certList = buildSslClientCertList({
      origins: bankOriginsOf(environment.values),
      transport: (await getTestIdentity()).paths.transport,
    });
    const result = await runAll({ ...fixture.prepared, environment }, { select: 'discovery', certList });
    expect(result.passed).toBe(false);
    expect(result.failedStep).toBe('discovery');
    expect(result.transport, describeRun(result)).toMatchObject({ step: 'discovery', kind: 'unreachable', origin, code: 'ECONNREFUSED' });
    expect(result.steps[0]?.transport?.kind).toBe('unreachable');
    const error = runFailureError(result);
    expect(error.code).toBe('ERR_REMOTE_UNREACHABLE');
    expect(error.exitClass).toBe('remote');
    expect(error.message).toContain('discovery');
    expect(error.message).toContain(origin);
  });

  it('a server certificate the run does not trust → transport failure (tls) → ERR_REMOTE_TLS', async () => {
    const steps = buildRunPlan({ stepNames: STEP_NAMES, collections: fixture.prepared.collections, select: 'discovery' });
    // No sslExtraCaCerts: the emulator's certificate is issued by the local test directory, not a system root.
    const result = await runSteps({
      steps,
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: fixture.prepared.certList,
      reporters: [],
      secretKeys: SECRET_VARIABLE_KEYS,
      log: () => undefined,
    });
    expect(result.passed).toBe(false);
    expect(result.transport, describeRun(result)).toMatchObject({ step: 'discovery', kind: 'tls' });
    const origin = new URL(environmentValue(fixture.prepared.environment, 'configEndpoint') ?? '').origin;
    expect(result.transport?.origin).toBe(origin);
    const error = runFailureError(result);
    expect(error.code).toBe('ERR_REMOTE_TLS');
    expect(error.exitClass).toBe('remote');
    expect(error.message).toContain(origin);
  });

  it('a step that got answers but failed its assertions stays ERR_RUN_FAILED (exit 1)', async () => {
    // The bank answers, but the flow's state is missing (no token): the accounts step's assertions fail on HTTP answers.
    const result = await runAll(fixture.prepared, { select: 'accounts' });
    expect(result.passed).toBe(false);
    expect(result.transport, describeRun(result)).toBeUndefined();
    expect(runFailureError(result).code).toBe('ERR_RUN_FAILED');
  });
});
