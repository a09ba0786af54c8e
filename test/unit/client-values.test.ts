// obflow's own client in the environment (src/pipeline/client-values.ts): the signing key the collections sign with.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientValues } from '../../src/pipeline/client-values.js';
import type { StoredRegistration } from '../../src/registration/index.js';

const registration: StoredRegistration = {
  version: 1,
  software_id: 'software',
  target: 'sandbox',
  profile: 'strict-headless',
  auth_url: 'https://bank.example/',
  registration_endpoint: 'https://bank.example/register',
  registered_at: '2026-11-25T00:00:00.000Z',
  client_id: 'client-1',
  token_endpoint_auth_method: 'private_key_jwt',
  request_object_signing_alg: 'PS256',
  metadata: { client_id: 'client-1', redirect_uris: ['https://tpp.example/cb'] },
};
const values = (key: KeyObject, registered = registration) =>
  clientValues({ registration: registered, redirectUris: [], statementRedirectUris: [], signingKid: 'kid-1', signingKey: async () => key });

describe('the signing key in the environment', () => {
  it('an RSA key is saved as its JWK with the kid', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const result = await values(privateKey);
    expect(JSON.parse(result.signing_key ?? '')).toMatchObject({ kty: 'RSA', d: expect.any(String) });
    expect(result.signing_kid).toBe('kid-1');
  });

  it.each([
    ['ec', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey],
    ['rsa-pss', () => generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).privateKey],
  ])('a %s key is ERR_KEY_INVALID naming its type, with a hint', async (type, make) => {
    await expect(values(make())).rejects.toMatchObject({
      code: 'ERR_KEY_INVALID',
      message: `the signing key is ${type}, PS256 needs RSA`,
      hint: expect.stringContaining('RSA signing key'),
    });
  });

  it('a client that signs nothing never reads the key', async () => {
    const basic = {
      ...registration,
      token_endpoint_auth_method: 'client_secret_basic' as const,
      request_object_signing_alg: 'none' as const,
      client_secret: 's',
    };
    const result = await values(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, basic);
    expect(result.signing_key).toBe('');
  });
});
