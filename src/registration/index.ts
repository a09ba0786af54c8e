// `obflow register` as one library call: reuse a stored client unless forced, build the §2.1 claims, refuse locally,
// sign (PS256), then either return the dry-run view or POST over mTLS and store the result (docs/bank-interface.md §4.1).

import type { KeyObject } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { ObflowError } from '../errors.js';
import { DEFAULT_FAPI_PROFILE, type FapiProfile } from '../fapi-profile.js';
import { chooseAuthMethod } from './auth-method.js';
import {
  buildRegistrationClaims,
  checkRegistrationLocally,
  subjectDnOf,
  scopeForFamilies,
  type RegisteredFamily,
  type StatementClaims,
  type TokenEndpointAuthMethod,
} from './claims.js';
import { postRegistration } from './register.js';
import { buildSignedRegistration, type SignedRegistration } from './sign.js';
import {
  authMethodOf,
  profileOfRegistration,
  readStoredRegistration,
  registrationPath,
  storedProfile,
  writeStoredRegistration,
  type StoredRegistration,
} from './store.js';

export * from './auth-method.js';
export * from './claims.js';
export * from './manage.js';
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
  /** bank.token_endpoint_auth_method (the pipeline's tokenAuthSetting). `auto` is decided from `authMethodsSupported`. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod | 'auto';
  /** The bank's discovery token_endpoint_auth_methods_supported (undefined: not published); asked only when a
   *  registration is built, not when a stored one is reused. */
  authMethodsSupported?: () => Promise<readonly string[] | undefined>;
  /** tls_client_auth: the DN to register; default the transport certificate's (subjectDnOf). */
  tlsClientAuthSubjectDn?: string;
  /** flow.request_object_signing_alg; default none. */
  requestObjectSigningAlg?: 'none' | 'PS256';
  /** The FAPI profile's row (flow.fapi): what registration asks (response_types, bound tokens), the methods it allows;
   *  a registration made under another profile is not reused. */
  fapi: FapiProfile;
  /** The API families the client calls (flow.apis; default accounts): the scope asked, each family's role checked; a
   *  stored registration whose scope lacks one is not reused. */
  families?: readonly RegisteredFamily[];
  /** The identity is the local test identity (a missing role's hint is `obflow init --force`). */
  localIdentity?: boolean;
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
  const setting = input.tokenEndpointAuthMethod;
  if (input.dryRun !== true && input.force !== true) {
    const stored = await readStoredRegistration(input.stateDir, key);
    // Reused only as it was registered: another auth method or request-object alg needs another registration.
    if (
      stored !== undefined &&
      stored.auth_url === input.authUrl &&
      (setting === 'auto' || authMethodOf(stored) === setting) &&
      (stored.request_object_signing_alg ?? 'none') === (input.requestObjectSigningAlg ?? 'none') &&
      profileOfRegistration(stored) === input.fapi &&
      registeredScopeLacks(stored, scopeForFamilies(input.families ?? [])) === undefined
    ) {
      return { kind: 'reused', registration: stored, path: registrationPath(input.stateDir, key) };
    }
  }
  const { request, claims } = await buildRegistrationRequest(input);

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
    token_endpoint_auth_method: claims.token_endpoint_auth_method,
    request_object_signing_alg: claims.request_object_signing_alg,
    ...storedProfile(input.fapi),
    metadata: response,
  };
  const path = await writeStoredRegistration(input.stateDir, registration);
  return { kind: 'registered', registration, path, request };
}

/** The registration JWT as registerClient would send it (claims of the config's method, local checks, PS256):
 *  also the body of DCR v3.2 PUT /register/{ClientId} (`obflow register --update`). */
export async function buildRegistrationRequest(
  input: RegisterClientInput,
): Promise<{ request: SignedRegistration; claims: ReturnType<typeof buildRegistrationClaims> }> {
  const setting = input.tokenEndpointAuthMethod;
  const refreshToken = input.refreshTokenGrant === true;
  // A dry run shows what would be sent and asks the bank nothing, unless `auto` needs its list to decide.
  const supported = input.dryRun === true && setting !== 'auto' ? undefined : await input.authMethodsSupported?.();
  const method = chooseAuthMethod(setting, supported);
  const { fapi } = input;
  if (!fapi.authMethods.includes(method)) {
    // `auto` against a bank that lists none of the profile's methods (the config check refuses a method set by name).
    throw new ObflowError(
      'ERR_CONFIG_INVALID',
      `${fapi.setting} allows ${fapi.authMethods.join(' or ')} only (${fapi.clause.authMethods}), ` +
        `but bank.token_endpoint_auth_method "${setting}" chose ${method} from the bank's discovery`,
      {
        hint: `Set bank.token_endpoint_auth_method to ${fapi.authMethods.join(' or ')}, or flow.fapi to "${DEFAULT_FAPI_PROFILE}" for this bank.`,
      },
    );
  }
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
    tokenEndpointAuthMethod: method,
    ...(method === 'tls_client_auth' ? { tlsClientAuthSubjectDn: tlsSubjectDn(input) } : {}),
    ...(input.requestObjectSigningAlg !== undefined ? { requestObjectSigningAlg: input.requestObjectSigningAlg } : {}),
    fapi,
    ...(input.families !== undefined ? { families: input.families } : {}),
  });
  checkRegistrationLocally({
    claims,
    ...(input.families !== undefined ? { families: input.families } : {}),
    ...(input.localIdentity === true ? { localIdentity: true } : {}),
    kid: input.kid,
    statementClaims: input.statementClaims,
    signingKey: input.signingKey,
    now: input.now,
    ...(input.statementJwks !== undefined ? { statementJwks: input.statementJwks } : {}),
    ...(input.transportCertificatePem !== undefined ? { transportCertificatePem: input.transportCertificatePem } : {}),
  });
  return { request: await buildSignedRegistration(claims, input.signingKey, input.kid), claims };
}

/** The first scope of `asked` (space-separated) the stored registration was not granted, if any; undefined also when
 *  the bank's registration response names no scope (a client stored with `register --client-id`: not known). */
export function registeredScopeLacks(registration: Pick<StoredRegistration, 'metadata'>, asked: string): string | undefined {
  const granted = registration.metadata.scope;
  if (typeof granted !== 'string') return undefined;
  const scopes = granted.split(/\s+/);
  return asked.split(' ').find((scope) => scope !== '' && !scopes.includes(scope));
}

/** The DN tls_client_auth registers: the config's, else the transport certificate's (RFC 4514, most specific first). */
function tlsSubjectDn(input: RegisterClientInput): string {
  if (input.tlsClientAuthSubjectDn !== undefined) return input.tlsClientAuthSubjectDn;
  if (input.transportCertificatePem === undefined) {
    throw new ObflowError('ERR_CONFIG_INVALID', 'tls_client_auth needs the transport certificate subject DN', {
      hint: 'Set bank.tls_client_auth_subject_dn, or configure the transport certificate it is read from.',
    });
  }
  return subjectDnOf(input.transportCertificatePem);
}
