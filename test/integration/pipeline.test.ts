// The whole pipeline against the real emulator over real mutual TLS: register → environment → run every step with
// newman in one process, in both headless profiles and both response types.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, runAll } from './pipeline-helpers.js';

let sandbox: TestSandbox;
let identity: TestIdentity;

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
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
  });
});
