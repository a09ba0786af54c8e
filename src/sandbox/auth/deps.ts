// What every authorisation-side handler needs: the stores, the bank's signing key, the published addresses, the
// directory's keys, and the injected clock and id source.

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { createLocalJWKSet } from 'jose/jwks/local';
import type { JSONWebKeySet } from 'jose';

import type {
  ConsentStore,
  IdTokenFault,
  ParMode,
  RefreshTokenMode,
  Profile,
  RequestContext,
  SandboxUrls,
  TokenAuthMethod,
} from '../contracts.js';
import type { Bank } from '../data/bank.js';
import type { AuthStore } from '../store/auth-store.js';
import type { FapiModeRow } from './fapi.js';
import type { SigningKey } from './keys.js';
import type { AuthRoute, IssuerRoute } from './routes.js';
import type { PageSkin } from './pages.js';

/** A key-set resolver over the directory's JWKS, as jose's jwtVerify takes it. */
export type DirectoryKeys = ReturnType<typeof createLocalJWKSet>;

/** Builds the directory's key set once per sandbox (createLocalJWKSet imports keys lazily and caches them). */
export function directoryKeySet(jwks: { keys: Record<string, unknown>[] }): DirectoryKeys {
  return createLocalJWKSet(jwks as JSONWebKeySet);
}

export interface AuthDeps {
  store: AuthStore;
  consents: ConsentStore;
  /** The ID-token key; generated in the background on a first start (RSA key generation is the slow part of
   *  start-up), so the first requests need not wait for it. */
  signingKey(): Promise<SigningKey>;
  /** The bank's message-signing key (x-jws-signature of the signed answers), when a served API signs: published in
   *  every issuer's JWKS beside the ID-token key. */
  messageSigningKey?: (() => Promise<SigningKey>) | undefined;
  /** Issue deliberately wrong id_tokens (SandboxOptions.idTokenFault); undefined: correct ones. */
  idTokenFault?: IdTokenFault | undefined;
  /** The client authentication methods this bank accepts (SandboxOptions.tokenAuthMethods, resolved). */
  tokenAuthMethods: readonly TokenAuthMethod[];
  /** Pushed authorization requests (SandboxOptions.par); absent: off. */
  par?: ParMode;
  /** The FAPI mode's row (SandboxOptions.fapi resolved, src/sandbox/auth/fapi.ts): what the mode changes. */
  fapi: FapiModeRow;
  /** SandboxOptions.refreshTokens; absent: `always`. */
  refreshTokens?: RefreshTokenMode;
  urls: SandboxUrls;
  /** The trust directory's keys (verify software statements), built once by startSandbox from SandboxOptions.directoryJwks. */
  directoryKeys: DirectoryKeys;
  /** The generated bank, the same object the resource side reads: which accounts a PSU holds, and their names. */
  bank: Bank;
  now(): Date;
  newId(): string;
  /** The look of the PSU pages (SandboxOptions.pageSkin). */
  pageSkin?: PageSkin;
}

/** One request to an authorisation-side handler: what every handler takes, with `deps`, as `(call, deps)`. */
export interface AuthCall<R extends AuthRoute = AuthRoute> {
  req: IncomingMessage;
  res: ServerResponse;
  ctx: RequestContext;
  route: R;
}

/** A request under one issuer: the call carries the issuer's profile and addresses. */
export interface IssuerCall<K extends IssuerRoute['kind'] = IssuerRoute['kind']> extends AuthCall<Extract<IssuerRoute, { kind: K }>> {
  profile: Profile;
  issuer: SandboxUrls['profiles'][Profile['name']];
}

/** Unguessable bearer values (client secrets, codes, tokens): never from the injectable id source. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
