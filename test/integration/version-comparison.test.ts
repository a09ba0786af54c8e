// v3.1 beside v4.0 of one bank (issue 29): the emulator made to serve one value differently on v4.0
// (SandboxOptions.versionDrift), the whole flow run on each version, and the comparison (src/report/compare-versions.ts)
// fails naming the field and both values; what the code mapping explains (InterimAvailable ↔ ITAV, CurrentAccount ↔
// CACC) is no difference.

import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readStepCollections } from '../../src/run/index.js';
import { STEP_NAMES } from '../../src/generate/index.js';
import { compareVersions, legOfRun } from '../../src/report/compare-versions.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { COLLECTIONS_DIR, describeRun, prepare, runAll } from './pipeline-helpers.js';

let identity: TestIdentity;
const sandboxes: TestSandbox[] = [];

beforeAll(async () => {
  identity = await getTestIdentity();
});
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.close();
});

async function bothVersions(options: Parameters<typeof startTestSandbox>[0]) {
  const sandbox = await startTestSandbox(options);
  sandboxes.push(sandbox);
  const prepared = await prepare(sandbox, identity, 'strict-headless');
  try {
    const v31 = await runAll(prepared);
    const v40 = await runAll({ ...prepared, collections: await readStepCollections(join(COLLECTIONS_DIR, 'v4.0'), STEP_NAMES) });
    expect(v31.passed, describeRun(v31)).toBe(true);
    expect(v40.passed, describeRun(v40)).toBe(true);
    return compareVersions(legOfRun('3.1', v31), legOfRun('4.0', v40));
  } finally {
    await prepared.dispatcher.close();
  }
}

describe('v3.1 beside v4.0', () => {
  it('the same bank: every difference is one the code mapping explains', async () => {
    const comparison = await bothVersions({});
    expect(comparison.accounts.length).toBeGreaterThan(1);
    expect(comparison.differences).toEqual([]);
    expect(comparison.explained.map((difference) => difference.field)).toContain('Balance.Type');
  });

  it('a v4.0 balance one penny off: a failed check naming the field and both values', async () => {
    const comparison = await bothVersions({ versionDrift: 'balance-amount' });
    expect(comparison.differences.length).toBe(comparison.accounts.length);
    for (const difference of comparison.differences) {
      expect(difference.field).toBe('Balance.Amount');
      expect((Number(difference.v40) - Number(difference.v31)).toFixed(2)).toBe('0.01');
    }
  });
});
