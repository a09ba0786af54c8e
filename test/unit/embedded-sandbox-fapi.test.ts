// The embedded sandbox's FAPI profile (src/state/embedded-sandbox.ts): it follows a TPP configured for FAPI 2.0
// (embeddedFapi) while sandbox.fapi is the interface's default, and a 2.0 sandbox that cannot be started (PAR not
// required, only client_secret_basic accepted) is one coded line naming both settings, before anything starts —
// from `obflow sandbox`'s flags and from `obflow demo`'s config alike (fapiContradiction, called by startEmbeddedSandbox).
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { embeddedFapi, fapiContradiction, startEmbeddedSandbox } from '../../src/state/embedded-sandbox.js';
import { errorOf } from '../helpers/errors.js';

const FAPI2_CLIENT = { bank: { token_endpoint_auth_method: 'private_key_jwt' }, flow: { fapi: '2.0', responseType: 'code' } };

describe('the embedded sandbox and FAPI 2.0', () => {
  it('follows flow.fapi "2.0" while sandbox.fapi is the default; an explicit sandbox.fapi wins', () => {
    expect(embeddedFapi(parseConfig({}, 'test'))).toBe('interface');
    expect(embeddedFapi(parseConfig(FAPI2_CLIENT, 'test'))).toBe('2.0');
    expect(embeddedFapi(parseConfig({ ...FAPI2_CLIENT, sandbox: { fapi: '1-advanced' } }, 'test'))).toBe('1-advanced');
  });

  it('followed, with sandbox.tokenAuth client_secret_basic alone: ERR_CONFIG_INVALID naming both, before the start', async () => {
    const config = parseConfig({ ...FAPI2_CLIENT, sandbox: { tokenAuth: ['client_secret_basic'] } }, 'test');
    const error = await errorOf(startEmbeddedSandbox(config, { dataDir: '/nonexistent/never-written' }));
    expect(error?.code).toBe('ERR_CONFIG_INVALID');
    expect(error?.message).toContain('flow.fapi "2.0" (the embedded sandbox follows it)');
    expect(error?.message).toContain('sandbox.tokenAuth has only client_secret_basic');
  });

  it('a flag in the pair makes it a usage error naming the flag', () => {
    const config = parseConfig(FAPI2_CLIENT, 'test');
    expect(fapiContradiction(config, { par: 'optional' })?.code).toBe('ERR_USAGE');
    expect(fapiContradiction(config, { tokenAuthMethods: ['client_secret_basic'] })?.message).toContain('--token-auth');
    expect(fapiContradiction(config, {})).toBeUndefined();
    expect(fapiContradiction(parseConfig({}, 'test'), { par: 'off' })).toBeUndefined();
  });
});
