// flow.par (RFC 9126): which collections push the authorization request, and what PAR adds to them — nothing at all
// when it is off (the golden files stay as they are: generate.test.ts "golden files").

import { describe, expect, it } from 'vitest';

import { FAPI_PROFILES } from '../../src/fapi-profile.js';

import { buildCollections, FLOW_FILE_NAME, loadTemplates } from '../../src/generate/index.js';
import { parseConfig } from '../../src/config/load.js';
import type { ObflowError } from '../../src/errors.js';
import { errorOf } from '../helpers/errors.js';
import { parForGeneration } from '../../src/pipeline/generate.js';
import { assertParSetting } from '../../src/pipeline/par.js';
import { BANK_IDENTITY } from '../helpers/config-fixtures.js';

type Mode = 'auto' | 'always' | 'never';
type SandboxPar = 'required' | 'optional' | 'off';
const config = (target: string, par: Mode, sandboxPar: SandboxPar = 'off') => ({
  target,
  flow: { par, fapi: FAPI_PROFILES['1-advanced'] },
  sandbox: { par: sandboxPar },
});

describe('parForGeneration', () => {
  it('always and never as they say; auto only for the embedded sandbox that requires PAR', () => {
    expect(parForGeneration(config('bank', 'always'))).toBe(true);
    expect(parForGeneration(config('sandbox', 'never', 'required'))).toBe(false);
    expect(parForGeneration(config('sandbox', 'auto', 'required'))).toBe(true);
    expect(parForGeneration(config('sandbox', 'auto', 'optional'))).toBe(false);
    expect(parForGeneration(config('bank', 'auto', 'required'))).toBe(false);
    // What the last discovery read recorded (require_pushed_authorization_requests) turns auto on, never "never".
    expect(parForGeneration(config('bank', 'auto'), true)).toBe(true);
    expect(parForGeneration(config('bank', 'never'), true)).toBe(false);
  });
});

describe('collections with PAR', () => {
  const templates = loadTemplates();
  const flowOf = (par: boolean): string =>
    buildCollections({ templates, par }).find((file) => file.fileName === FLOW_FILE_NAME)?.json ?? '';

  it('off: byte-identical to the default build', () => {
    expect(flowOf(false)).toBe(buildCollections({ templates }).find((file) => file.fileName === FLOW_FILE_NAME)?.json);
  });

  it('on: the pushed request before the authorization request, the endpoint checked at discovery, the verifier at the token endpoint', () => {
    const flow = flowOf(true);
    expect(flow).toContain('psu-consent: POST pushed authorization request');
    expect(flow).toContain('{{parEndpoint}}');
    expect(flow).toContain('{{code_verifier}}');
    expect(flow).toContain('pushed_authorization_request_endpoint');
    expect(flow.indexOf('POST pushed authorization request')).toBeLessThan(flow.indexOf('GET authorization endpoint'));
    expect(flowOf(false)).not.toContain('parEndpoint');
  });
});

describe('assertParSetting (ERR_PAR_UNAVAILABLE, before any request of the flow)', () => {
  const addresses = { issuer: 'https://as', authorization_endpoint: 'https://as/a', token_endpoint: 'https://as/t' };
  const url = 'https://as/.well-known/openid-configuration';
  const parsed = (flow: Record<string, unknown>, target = 'bank', method?: string) =>
    parseConfig(
      target === 'bank'
        ? {
            target,
            flow,
            bank: { auth_url: 'https://as', sandbox_base_url: 'https://rs', ...(method ? { token_endpoint_auth_method: method } : {}) },
            identity: BANK_IDENTITY,
          }
        : { target, flow },
      'test',
    );

  it('always without a PAR endpoint names flow.par and pushed_authorization_request_endpoint', () => {
    const error = refusalOf(() => assertParSetting(parsed({ par: 'always' }), addresses, url));
    expect(error.code).toBe('ERR_PAR_UNAVAILABLE');
    expect(error.message).toContain('flow.par "always"');
    expect(error.message).toContain('pushed_authorization_request_endpoint');
  });

  it('a bank that requires PAR and a setting that does not push: names both; "auto" follows the discovery', () => {
    const required = { ...addresses, pushed_authorization_request_endpoint: 'https://as/par', require_pushed_authorization_requests: true };
    // `auto` pushes where the discovery requires it (the generate stage reads the recorded requirement).
    expect(() => assertParSetting(parsed({ par: 'auto' }), required, url)).not.toThrow();
    for (const par of ['never']) {
      const error = refusalOf(() => assertParSetting(parsed({ par }), required, url));
      expect(error.code).toBe('ERR_PAR_UNAVAILABLE');
      expect(error.message).toContain(`flow.par "${par}"`);
      expect(error.message).toContain('require_pushed_authorization_requests: true');
    }
    expect(() => assertParSetting(parsed({ par: 'always' }), required, url)).not.toThrow();
  });

  it('flow.fapi "2.0" against a bank without PAR: names the profile, and the hint the setting to change (not flow.par)', () => {
    const error = refusalOf(() =>
      assertParSetting(parsed({ fapi: '2.0', responseType: 'code' }, 'bank', 'private_key_jwt'), addresses, url),
    );
    expect(error.code).toBe('ERR_PAR_UNAVAILABLE');
    expect(error.message).toContain('flow.fapi "2.0"');
    expect(error.hint).toContain('flow.fapi to "1-advanced"');
  });

  it('the default setting against a bank without PAR: nothing to say', () => {
    expect(() => assertParSetting(parsed({}), addresses, url)).not.toThrow();
  });
});

/** The ObflowError `fn` throws (the test fails when it throws none). */
function refusalOf(fn: () => void): ObflowError {
  const error = errorOf(fn);
  if (error === undefined) throw new Error('expected an ObflowError');
  return error;
}

describe('flow.jarm', () => {
  it('with flow.responseType "code id_token" is a configuration error naming flow.jarm', () => {
    const error = refusalOf(() => parseConfig({ flow: { jarm: true } }, 'test'));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('flow.jarm');
    expect(() => parseConfig({ flow: { jarm: true, responseType: 'code' } }, 'test')).not.toThrow();
  });
});
