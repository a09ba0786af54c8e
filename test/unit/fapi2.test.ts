// flow.fapi "2.0", obflow's side: what the config refuses (naming both settings, from the file and
// from flags alike), what the FAPI 2.0 collections send and check (run as rendered in a vm with a small pm double),
// what registration asks for, and the iss rule of obflow's own consent drivers. The whole flow against a server
// nobody here wrote: test/integration/oidc-bank.test.ts (its fapi2 rows).

import { generateKeyPairSync } from 'node:crypto';
import { createContext, runInContext } from 'node:vm';
import { expect as chaiExpect } from 'chai';
import { describe, expect, it } from 'vitest';

import { FAPI_PROFILES, type FapiProfile } from '../../src/fapi-profile.js';
import { codeOf } from '../helpers/errors.js';

import { commandOverrides } from '../../src/cli/flags.js';
import { configOverrides } from '../../src/config/overrides.js';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { ObflowError } from '../../src/errors.js';
import { buildCollections, FLOW_FILE_NAME, loadTemplates } from '../../src/generate/index.js';
import { parForGeneration } from '../../src/pipeline/generate.js';
import { tokenAuthSetting } from '../../src/pipeline/register.js';
import { buildRegistrationClaims } from '../../src/registration/claims.js';
import { buildRegistrationRequest, type RegisterClientInput } from '../../src/registration/index.js';
import { readConsentRedirect } from '../../src/run/consent/redirect.js';
import { BANK_IDENTITY } from '../helpers/config-fixtures.js';
import { SANDBOX_MODULES } from '../helpers/script-double.js';

const bankConfig = (flow: Record<string, unknown>, method = 'private_key_jwt') => ({
  target: 'bank',
  flow,
  bank: { auth_url: 'https://as.example', sandbox_base_url: 'https://rs.example', token_endpoint_auth_method: method },
  identity: BANK_IDENTITY,
});
const FAPI2 = { fapi: '2.0', responseType: 'code' };

function configError(raw: unknown): ObflowError {
  try {
    parseConfig(raw, 'test');
  } catch (error) {
    if (error instanceof ObflowError) return error;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('flow.fapi "2.0": a configuration that cannot work is ERR_CONFIG_INVALID naming both settings', () => {
  it('accepts 2.0 with code, PAR auto or always, private_key_jwt, tls_client_auth or auto; 1-advanced is the default', () => {
    for (const method of ['private_key_jwt', 'tls_client_auth', 'auto'])
      expect(parseConfig(bankConfig(FAPI2, method), 'test').flow.fapi).toBe(FAPI_PROFILES['2.0']);
    expect(parseConfig(bankConfig({ ...FAPI2, par: 'always' }), 'test').flow.par).toBe('always');
    expect(parseConfig({}, 'test').flow.fapi).toBe(FAPI_PROFILES['1-advanced']);
  });

  it('client_secret_basic named: refused naming both settings, and never called a default', () => {
    const error = configError(bankConfig(FAPI2, 'client_secret_basic'));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('flow.fapi "2.0"');
    expect(error.message).toContain('bank.token_endpoint_auth_method "client_secret_basic"');
    expect(error.message).not.toContain('default');
  });

  it('responseType "code id_token" named: refused naming both settings, and never called a default', () => {
    const error = configError(bankConfig({ fapi: '2.0', responseType: 'code id_token' }));
    expect(error.message).toContain('flow.fapi "2.0"');
    expect(error.message).toContain('flow.responseType "code"');
    expect(error.message).toContain('"code id_token"');
    expect(error.message).not.toContain('default');
  });

  // oidc-provider's rule: a profile sets what the user left unset; only an explicit contradiction is refused.
  it("what the user left out follows the profile: code, private_key_jwt, PS256 under 2.0; §2.1's under 1-advanced", () => {
    for (const raw of [{ flow: { fapi: '2.0' } }, { flow: { fapi: '2.0' }, bank: { name: 'b' } }]) {
      const config = parseConfig(raw, 'test');
      expect(config.flow.responseType).toBe('code');
      expect(config.flow.request_object_signing_alg).toBe('PS256');
      expect(tokenAuthSetting(config)).toBe('private_key_jwt');
    }
    expect(parseConfig({ flow: { fapi: '2.0' }, bank: { name: 'b' } }, 'test').bank?.token_endpoint_auth_method).toBe('private_key_jwt');
    const fapi1 = parseConfig({ bank: { name: 'b' } }, 'test');
    expect([fapi1.flow.responseType, fapi1.flow.request_object_signing_alg, tokenAuthSetting(fapi1)]).toEqual([
      'code id_token',
      'none',
      'client_secret_basic',
    ]);
    expect(tokenAuthSetting(parseConfig({}, 'test'))).toBe('client_secret_basic');
    // What the user set stays theirs, where the profile allows it.
    const set = parseConfig(bankConfig({ fapi: '2.0', request_object_signing_alg: 'none' }, 'tls_client_auth'), 'test');
    expect([set.flow.request_object_signing_alg, tokenAuthSetting(set)]).toEqual(['none', 'tls_client_auth']);
  });

  it('flow.par "never", and flow.jarm', () => {
    const never = configError(bankConfig({ ...FAPI2, par: 'never' }));
    expect(never.message).toContain('flow.fapi "2.0"');
    expect(never.message).toContain('flow.par "never"');
    expect(configError(bankConfig({ ...FAPI2, jarm: true })).message).toMatch(/flow\.fapi "2\.0".*flow\.jarm/);
  });

  it('the --fapi and --response-type flags go through the same check', () => {
    const flags = configOverrides(commandOverrides({ fapi: '2.0', 'response-type': 'code id_token' }));
    let error: unknown;
    try {
      loadConfig({ cwd: '/', env: {}, flags: flags as Record<string, unknown>, checkFiles: false });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ObflowError);
    expect((error as ObflowError).code).toBe('ERR_CONFIG_INVALID');
    expect((error as ObflowError).message).toMatch(/flow\.fapi "2\.0".*flow\.responseType "code"/);
    // The auth method was not set: it follows the profile, and is not named.
    expect((error as ObflowError).message).not.toContain('bank.token_endpoint_auth_method');
  });

  it('PAR "auto" pushes under 2.0 wherever the target is', () => {
    expect(parForGeneration({ target: 'bank', flow: { par: 'auto', fapi: FAPI_PROFILES['2.0'] }, sandbox: { par: 'off' } })).toBe(true);
    expect(parForGeneration({ target: 'bank', flow: { par: 'auto', fapi: FAPI_PROFILES['1-advanced'] }, sandbox: { par: 'off' } })).toBe(
      false,
    );
  });
});

describe('registration under 2.0', () => {
  const input = {
    softwareStatement: 'ssa',
    statementClaims: { software_id: 'sw', software_roles: ['AISP'], software_redirect_uris: ['https://tpp.example/cb'] },
    authUrl: 'https://as.example',
    now: () => new Date(0),
    newJti: () => 'jti',
    tokenEndpointAuthMethod: 'private_key_jwt' as const,
    fapi: FAPI_PROFILES['1-advanced'],
  };
  const fapi2 = FAPI_PROFILES['2.0'];
  it('asks response_types ["code"] only (no hybrid flow); FAPI 1 Advanced keeps §2.1\'s two', () => {
    expect(buildRegistrationClaims({ ...input, fapi: fapi2 }).response_types).toEqual(['code']);
    expect(buildRegistrationClaims(input).response_types).toEqual(['code', 'code id_token']);
    expect(buildRegistrationClaims({ ...input, fapi: fapi2 }).tls_client_certificate_bound_access_tokens).toBe(true);
  });
  it('asks certificate-bound tokens with every method under 2.0 (the row), with all but client_secret_basic under 1-advanced', () => {
    const basic = { ...input, tokenEndpointAuthMethod: 'client_secret_basic' as const };
    expect(buildRegistrationClaims({ ...basic, fapi: fapi2 }).tls_client_certificate_bound_access_tokens).toBe(true);
    expect(buildRegistrationClaims(basic).tls_client_certificate_bound_access_tokens).toBeUndefined();
  });
  it('token auth "auto" that lands on client_secret_basic (all the bank lists) is ERR_CONFIG_INVALID naming both', async () => {
    const request = buildRegistrationRequest({
      ...input,
      fapi: FAPI_PROFILES['2.0'],
      tokenEndpointAuthMethod: 'auto',
      authMethodsSupported: () => Promise.resolve(['client_secret_basic']),
    } as unknown as RegisterClientInput);
    await expect(request).rejects.toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      message: expect.stringMatching(/flow\.fapi "2\.0".*bank\.token_endpoint_auth_method "auto"/),
    });
  });
});

// ---- the collections' scripts, as rendered --------------------------------------------------------------------------

interface PmItem {
  name: string;
  item?: PmItem[];
  event?: { listen: string; script: { exec: string[] } }[];
}
const templates = loadTemplates();
function scriptOf(options: { par?: boolean; fapi?: FapiProfile }, itemName: string, listen: 'prerequest' | 'test'): string {
  const flow = JSON.parse(buildCollections({ templates, ...options }).find((file) => file.fileName === FLOW_FILE_NAME)?.json ?? '{}') as {
    item: PmItem[];
  };
  const item = flow.item.flatMap((folder) => folder.item ?? []).find((candidate) => candidate.name === itemName);
  if (item === undefined) throw new Error(`no item ${itemName}`);
  return item.event?.find((event) => event.listen === listen)?.script.exec.join('\n') ?? '';
}

/** Runs a script with a pm double: environment, the request's form and headers, the response's Location, pm.test. */
function run(code: string, env: Record<string, string>, location = '') {
  const values = new Map(Object.entries(env));
  const form: { key: string; value: string }[] = [];
  const tests: { name: string; passed: boolean }[] = [];
  const pm = {
    environment: {
      get: (key: string) => values.get(key),
      set: (key: string, value: unknown) => values.set(key, String(value)),
      unset: (key: string) => values.delete(key),
    },
    request: {
      headers: { get: () => 'ia-1', remove: () => undefined },
      body: { urlencoded: { add: (pair: { key: string; value: string }) => form.push(pair) } },
    },
    response: {
      code: 302,
      status: 'Found',
      headers: { get: (name: string) => (name.toLowerCase() === 'location' ? location : undefined) },
    },
    test: (name: string, fn: () => void) => {
      try {
        fn();
        tests.push({ name, passed: true });
      } catch {
        tests.push({ name, passed: false });
      }
    },
    expect: chaiExpect,
  };
  runInContext(code, createContext({ pm, console, require: (name: string) => SANDBOX_MODULES[name] }));
  const field = (key: string) => form.find((pair) => pair.key === key)?.value ?? '';
  return { field, tests, env: values, failed: () => tests.filter((test) => !test.passed).map((test) => test.name) };
}

const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

const signingJwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
const ENV = {
  _clientId: 'client-1',
  redirectUrl: 'https://tpp.example/cb',
  response_type: 'code',
  consent_id: 'consent-1',
  issuer: 'https://as.example',
  tokenEndpoint: 'https://as.example/token',
  authEndpoint: 'https://as.example/auth',
  signing_key: JSON.stringify(signingJwk),
  signing_kid: 'k1',
  token_endpoint_auth_method: 'private_key_jwt',
};
const PAR_ITEM = 'psu-consent: POST pushed authorization request';
const AUTHORIZE_ITEM = 'psu-consent: GET authorization endpoint';

describe('FAPI 2.0 collections', () => {
  it('the pushed request object is typed oauth-authz-req+jwt (PS256 and none); the client assertion stays JWT with aud = the issuer', () => {
    for (const alg of ['PS256', 'none']) {
      const pushed = run(scriptOf({ fapi: FAPI_PROFILES['2.0'] }, PAR_ITEM, 'prerequest'), { ...ENV, request_object_signing_alg: alg });
      expect(headerOf(pushed.field('request'))).toMatchObject({ alg, typ: 'oauth-authz-req+jwt' });
      expect(pushed.field('code_challenge_method')).toBe('S256');
      const assertion = pushed.field('client_assertion');
      expect(headerOf(assertion).typ).toBe('JWT');
      expect(claimsOf(assertion).aud).toBe('https://as.example');
    }
    // Every token request of the flow too (FAPI 2.0 Security Profile §5.3.2.1 has the server accept the issuer).
    const exchange = run(scriptOf({ fapi: FAPI_PROFILES['2.0'] }, 'code-exchange: POST token', 'prerequest'), ENV);
    expect(claimsOf(exchange.field('client_assertion')).aud).toBe('https://as.example');
  });

  it('FAPI 1 Advanced with PAR as before: request object typ JWT, assertion aud = the token endpoint', () => {
    const pushed = run(scriptOf({ par: true }, PAR_ITEM, 'prerequest'), { ...ENV, request_object_signing_alg: 'PS256' });
    expect(headerOf(pushed.field('request')).typ).toBe('JWT');
    expect(claimsOf(pushed.field('client_assertion')).aud).toBe('https://as.example/token');
  });

  it('the default collections carry none of it (the golden files: generate.test.ts)', () => {
    const flow = buildCollections({ templates }).find((file) => file.fileName === FLOW_FILE_NAME)?.json ?? '';
    expect(flow).not.toContain('oauth-authz-req+jwt');
    expect(flow).not.toContain('typ || ');
    expect(flow).not.toContain('RFC 9207 §2) is in the redirect');
  });

  it('the redirect must carry iss, equal to the issuer (RFC 9207)', () => {
    const test = scriptOf({ fapi: FAPI_PROFILES['2.0'] }, AUTHORIZE_ITEM, 'test');
    const redirect = (query: string) => run(test, { ...ENV, state: 's1' }, `https://tpp.example/cb?code=c1&state=s1${query}`);
    const ISS_TEST = 'iss (RFC 9207 §2) is in the redirect and is the issuer (FAPI 2.0)';
    expect(redirect('&iss=https%3A%2F%2Fas.example').failed()).toEqual([]);
    expect(redirect('&iss=https%3A%2F%2Fas.example').tests.map((t) => t.name)).toContain(ISS_TEST);
    expect(redirect('').failed()).toEqual([ISS_TEST]);
    expect(redirect('&iss=https%3A%2F%2Fevil.example').failed()).toContain(ISS_TEST);
    // RFC 9207 §2.4: without a good iss the code is not used — taken back from the environment; kept with one.
    expect(redirect('').env.has('auth_code')).toBe(false);
    expect(redirect('&iss=https%3A%2F%2Fevil.example').env.has('auth_code')).toBe(false);
    expect(redirect('&iss=https%3A%2F%2Fas.example').env.get('auth_code')).toBe('c1');
    // FAPI 1 Advanced: iss checked only when present (psu-consent.test).
    const advanced = run(
      scriptOf({ par: true }, AUTHORIZE_ITEM, 'test'),
      { ...ENV, state: 's1' },
      'https://tpp.example/cb?code=c1&state=s1',
    );
    expect(advanced.failed()).toEqual([]);
  });
});

describe('FAPI 1 Advanced collections (the default): iss checked where the bank sends it', () => {
  // RFC 9207 §2.4: a client that gets iss compares it with the issuer, whatever its profile — a response from another
  // authorization server (mix-up) must not be taken. Only FAPI 2.0 requires it to be there (above).
  it('a present iss must be the issuer; an absent one is no check at all', () => {
    const test = scriptOf({}, AUTHORIZE_ITEM, 'test');
    const redirect = (query: string) => run(test, { ...ENV, state: 's1' }, `https://tpp.example/cb?code=c1&state=s1${query}`);
    const ISS_TEST = 'iss (RFC 9207) is the issuer';
    expect(redirect('&iss=https%3A%2F%2Fas.example').tests.map((t) => t.name)).toContain(ISS_TEST);
    expect(redirect('&iss=https%3A%2F%2Fas.example').failed()).toEqual([]);
    expect(redirect('&iss=https%3A%2F%2Fevil.example').failed()).toEqual([ISS_TEST]);
    expect(redirect('').tests.map((t) => t.name)).not.toContain(ISS_TEST);
    expect(redirect('').failed()).toEqual([]);
  });
});

describe("obflow's consent drivers: iss in the redirect (RFC 9207)", () => {
  const expected = { redirectUri: 'https://tpp.example/cb', state: 's1', issuer: 'https://as.example' };
  it('FAPI 2.0 requires it; any profile refuses another issuer', () => {
    const bare = 'https://tpp.example/cb?code=c1&state=s1';
    expect(readConsentRedirect(bare, expected).code).toBe('c1');
    expect(codeOf(() => readConsentRedirect(bare, { ...expected, requireIss: true }))).toBe('ERR_REMOTE_RESPONSE');
    expect(readConsentRedirect(`${bare}&iss=https%3A%2F%2Fas.example`, { ...expected, requireIss: true }).code).toBe('c1');
    expect(codeOf(() => readConsentRedirect(`${bare}&iss=https%3A%2F%2Fevil.example`, expected))).toBe('ERR_REMOTE_RESPONSE');
  });
});
