// `obflow sandbox --refresh-tokens as-registered`: the bank grants refresh tokens only to a
// client whose registered grant_types lists refresh_token (RFC 7591 §2), so the §2.1 registration (authorization_code,
// client_credentials) gets none and a TPP's "no refresh token" path can be shown against the emulator. The default
// (`always`) is the bank as before: refresh_token granted with authorization_code.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SandboxTpp, startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';

let asRegistered: TestSandbox;
let byDefault: TestSandbox;
const tpps: SandboxTpp[] = [];

beforeAll(async () => {
  [asRegistered, byDefault] = await Promise.all([startTestSandbox({ refreshTokens: 'as-registered' }), startTestSandbox()]);
});
afterAll(async () => {
  await Promise.all(tpps.map((tpp) => tpp.close()));
  await Promise.all([asRegistered?.close(), byDefault?.close()]);
});

async function tppAt(sandbox: TestSandbox, overrides: Record<string, unknown> = {}): Promise<SandboxTpp> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless');
  tpps.push(tpp);
  await tpp.register(overrides);
  return tpp;
}

describe('--refresh-tokens as-registered', () => {
  it('the §2.1 registration: grant_types without refresh_token, no refresh token, the grant is unauthorized_client', async () => {
    const tpp = await tppAt(asRegistered);
    expect(tpp.client?.grant_types).toEqual(['authorization_code', 'client_credentials']);
    const flow = await tpp.headlessFlow({ responseType: 'code' });
    expect(flow.refreshToken).toBeUndefined();
    const refreshed = await tpp.token({ grant_type: 'refresh_token', refresh_token: 'anything' });
    expect(refreshed.json<{ error: string }>().error).toBe('unauthorized_client');
  });

  it('a client that registers refresh_token gets refresh tokens', async () => {
    const tpp = await tppAt(asRegistered, { grant_types: ['authorization_code', 'client_credentials', 'refresh_token'] });
    const flow = await tpp.headlessFlow({ responseType: 'code' });
    expect(flow.refreshToken).toBeDefined();
    expect((await tpp.token({ grant_type: 'refresh_token', refresh_token: flow.refreshToken ?? '' })).status).toBe(200);
  });

  it('by default (always) the §2.1 registration gets refresh_token, as before', async () => {
    const tpp = await tppAt(byDefault);
    expect(tpp.client?.grant_types).toContain('refresh_token');
    expect((await tpp.headlessFlow({ responseType: 'code' })).refreshToken).toBeDefined();
  });
});
