// Environment merge rules: disabled entries dropped, secrets typed, precedence flow < bank < discovery < overrides,
// deterministic bytes (fixed id, sorted, no timestamps), helper URL building.

import { describe, expect, it } from 'vitest';
import {
  environmentHelperUrl,
  environmentIdOf,
  environmentValue,
  mergeEnvironment,
  serializeEnvironment,
  withEnvironmentValues,
} from '../../src/environment/index.js';

const bank = {
  name: 'Sandbox client',
  values: [
    { key: 'rs', value: 'https://bank.example:8443', type: 'default', enabled: true },
    { key: 'tokenEndpoint', value: 'https://stale.example/token', type: 'default', enabled: true },
    { key: '_clientId', value: 'client-1', type: 'default', enabled: true },
    { key: 'oidcClient', value: 'client-secret-value', type: 'secret', enabled: true },
    { key: 'basicToken', value: 'Y2xpZW50LTE6c2VjcmV0', type: 'default', enabled: true },
    { key: 'oldOnly', value: 'postman-app-disabled', type: 'default', enabled: false },
    { key: 'legacyDisabled', value: 'x', disabled: true },
    { key: 'count', value: 3 },
  ],
};

describe('mergeEnvironment', () => {
  it('drops entries marked enabled:false or disabled:true (newman would still substitute enabled:false)', () => {
    const env = mergeEnvironment({ name: 'n', bank });
    expect(environmentValue(env, 'oldOnly')).toBeUndefined();
    expect(environmentValue(env, 'legacyDisabled')).toBeUndefined();
    expect(env.values.every((entry) => entry.enabled)).toBe(true);
  });

  it('types secrets: by the bank, by the contract, and by name even when a layer forgot', () => {
    const env = mergeEnvironment({
      name: 'n',
      bank,
      flow: { consent_id: '', max_pages: '200', access_token: '' },
      secretKeys: ['consent_id'],
    });
    const typeOf = (key: string) => env.values.find((entry) => entry.key === key)?.type;
    expect(typeOf('oidcClient')).toBe('secret');
    expect(typeOf('basicToken')).toBe('secret');
    expect(typeOf('access_token')).toBe('secret');
    expect(typeOf('consent_id')).toBe('secret');
    expect(typeOf('tokenEndpoint')).toBe('default');
    expect(typeOf('max_pages')).toBe('default');
    expect(typeOf('rs')).toBe('default');
  });

  it('applies precedence flow < bank < discovery < overrides; undefined never overrides', () => {
    const env = mergeEnvironment({
      name: 'n',
      flow: { rs: 'flow-rs', tokenEndpoint: 'flow-token', only_flow: 'f', max_pages: '200' },
      bank,
      discovery: { tokenEndpoint: 'https://bank.example:9443/token' },
      overrides: { max_pages: '5', rs: undefined },
    });
    expect(environmentValue(env, 'only_flow')).toBe('f');
    expect(environmentValue(env, 'rs')).toBe('https://bank.example:8443');
    expect(environmentValue(env, 'tokenEndpoint')).toBe('https://bank.example:9443/token');
    expect(environmentValue(env, 'max_pages')).toBe('5');
    expect(environmentValue(env, 'count')).toBe('3');
  });

  it('is deterministic: derived id, sorted keys, 2-space JSON with a trailing newline, no timestamps', () => {
    const a = serializeEnvironment(mergeEnvironment({ name: 'obflow sandbox strict-headless', bank, flow: { z: '1', a: '2' } }));
    const b = serializeEnvironment(
      mergeEnvironment({ name: 'obflow sandbox strict-headless', bank: { values: [...bank.values].reverse() }, flow: { a: '2', z: '1' } }),
    );
    expect(a).toBe(b);
    expect(a.endsWith('}\n')).toBe(true);
    expect(a).not.toMatch(/_postman_exported_at|timestamp/);
    const parsed = JSON.parse(a) as { id: string; values: { key: string }[]; _postman_variable_scope: string };
    expect(parsed.id).toBe(environmentIdOf('obflow sandbox strict-headless'));
    expect(parsed.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parsed.id).not.toBe(environmentIdOf('obflow sandbox permissive-headless'));
    const keys = parsed.values.map((entry) => entry.key);
    expect(keys).toEqual([...keys].sort());
    expect(a).toBe(`${JSON.stringify(JSON.parse(a), null, 2)}\n`);
    expect(parsed._postman_variable_scope).toBe('environment');
  });

  it('updates values in a copy, typing new keys by name', () => {
    const env = mergeEnvironment({ name: 'n', flow: { b: '1' } });
    const next = withEnvironmentValues(env, { auth_code: 'abc', a: 'x' });
    expect(next.values.map((entry) => [entry.key, entry.type])).toEqual([
      ['a', 'default'],
      ['auth_code', 'secret'],
      ['b', 'default'],
    ]);
    expect(environmentValue(env, 'auth_code')).toBeUndefined();
  });
});

describe('environmentHelperUrl', () => {
  it('joins the configurable helper path to {sandbox_base_url}', () => {
    expect(environmentHelperUrl('https://127.0.0.1:8443')).toBe('https://127.0.0.1:8443/sandbox-helper/v1.0/postman/environment');
    expect(environmentHelperUrl('https://bank.example/', '/bank-helper/v1.0/tool/environment')).toBe(
      'https://bank.example/bank-helper/v1.0/tool/environment',
    );
    expect(environmentHelperUrl('https://api.bank.example/sandbox', 'bank-helper/v1.0/tool/environment')).toBe(
      'https://api.bank.example/sandbox/bank-helper/v1.0/tool/environment',
    );
  });
});

describe('one rule for secrets', () => {
  // client_credentials_token is a secret by the collections' contract, though its name does not look like one.
  it('a contract secret added to an environment, or re-read from a file that lost its type, is typed secret', async () => {
    const { withEnvironmentValues } = await import('../../src/environment/merge.js');
    const { parseSavedEnvironment } = await import('../../src/environment/saved.js');
    const base = { id: 'e', name: 'e', values: [], _postman_variable_scope: 'environment' as const };
    const added = withEnvironmentValues(base, { client_credentials_token: 'tok', consent_id: 'c1' });
    expect(added.values.map((entry) => [entry.key, entry.type])).toEqual([
      ['client_credentials_token', 'secret'],
      ['consent_id', 'default'],
    ]);
    const file = JSON.stringify({
      values: [
        { key: 'rs', value: 'https://rs.example:8443' },
        { key: 'client_credentials_token', value: 'tok', type: 'default' },
      ],
    });
    expect(parseSavedEnvironment(file, 'env.json').values.find((entry) => entry.key === 'client_credentials_token')?.type).toBe('secret');
  });
});
