// The emulator's request log in verbose mode: one line per request plus masked bodies, and no secret of a whole flow
// (client secret, tokens, code, ID token, state, nonce, software statement, Basic credentials) anywhere in it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

let sandbox: TestSandbox;
let tpp: SandboxTpp;

beforeAll(async () => {
  sandbox = await startTestSandbox({ verbose: true });
  tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-headless');
});

afterAll(async () => {
  await tpp?.close();
  await sandbox?.close();
});

describe('verbose request log', () => {
  it('shows bodies with every secret masked', async () => {
    const client = await tpp.register();
    const flow = await tpp.headlessFlow({ responseType: 'code id_token' });
    const helper = await tpp.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${client.client_id}`);
    expect(helper.status).toBe(200);

    const requestLines = sandbox.log.filter((line) => !line.startsWith('  '));
    // register, client_credentials, consent, authorise, code exchange, helper: one line each.
    expect(requestLines).toHaveLength(6);
    for (const line of requestLines) expect(line).toMatch(/^(auth|resource) (GET|POST) \/\S* \d{3} \d+\.\dms client=\S+ interaction=[0-9A-Za-z-]+$/);
    expect(sandbox.log.some((line) => line.startsWith('  > ') || line.startsWith('  < '))).toBe(true);

    const text = sandbox.log.join('\n');
    const code = flow.authorize.params.get('code') ?? '';
    const secrets = [
      client.client_secret,
      Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64'),
      flow.accessToken,
      flow.refreshToken ?? '',
      flow.idToken ?? '',
      flow.authorize.params.get('id_token') ?? '',
      code,
      flow.authorize.state ?? '',
      flow.authorize.nonce ?? '',
      sandbox.identity.softwareStatement,
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });
});
