// A bank that correctly refuses obflow's request: with a wrong client secret the emulator's token endpoint
// answers 401 invalid_client, as RFC 6749 §5.2 tells it to. The run then shows one line per failing request with the
// bank's error, a hint that points at obflow's side, and the refusal checked against the OAuth error shape — never
// against the success schema. Real emulator, real mutual TLS.

import { describe, expect, it } from 'vitest';

import { runFailureError, runFailureLines } from '../../src/pipeline/verdict.js';
import { environmentValue, withEnvironmentValues } from '../../src/environment/index.js';
import { SECRET_VARIABLE_KEYS, STEP_NAMES } from '../../src/generate/index.js';
import { buildRunPlan, runSteps } from '../../src/run/index.js';
import { failingRequests } from '../../src/run/verdict.js';
import { describeRun, usePreparedSandbox } from './pipeline-helpers.js';

const fixture = usePreparedSandbox('strict-headless');

describe('the bank refuses obflow’s request', () => {
  it('a wrong client secret: 401 invalid_client → one line naming the bank’s error, a hint at obflow’s side, no success-schema check', async () => {
    const { prepared } = fixture;
    const clientId = environmentValue(prepared.environment, 'client_id') ?? '';
    const environment = withEnvironmentValues(prepared.environment, {
      client_secret: 'not-the-registered-secret',
      basicToken: Buffer.from(`${clientId}:not-the-registered-secret`).toString('base64'),
    });
    const progress: string[] = [];
    const result = await runSteps({
      steps: buildRunPlan({ stepNames: STEP_NAMES, collections: prepared.collections, select: 'client-credentials' }),
      environment,
      cwd: prepared.stateDir,
      sslClientCertList: prepared.certList,
      sslExtraCaCerts: prepared.caBundle,
      reporters: ['cli'],
      secretKeys: SECRET_VARIABLE_KEYS,
      log: (line) => progress.push(line),
      verbose: true,
    });
    expect(result.passed, describeRun(result)).toBe(false);
    expect(result.failedStep).toBe('client-credentials');

    expect(failingRequests(result)).toMatchObject([{ step: 'client-credentials', status: 401, side: 'refused' }]);
    const lines = runFailureLines(result);
    expect(lines, describeRun(result)).toHaveLength(1);
    expect(lines[0], describeRun(result) + progress.join('\n')).toMatch(
      /^✗ client-credentials › .+: status is 200 — the bank answered 401 invalid_client\b.*, not 200$/,
    );

    const error = runFailureError(result);
    expect(error.code).toBe('ERR_RUN_FAILED');
    expect(error.hint).toMatch(/^The bank refused obflow's request \(invalid_client\b/);
    expect(error.hint).toMatch(/fault is on obflow's side/);
    expect(error.hint).toMatch(/obflow register --force/);

    // The refusal is checked against RFC 6749 §5.2's shape (and passes); the success schema and the step's own
    // checks of a token never ran.
    expect(progress).toContain('    ✓ body is valid against OAuth Error Response (RFC 6749 §5.2)');
    expect(progress.filter((line) => /Access Token Response|token_type|additional properties/.test(line))).toEqual([]);
  });
});
