// What `obflow environment` says the written file holds (src/pipeline/environment.ts environmentSecretsHeld): the
// secret of the method at hand, not "the client secret" for every client.

import { describe, expect, it } from 'vitest';

import { environmentSecretsHeld } from '../../src/pipeline/environment.js';

const environment = (values: Record<string, [string, 'secret' | 'default']>) => ({
  values: Object.entries(values).map(([key, [value, type]]) => ({ key, value, type, enabled: true })),
});

describe('environmentSecretsHeld', () => {
  it.each<[string, Record<string, [string, 'secret' | 'default']>, string[]]>([
    [
      'client_secret_basic',
      { _clientSecret: ['s', 'secret'], basicToken: ['b', 'secret'], signing_key: ['', 'secret'] },
      ['the client secret'],
    ],
    ['private_key_jwt', { _clientSecret: ['', 'secret'], signing_key: ['{"kty":"RSA"}', 'secret'] }, ['the private signing key']],
    ['tls_client_auth', { _clientSecret: ['', 'secret'], signing_key: ['', 'secret'], access_token: ['', 'secret'] }, []],
    [
      "a bank helper's own secret",
      { _clientSecret: ['', 'secret'], bank_api_key: ['k', 'secret'], rs: ['https://x', 'default'] },
      ['the secret values of bank_api_key'],
    ],
  ])('%s', (_name, values, held) => {
    expect(environmentSecretsHeld(environment(values))).toEqual(held);
  });
});
