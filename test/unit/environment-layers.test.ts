// The layers of the environment `obflow environment` writes (buildObflowEnvironment): on a key both
// obflow's variable contract and the bank's helper file name, the helper's value wins over obflow's initial value —
// even where obflow's is not empty (response_type, max_pages, token_endpoint_auth_method) — and discovery and the
// overrides win over the helper, in that order.

import { describe, expect, it } from 'vitest';

import { buildObflowEnvironment, environmentValue, flowDefaults } from '../../src/environment/index.js';

const helper = {
  values: [
    { key: 'rs', value: 'https://helper.example:8443', type: 'default', enabled: true },
    { key: 'response_type', value: 'code', type: 'default', enabled: true },
    { key: 'max_pages', value: '7', type: 'default', enabled: true },
    { key: 'token_endpoint_auth_method', value: 'private_key_jwt', type: 'default', enabled: true },
    { key: 'tokenEndpoint', value: 'https://stale.example/token', type: 'default', enabled: true },
    { key: 'request-scope', value: 'openid accounts', type: 'default', enabled: true },
  ],
};

describe('buildObflowEnvironment: contract defaults < helper file < discovery < overrides', () => {
  it("the helper's value wins over obflow's on every key they share, non-empty defaults included", () => {
    const defaults = flowDefaults();
    // The premise: obflow's contract names these keys, some with a value of its own.
    expect(defaults.response_type).toBe('code id_token');
    expect(defaults.max_pages).toBe('200');
    expect(defaults.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(defaults.rs).toBe('');

    const environment = buildObflowEnvironment({ name: 'layers', bank: helper });
    for (const { key, value } of helper.values) expect(environmentValue(environment, key), key).toBe(value);
    // A key only obflow names keeps obflow's value.
    expect(environmentValue(environment, 'consent_mode')).toBe(defaults.consent_mode);
  });

  it('discovery wins over the helper file, and an override over both', () => {
    const environment = buildObflowEnvironment({
      name: 'layers',
      bank: helper,
      discovery: {
        addresses: {
          issuer: 'https://bank.example',
          authorization_endpoint: 'https://bank.example/auth',
          token_endpoint: 'https://bank.example/token',
        },
        url: 'https://bank.example/.well-known/openid-configuration',
      },
      overrides: { max_pages: '3', response_type: undefined },
    });
    expect(environmentValue(environment, 'tokenEndpoint')).toBe('https://bank.example/token');
    expect(environmentValue(environment, 'max_pages')).toBe('3');
    // undefined never overrides: the helper's value stays.
    expect(environmentValue(environment, 'response_type')).toBe('code');
  });
});
