// The bank's signing keys (PS256, RSA 2048): the ID-token key, and — once the bank serves an API whose answers are
// signed (families.ts) — its message-signing key (x-jws-signature, signing.ts). Generated on a first start and kept in
// the data directory's keys.json ({"id-token": <private JWK>, "message-signing": <private JWK>}), so a restarted sandbox
// keeps the keys TPPs verify its ID tokens and answers with; both published per issuer at {auth_url}/jwks. A keys.json
// that cannot be used stops the start (SandboxDataError).

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

/** The keys keys.json holds, by name: "id-token", and "message-signing" once a signed API was served. */
export const KEY_NAMES = { idToken: 'id-token', messageSigning: 'message-signing' } as const;

/** What keys.json holds: the private JWKs as stored (kept as they are when a key is added) and the keys they make. */
export interface StoredKeys {
  jwks: Record<string, JWK>;
  idToken: SigningKey;
  messageSigning: SigningKey | undefined;
}

/** The stored key, or undefined when there is none yet. Throws SandboxDataError when keys.json exists but is not a
 *  usable PS256 private key (damaged, truncated, edited). */
export async function readSigningKey(dataDir: string): Promise<SigningKey | undefined> {
  return (await readKeys(dataDir))?.idToken;
}

/** keys.json, or undefined when there is none yet. Throws SandboxDataError when it exists but holds no usable ID-token
 *  key, or a message-signing key that is not usable. */
export async function readKeys(dataDir: string): Promise<StoredKeys | undefined> {
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
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    const jwks = parsed as Record<string, JWK>;
    const jwk = jwks[KEY_NAMES.idToken];
    if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) throw new Error('no "id-token" key object');
    const message = jwks[KEY_NAMES.messageSigning];
    if (message !== undefined && (message === null || typeof message !== 'object' || Array.isArray(message)))
      throw new Error('"message-signing" is not a key object');
    return {
      jwks,
      idToken: await signingKeyOf(jwk),
      messageSigning: message === undefined ? undefined : await signingKeyOf(message),
    };
  } catch (cause) {
    throw new SandboxDataError(file, cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Generates the key and writes keys.json durably (temporary file, fsync, rename, fsync of the folder). */
export async function createSigningKey(dataDir: string): Promise<SigningKey> {
  return (await completeKeys(dataDir, undefined, { messageSigning: false })).idToken;
}

/**
 * The keys `stored` lacks, generated and written to keys.json with the ones it had (one durable write, never two
 * generations racing for the file): the ID-token key on a first start, the message-signing key once `wanted`.
 */
export async function completeKeys(
  dataDir: string,
  stored: StoredKeys | undefined,
  wanted: { messageSigning: boolean },
): Promise<{ idToken: SigningKey; messageSigning: SigningKey | undefined }> {
  const jwks: Record<string, JWK> = { ...(stored?.jwks ?? {}) };
  const added = async (name: string): Promise<SigningKey> => {
    const jwk = await newIdTokenKey();
    jwks[name] = jwk;
    return signingKeyOf(jwk);
  };
  const idToken = stored?.idToken ?? (await added(KEY_NAMES.idToken));
  const messageSigning = stored?.messageSigning ?? (wanted.messageSigning ? await added(KEY_NAMES.messageSigning) : undefined);
  if (Object.keys(jwks).length !== Object.keys(stored?.jwks ?? {}).length) writeDurably(join(dataDir, KEYS_FILE), JSON.stringify(jwks));
  return { idToken, messageSigning };
}

/** A new signing key (PS256, RSA 2048) as a private JWK with its kid: 80–270 ms of CPU for the prime search. The ID-token
 *  key and the message-signing key are both made here. */
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
