// The saved environment must name the target's bank: a restarted sandbox (new ports) or another bank makes it stale,
// refused before any request with ERR_ENVIRONMENT_STALE (pure check, no sockets).

import { describe, expect, it } from 'vitest';

import { isObflowError } from '../../src/errors.js';
import { checkEnvironmentTarget } from '../../src/pipeline/run-checks.js';
import { codeOf } from '../helpers/errors.js';

const target = {
  name: 'sandbox',
  profile: 'strict-headless',
  resourceBaseUrl: 'https://127.0.0.1:8443',
  authUrl: 'https://127.0.0.1:9443/strict-headless',
};
const environment = (values: Record<string, string>) => ({
  values: Object.entries(values).map(([key, value]) => ({ key, value, type: 'default' as const, enabled: true })),
});
const fresh = {
  rs: 'https://127.0.0.1:8443',
  issuer: 'https://127.0.0.1:9443/strict-headless',
  configEndpoint: 'https://127.0.0.1:9443/strict-headless/.well-known/openid-configuration',
  tokenEndpoint: 'https://127.0.0.1:9443/strict-headless/token',
  redirectUrl: 'https://tpp.obflow.example/callback',
};

describe('checkEnvironmentTarget', () => {
  it("accepts an environment naming the target's addresses (port 443 explicit or not)", () => {
    expect(codeOf(() => checkEnvironmentTarget(environment(fresh), target))).toBeUndefined();
    const bank = {
      name: 'acme',
      profile: 'production',
      resourceBaseUrl: 'https://api.acme.example',
      authUrl: 'https://auth.acme.example:443',
    };
    // A real bank may serve its token endpoint from an mTLS alias host (RFC 8705 §5): not stale.
    expect(
      codeOf(() =>
        checkEnvironmentTarget(
          environment({
            rs: 'https://api.acme.example:443',
            issuer: 'https://auth.acme.example',
            tokenEndpoint: 'https://mtls.acme.example/token',
          }),
          bank,
        ),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['rs', 'https://127.0.0.1:8444'],
    ['issuer', 'https://127.0.0.1:9444/strict-headless'],
    ['configEndpoint', 'https://127.0.0.1:9444/strict-headless/.well-known/openid-configuration'],
    ['tokenEndpoint', 'https://127.0.0.1:9444/strict-headless/token'],
    ['rs', 'https://localhost:8443'],
  ])('refuses a stale %s (%s) with ERR_ENVIRONMENT_STALE, a usage error naming the key', (key, value) => {
    let error: unknown;
    try {
      checkEnvironmentTarget(environment({ ...fresh, [key]: value }), target);
    } catch (caught) {
      error = caught;
    }
    expect(isObflowError(error) && error.code).toBe('ERR_ENVIRONMENT_STALE');
    if (!isObflowError(error)) return;
    expect(error.exitClass).toBe('usage');
    expect(error.message).toContain(key);
    expect(error.hint).toContain('obflow environment');
  });
});

describe('checkEnvironmentTarget: what an origin does not show', () => {
  const withDiscovery = { ...target, discoveryUrl: fresh.configEndpoint };
  const client = {
    client_id: 'c1',
    token_endpoint_auth_method: 'client_secret_basic' as const,
    request_object_signing_alg: 'none' as const,
  };
  const made = { ...fresh, _clientId: 'c1', token_endpoint_auth_method: 'client_secret_basic', request_object_signing_alg: 'none' };

  it('accepts the environment made for this address and client', () => {
    expect(codeOf(() => checkEnvironmentTarget(environment(made), withDiscovery, client))).toBeUndefined();
  });

  it.each([
    [
      'another auth_url path on the same host',
      environment(made),
      { ...withDiscovery, discoveryUrl: 'https://127.0.0.1:9443/permissive-headless/.well-known/openid-configuration' },
      client,
    ],
    ['another client', environment(made), withDiscovery, { ...client, client_id: 'c2' }],
    ['another auth method', environment(made), withDiscovery, { ...client, token_endpoint_auth_method: 'private_key_jwt' as const }],
    ['another request-object alg', environment(made), withDiscovery, { ...client, request_object_signing_alg: 'PS256' as const }],
  ])('refuses %s with ERR_ENVIRONMENT_STALE', (_name, env, where, registration) => {
    expect(codeOf(() => checkEnvironmentTarget(env, where, registration))).toBe('ERR_ENVIRONMENT_STALE');
  });
});
