// The bank's ID-token signing key (PS256, RSA 2048): generated on first start and kept in the data directory's
// keys.json ({"id-token": <private JWK>}), so a restarted sandbox keeps verifying the ID tokens it issued before;
// published per issuer at {auth_url}/jwks. A keys.json that cannot be used stops the start (SandboxDataError).

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { calculateJwkThumbprint } from 'jose/jwk/thumbprint';
import { exportJWK } from 'jose/key/export';
import { generateKeyPair } from 'jose/key/generate/keypair';
import { importJWK } from 'jose/key/import';
import type { CryptoKey, JWK } from 'jose';

import { SandboxDataError } from '../contracts.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** The ID-token key's file in the data folder; its presence also shows the folder was started before (store/db.ts). */
export const KEYS_FILE = 'keys.json';

/** The stored key, or undefined when there is none yet. Throws SandboxDataError when keys.json exists but is not a
 *  usable PS256 private key (damaged, truncated, edited). */
export async function readSigningKey(dataDir: string): Promise<SigningKey | undefined> {
  const file = join(dataDir, KEYS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxDataError(file, (error as Error).message, { cause: error });
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const jwk =
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>)['id-token'] : undefined;
    if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) throw new Error('no "id-token" key object');
    return await signingKeyOf(jwk as JWK);
  } catch (cause) {
    throw new SandboxDataError(file, cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Generates the key and writes keys.json durably (temporary file, fsync, rename, fsync of the folder). */
export async function createSigningKey(dataDir: string): Promise<SigningKey> {
  const privateJwk = await newIdTokenKey();
  writeDurably(join(dataDir, KEYS_FILE), JSON.stringify({ 'id-token': privateJwk }));
  return signingKeyOf(privateJwk);
}

/** A new ID-token signing key (PS256, RSA 2048) as a private JWK with its kid: 80–270 ms of CPU for the prime search. */
export async function newIdTokenKey(): Promise<JWK> {
  const pair = await generateKeyPair('PS256', { modulusLength: 2048, extractable: true });
  const exported = await exportJWK(pair.privateKey);
  return { ...exported, kid: await calculateJwkThumbprint(exported), alg: 'PS256', use: 'sig' };
}

/** The signing key of a private JWK (keys.json's, or SandboxOptions.idTokenKey); throws when it is not one. */
export async function signingKeyOf(privateJwk: JWK): Promise<SigningKey> {
  const { kty, n, e, d, kid, alg, use } = privateJwk;
  if (kty !== 'RSA' || !n || !e || !d) throw new Error('not an RSA private key');
  if (!kid) throw new Error('the key has no kid');
  const privateKey = (await importJWK(privateJwk, 'PS256')) as CryptoKey;
  const publicJwk: JWK = { kty, n, e, kid, alg, use } as JWK;
  return { kid, privateKey, publicJwk };
}

function writeDurably(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  // The rename itself is durable once the folder is synced.
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
