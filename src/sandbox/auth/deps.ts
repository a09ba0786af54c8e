// What every authorisation-side handler needs: the stores, the bank's signing key, the published addresses, the
// directory's keys, and the injected clock and id source.

import { randomBytes } from 'node:crypto';

import type { ConsentStore, ProfileName, SandboxUrls } from '../contracts.js';
import { PROFILE_NAMES } from '../contracts.js';
import type { AuthStore } from '../store/auth-store.js';
import type { SigningKey } from './keys.js';

export interface AuthDeps {
  store: AuthStore;
  consents: ConsentStore;
  /** The ID-token key; generated in the background on a first start (RSA key generation is the slow part of
   *  start-up), so the first requests need not wait for it. */
  signingKey(): Promise<SigningKey>;
  urls: SandboxUrls;
  directoryJwks: { keys: Record<string, unknown>[] };
  seed: string;
  now(): Date;
  newId(): string;
}

/** Unguessable bearer values (client secrets, codes, tokens): never from the injectable id source. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function profileOfIssuer(urls: SandboxUrls, issuer: string): ProfileName | undefined {
  return PROFILE_NAMES.find((name) => urls.profiles[name].auth_url === issuer);
}

export function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
