// `obflow register` as one library call: reuse a stored client unless forced, build the §2.1 claims, refuse locally,
// sign (PS256), then either return the dry-run view or POST over mTLS and store the result (docs/bank-interface.md §4.1).

import type { KeyObject } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { buildRegistrationClaims, checkRegistrationLocally, type StatementClaims } from './claims.js';
import { postRegistration } from './register.js';
import { buildSignedRegistration, type SignedRegistration } from './sign.js';
import { readStoredRegistration, registrationPath, writeStoredRegistration, type StoredRegistration } from './store.js';

export * from './claims.js';
export * from './register.js';
export * from './sign.js';
export * from './store.js';

export interface RegisterClientInput {
  stateDir: string;
  target: string;
  profile: string;
  /** {auth_url} of the target/profile: the JWT's aud (unless `audience`). */
  authUrl: string;
  /** The JWT's aud when the bank expects another form than {auth_url} (bank.registration_aud). */
  audience?: string;
  /** Whether to ask for the refresh_token grant too (config `registration.refresh_token_grant`; §2.1 names two grants). */
  refreshTokenGrant?: boolean;
  registrationEndpoint: string;
  softwareStatement: string;
  /** The statement's claims, already verified against the directory (src/pki/verify.ts). */
  statementClaims: StatementClaims;
  statementJwks?: { keys: readonly Record<string, unknown>[] };
  signingKey: KeyObject;
  kid: string;
  transportCertificatePem?: string;
  /** Redirect URIs to register; default all of the statement's. */
  redirectUris?: string[];
  lifetimeSeconds?: number;
  /** Not needed for a dry run. */
  dispatcher?: Dispatcher;
  now: () => Date;
  newJti: () => string;
  force?: boolean;
  dryRun?: boolean;
  log?: (line: string) => void;
}

export type RegisterClientResult =
  | { kind: 'dry-run'; request: SignedRegistration }
  | { kind: 'reused'; registration: StoredRegistration; path: string }
  | { kind: 'registered'; registration: StoredRegistration; path: string; request: SignedRegistration };

export async function registerClient(input: RegisterClientInput): Promise<RegisterClientResult> {
  const key = { softwareId: input.statementClaims.software_id, target: input.target, profile: input.profile };
  if (input.dryRun !== true && input.force !== true) {
    const stored = await readStoredRegistration(input.stateDir, key);
    if (stored !== undefined && stored.auth_url === input.authUrl) {
      return { kind: 'reused', registration: stored, path: registrationPath(input.stateDir, key) };
    }
  }
  const refreshToken = input.refreshTokenGrant === true;
  const claims = buildRegistrationClaims({
    softwareStatement: input.softwareStatement,
    statementClaims: input.statementClaims,
    authUrl: input.authUrl,
    now: input.now,
    newJti: input.newJti,
    ...(input.lifetimeSeconds !== undefined ? { lifetimeSeconds: input.lifetimeSeconds } : {}),
    ...(input.redirectUris !== undefined && input.redirectUris.length > 0 ? { redirectUris: input.redirectUris } : {}),
    ...(input.audience !== undefined ? { audience: input.audience } : {}),
    ...(refreshToken ? { refreshToken } : {}),
  });
  checkRegistrationLocally({
    claims,
    kid: input.kid,
    statementClaims: input.statementClaims,
    signingKey: input.signingKey,
    now: input.now,
    ...(input.statementJwks !== undefined ? { statementJwks: input.statementJwks } : {}),
    ...(input.transportCertificatePem !== undefined ? { transportCertificatePem: input.transportCertificatePem } : {}),
  });
  const request = await buildSignedRegistration(claims, input.signingKey, input.kid);
  if (input.dryRun === true) return { kind: 'dry-run', request };
  if (input.dispatcher === undefined) throw new TypeError('registerClient needs a dispatcher unless dryRun');

  const response = await postRegistration({
    registrationEndpoint: input.registrationEndpoint,
    jwt: request.jwt,
    dispatcher: input.dispatcher,
    ...(input.log !== undefined ? { log: input.log } : {}),
  });
  const registration: StoredRegistration = {
    version: 1,
    software_id: key.softwareId,
    target: input.target,
    profile: input.profile,
    auth_url: input.authUrl,
    registration_endpoint: input.registrationEndpoint,
    registered_at: input.now().toISOString(),
    client_id: response.client_id,
    ...(typeof response.client_secret === 'string' ? { client_secret: response.client_secret } : {}),
    metadata: response,
  };
  const path = await writeStoredRegistration(input.stateDir, registration);
  return { kind: 'registered', registration, path, request };
}
