// The whole pipeline against the real emulator over real mutual TLS: register → environment → run every step with
// newman in one process, in both headless profiles and both response types.

import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';

import { environmentValue } from '../../src/environment/index.js';
import { STEP_NAMES } from '../../src/generate/index.js';
import { buildRunSummary, formatRunSummary } from '../../src/run/index.js';

import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, runAll } from './pipeline-helpers.js';

let identity: TestIdentity;

const sandbox = useTestSandbox();

beforeAll(async () => {
  identity = await getTestIdentity();
});

describe('run all (headless)', () => {
  it.each([
    ['strict-headless', 'code id_token'],
    ['strict-headless', 'code'],
    ['permissive-headless', 'code id_token'],
    ['permissive-headless', 'code'],
  ] as const)('%s with response_type %s passes every step', async (profile, responseType) => {
    const prepared = await prepare(sandbox, identity, profile, { response_type: responseType });
    const result = await runAll(prepared);
    await prepared.dispatcher.close();
    expect(result.passed, describeRun(result)).toBe(true);
    expect(result.steps.map((step) => step.name)).toEqual([...STEP_NAMES]);
    expect(result.steps.every((step) => step.requests > 0 && step.assertions.total > 0)).toBe(true);

    // The chained environment carries the flow's state; its secrets stay typed secret.
    const type = (key: string) => result.environment.values.find((entry) => entry.key === key)?.type;
    expect(environmentValue(result.environment, 'access_token')).toMatch(/\S/);
    expect([type('access_token'), type('auth_code'), type('basicToken'), type('client_credentials_token')]).toEqual([
      'secret',
      'secret',
      'secret',
      'secret',
    ]);
    if (responseType === 'code id_token') expect(environmentValue(result.environment, 'id_token')).toMatch(/^ey/);

    // The demo's summary: the default user's accounts, each with its InterimAvailable balance and transactions.
    const summary = buildRunSummary({ environment: result.environment, steps: result.steps, executions: result.executions });
    expect(summary.accounts.length).toBeGreaterThan(1);
    for (const account of summary.accounts) {
      expect(account.balance?.amount).toMatch(/^\d+\.\d{2}$/);
      expect(account.transactions).toBeGreaterThan(0);
      expect(account.label).toMatch(/\S/);
    }
    expect(summary.steps).toEqual({ passed: STEP_NAMES.length, skipped: 0, total: STEP_NAMES.length });
    const lines = formatRunSummary(summary).join('\n');
    // The summary always says how many were skipped.
    expect(lines).toContain(
      `steps passed: ${STEP_NAMES.length}/${STEP_NAMES.length} (${STEP_NAMES.length} collection steps, no local steps), 0 skipped`,
    );

    // No secret of the run appears in any report or in the summary.
    const secrets = result.environment.values
      .filter((entry) => entry.type === 'secret' && entry.value.length >= 4)
      .map((entry) => entry.value);
    expect(secrets.length).toBeGreaterThan(3);
    const reports = result.steps.flatMap((step) => step.reports);
    expect(reports).toHaveLength(STEP_NAMES.length);
    for (const report of reports) {
      const text = await readFile(report, 'utf8');
      expect(text).toContain('<testsuites');
      for (const secret of secrets) expect(text.includes(secret), `${report} leaks a secret`).toBe(false);
    }
    for (const secret of secrets) expect(lines.includes(secret)).toBe(false);
  });
});
