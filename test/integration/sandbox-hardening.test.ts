// Edge cases of the emulator found on review, each over real mutual TLS on port 0: request targets that are not valid
// paths, registration's content-type check before reading, the verbose log's masking, timestamps, the shared consent
// expiry rule (token endpoint included), consent-page labels and login_hint lookups.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getTestIdentity } from '../helpers/identity.js';
import type { TestIdentity } from '../helpers/identity.js';
import { rawTarget, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

let identity: TestIdentity;
let sandbox: TestSandbox;

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox();
});

afterAll(async () => {
  await sandbox?.close();
});

describe('request targets that are not valid paths', () => {
  const targets = ['//', '//[', '/\\'];

  it.each(targets)('resource origin answers %s with 400, an OBErrorResponse1 and the interaction id', async (target) => {
    const response = await rawTarget(identity, sandbox.urls.sandbox_base_url, 'GET', target, { 'x-fapi-interaction-id': 'target-test-1' });
    expect(response.status).toBe(400);
    expect(response.headers['x-fapi-interaction-id']).toBe('target-test-1');
    expect(response.json()).toMatchObject({ Id: 'target-test-1', Errors: [{ ErrorCode: 'UK.OBIE.Field.Invalid' }] });
  });

  it.each(targets)('authorisation origin answers %s with 400 invalid_request and the interaction id', async (target) => {
    const response = await rawTarget(identity, sandbox.urls.profiles['strict-headless'].auth_url, 'GET', target, { 'x-fapi-interaction-id': 'target-test-2' });
    expect(response.status).toBe(400);
    expect(response.headers['x-fapi-interaction-id']).toBe('target-test-2');
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });
});
