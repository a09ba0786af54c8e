// The bank's ID-token signing key (PS256, RSA 2048): generated on first start and kept in the data directory, so a
// restarted sandbox keeps verifying the ID tokens it issued before; published per issuer at {auth_url}/jwks.

import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey, JWK } from 'jose';

import { JsonCollection } from '../store/json-store.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function loadSigningKey(dataDir: string): Promise<SigningKey> {
  const keys = new JsonCollection<JWK>(dataDir, 'keys');
  let privateJwk = keys.get('id-token');
  if (!privateJwk) {
    const pair = await generateKeyPair('PS256', { modulusLength: 2048, extractable: true });
    const exported = await exportJWK(pair.privateKey);
    privateJwk = { ...exported, kid: await calculateJwkThumbprint(exported), alg: 'PS256', use: 'sig' };
    keys.set('id-token', privateJwk);
  }
  const privateKey = (await importJWK(privateJwk, 'PS256')) as CryptoKey;
  const { kty, n, e, kid, alg, use } = privateJwk;
  const publicJwk: JWK = { kty, n, e, kid, alg, use } as JWK;
  if (!kid) throw new TypeError('stored id-token key has no kid');
  return { kid, privateKey, publicJwk };
}
