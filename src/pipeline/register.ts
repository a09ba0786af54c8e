// The register stage and the registrations obflow did not just make: `obflow register` registers the session's client
// (DCR v3.2 POST /register) or reuses the stored one; `register --client-id` stores a client
// registered elsewhere (the bank's portal, another machine, a CI secret) without calling the bank — register once per
// statement and bank, reuse it — and `register --show | --update | --delete` manage the stored one with DCR v3.2
// GET / PUT / DELETE /register/{ClientId}; what of the bank's record may be shown is decided here, not by the CLI.

import { access, constants, mkdir, rm } from 'node:fs/promises';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import { readSigningKey } from '../pki/verify.js';
import {
  authMethodOf,
  buildRegistrationRequest,
  chooseAuthMethod,
  manageRegistration,
  profileOfRegistration,
  readStoredRegistration,
  registerClient,
  registrationPath,
  requireStoredRegistration,
  shownRegistration,
  storedProfile,
  writeStoredRegistration,
  type ManageAction,
  type RegisterClientInput,
  type RegisterClientResult,
  type RegistrationResponse,
  type StoredRegistration,
  type TokenEndpointAuthMethod,
} from '../registration/index.js';
import { stateLayout } from '../state/layout.js';
import { isDiscoveryMismatch } from './discovery-check.js';
import type { Session } from './session.js';
import { familiesOf } from '../api-families.js';

export async function registerStage(session: Session, options: { force?: boolean; dryRun?: boolean } = {}): Promise<RegisterClientResult> {
  // A client the bank registered but obflow could not store is lost (its secret is shown once): check first.
  if (options.dryRun !== true) await ensureWritable(stateLayout(session.config.stateDir).registrations);
  return registerClient(await registerInput(session, options));
}

/** What a registration of this session sends and stores (also the body of `register --update`). */
export async function registerInput(session: Session, options: { force?: boolean; dryRun?: boolean } = {}): Promise<RegisterClientInput> {
  return {
    stateDir: session.config.stateDir,
    target: session.target.name,
    profile: session.target.profile,
    authUrl: session.target.authUrl,
    registrationEndpoint: session.target.registrationEndpoint,
    softwareStatement: session.statement.jwt,
    statementClaims: session.statement.claims,
    ...(session.statement.claims.software_jwks ? { statementJwks: session.statement.claims.software_jwks } : {}),
    signingKey: await readSigningKey(session.identity.signing.key),
    kid: session.identity.signing.kid,
    transportCertificatePem: session.transport.certPem,
    redirectUris: session.identity.redirectUris,
    ...(session.target.registrationAudience !== undefined ? { audience: session.target.registrationAudience } : {}),
    refreshTokenGrant: session.config.registration.refresh_token_grant,
    tokenEndpointAuthMethod: tokenAuthSetting(session.config),
    ...(session.config.bank?.tls_client_auth_subject_dn !== undefined
      ? { tlsClientAuthSubjectDn: session.config.bank.tls_client_auth_subject_dn }
      : {}),
    requestObjectSigningAlg: session.config.flow.request_object_signing_alg,
    fapi: session.config.flow.fapi,
    // flow.apis: the scopes asked, each family's role checked against the statement (the local identity's fix differs).
    families: familiesOf(session.config.flow.apis),
    localIdentity: session.config.target === 'sandbox',
    authMethodsSupported: () => authMethodsSupported(session),
    dispatcher: session.dispatcher,
    now: session.now,
    newJti: session.newId,
    force: options.force === true,
    dryRun: options.dryRun === true,
    log: session.log,
  };
}

/** What the bank's discovery lists in token_endpoint_auth_methods_supported, asked before a registration is built.
 *  Reading it is best effort unless the setting is `auto` (which needs it): a discovery that cannot be read here
 *  leaves the choice to the bank, whose refusal names it. A discovery that was read and contradicts the config (the
 *  session's checks: PAR, iss, JARM, PKCE; docs/errors.md) stops the registration before anything is sent or stored. */
async function authMethodsSupported(session: Session): Promise<readonly string[] | undefined> {
  try {
    return (await session.discovery()).token_endpoint_auth_methods_supported;
  } catch (error) {
    if (tokenAuthSetting(session.config) === 'auto' || isDiscoveryMismatch(error)) throw error;
    return undefined;
  }
}

/** bank.token_endpoint_auth_method (also read with the embedded sandbox); without a bank section, the FAPI profile's
 *  default (client_secret_basic, §2.1, under FAPI 1 Advanced). */
export function tokenAuthSetting(config: ObflowConfig): TokenEndpointAuthMethod | 'auto' {
  return config.bank?.token_endpoint_auth_method ?? config.flow.fapi.defaults.tokenEndpointAuthMethod;
}

export async function storedRegistration(session: Session): Promise<StoredRegistration> {
  return requireStoredRegistration(session.config.stateDir, {
    softwareId: session.statement.claims.software_id,
    target: session.target.name,
    profile: session.target.profile,
  });
}

export interface ExternalClient {
  clientId: string;
  /** From OBFLOW_CLIENT_SECRET or a file, never a flag value (it would stay in the shell history and `ps`). */
  clientSecret?: string;
  /** Replace another client stored for the statement and target (like `register --force`). */
  force?: boolean;
}

/** Stores the client as obflow's registration for the session's target; the method and request-object alg are the
 *  config's (`auto` asks the bank's discovery). client_secret_basic needs the secret; the others must not get one. */
export async function externalRegistrationStage(
  session: Session,
  client: ExternalClient,
): Promise<{ registration: StoredRegistration; path: string }> {
  if (client.clientId === '') throw new TypeError('externalRegistrationStage needs a client id');
  const setting = tokenAuthSetting(session.config);
  const method = setting === 'auto' ? chooseAuthMethod('auto', (await session.discovery()).token_endpoint_auth_methods_supported) : setting;
  if (method === 'client_secret_basic' && (client.clientSecret ?? '') === '') {
    throw new ObflowError('ERR_USAGE', `client ${client.clientId} authenticates with client_secret_basic, but no client secret was given`, {
      hint: 'Put the secret in OBFLOW_CLIENT_SECRET or a file named by --client-secret-file (never on the command line).',
    });
  }
  // Another client stored for this statement and target is replaced only on request: its secret, shown once by the
  // bank, would be lost (plain `register` reuses a stored client the same way). The same client again is stored.
  const stored = await readStoredRegistration(session.config.stateDir, {
    softwareId: session.statement.claims.software_id,
    target: session.target.name,
    profile: session.target.profile,
  });
  if (stored !== undefined && stored.client_id !== client.clientId && client.force !== true) {
    throw new ObflowError(
      'ERR_CLIENT_STORED',
      `client ${stored.client_id} is stored for ${session.target.name} (${session.target.profile}); --client-id ${client.clientId} would replace it`,
      { hint: 'Pass --force to replace it (or `obflow register --delete` first); nothing was changed.' },
    );
  }
  const registration: StoredRegistration = {
    version: 1,
    software_id: session.statement.claims.software_id,
    target: session.target.name,
    profile: session.target.profile,
    auth_url: session.target.authUrl,
    registration_endpoint: session.target.registrationEndpoint,
    registered_at: session.now().toISOString(),
    client_id: client.clientId,
    ...(method === 'client_secret_basic' ? { client_secret: client.clientSecret ?? '' } : {}),
    token_endpoint_auth_method: method,
    request_object_signing_alg: session.config.flow.request_object_signing_alg,
    // Registered elsewhere for this config's profile: its assertions name the audience that profile's bank requires.
    ...storedProfile(session.config.flow.fapi),
    // What obflow knows of the client; the bank's own record stays with the bank (`register --show`).
    metadata: { client_id: client.clientId, token_endpoint_auth_method: method, external: true },
  };
  return { registration, path: await writeStoredRegistration(session.config.stateDir, registration) };
}

/**
 * DCR v3.2 management of the stored client with a client_credentials token of its own (obflow's token call,
 * authenticated as the client registered): show → the bank's record; update → PUT of a new registration JWT (same
 * method and request-object alg), stored; delete → the bank forgets the client, and so does obflow.
 */
export async function manageRegistrationStage(session: Session, action: ManageAction): Promise<Record<string, unknown> | undefined> {
  const registration = await storedRegistration(session);
  const tokenEndpoint = session.target.tokenUrl ?? (await session.discovery()).token_endpoint;
  const jwt =
    action === 'update'
      ? (
          await buildRegistrationRequest({
            ...(await registerInput(session)),
            tokenEndpointAuthMethod: authMethodOf(registration),
            requestObjectSigningAlg: registration.request_object_signing_alg ?? 'none',
          })
        ).request.jwt
      : undefined;
  const answer = await manageRegistration({
    action,
    tokenEndpoint,
    ...(profileOfRegistration(registration).assertionAudience === 'issuer' ? { issuer: (await session.discovery()).issuer } : {}),
    registration,
    signingKey: () => readSigningKey(session.identity.signing.key),
    kid: session.identity.signing.kid,
    dispatcher: session.dispatcher,
    now: session.now,
    newJti: session.newId,
    ...(jwt !== undefined ? { jwt } : {}),
  });
  const key = { softwareId: registration.software_id, target: registration.target, profile: registration.profile };
  if (action === 'delete') await rm(registrationPath(session.config.stateDir, key), { force: true });
  if (action === 'update' && answer !== undefined)
    await writeStoredRegistration(session.config.stateDir, { ...registration, metadata: answer as RegistrationResponse });
  return answer === undefined ? undefined : shownRegistration(answer);
}

async function ensureWritable(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK);
  } catch (cause) {
    throw new ObflowError('ERR_WRITE_FAILED', `the state folder ${dir} is not writable`, {
      hint: 'Fix its permissions or pick another with --state-dir; nothing was sent to the bank.',
      cause,
    });
  }
}
