// obflow's own client in the environment: the stored registration and the identity are the source
// of truth for the client id, its credentials, the redirect URI and how it authenticates; the bank's helper file adds
// what obflow cannot know. A variable the chosen method needs that is still empty after the merge is a coded error.

import type { KeyObject } from 'node:crypto';
import { environmentValue, type PostmanEnvironment } from '../environment/index.js';
import { ObflowError } from '../errors.js';
import { authMethodOf, type StoredRegistration } from '../registration/index.js';
import { basicCredentials } from '../runner-rules.js';

export interface ClientValuesInput {
  registration: StoredRegistration;
  /** The redirect URIs obflow registers (config identity.redirectUris; empty: the statement's). */
  redirectUris: readonly string[];
  statementRedirectUris: readonly string[];
  signingKid: string;
  /** Read only when the client signs (private_key_jwt, PS256 request objects, or messages). */
  signingKey: () => Promise<KeyObject>;
  /** The flow signs its requests' bodies (a family of flow.apis with signsMessages, src/api-families.ts): the signing
   *  key, and the statement's org_id and software_id for the signatures' iss (OB R/W Data API Profile, "Message
   *  Signing", Step 2: `{org-id}/{software-statement-id}`). */
  messageSigning?: { orgId: string; softwareId: string };
}

/** Whether the flow signs anything with the signing key at run time (a client assertion, a request object, or a
 *  request body when `messageSigning`). */
export function clientSigns(registration: StoredRegistration, messageSigning = false): boolean {
  return messageSigning || authMethodOf(registration) === 'private_key_jwt' || registration.request_object_signing_alg === 'PS256';
}

/** The environment values obflow knows about its own client; they win over the helper file's (overrides). */
export async function clientValues(input: ClientValuesInput): Promise<Record<string, string | undefined>> {
  const { registration } = input;
  const method = authMethodOf(registration);
  const secret = method === 'client_secret_basic' ? registration.client_secret : undefined;
  const registered = Array.isArray(registration.metadata.redirect_uris) ? (registration.metadata.redirect_uris as unknown[]) : [];
  const redirect = [...registered, ...input.redirectUris, ...input.statementRedirectUris].find(
    (uri): uri is string => typeof uri === 'string' && uri !== '',
  );
  const signs = clientSigns(registration, input.messageSigning !== undefined);
  return {
    _clientId: registration.client_id,
    oidcClient: registration.client_id,
    // RFC 6749 §2.3.1 (src/runner-rules.ts, shared with every workspace).
    ...(secret !== undefined
      ? {
          _clientSecret: secret,
          basicToken: basicCredentials(registration.client_id, secret),
        }
      : {}),
    redirectUrl: redirect,
    token_endpoint_auth_method: method,
    request_object_signing_alg: registration.request_object_signing_alg ?? 'none',
    signing_kid: signs ? input.signingKid : '',
    signing_key: signs ? JSON.stringify(rsaSigningJwk(await input.signingKey())) : '',
    // The statement's, over the bank helper's names for them (the emulator's helper has both; another bank's may not).
    ...(input.messageSigning !== undefined ? { orgId: input.messageSigning.orgId, softwareId: input.messageSigning.softwareId } : {}),
  };
}

/** The signing key as the collections' RSA-PSS signer reads it. PS256 (RFC 7518 §3.5) needs an RSA key: another type
 *  is the same coded error registration gives (src/registration/claims.ts), not a script failing at run time. */
function rsaSigningJwk(key: KeyObject): JsonWebKey {
  if (key.asymmetricKeyType !== 'rsa') {
    throw new ObflowError('ERR_KEY_INVALID', `the signing key is ${String(key.asymmetricKeyType)}, PS256 needs RSA`, {
      hint: 'Use the RSA signing key the directory issued for this software statement (identity.signingKey).',
    });
  }
  return key.export({ format: 'jwk' });
}

/** The variables the flow cannot run without, per registration: the addresses, the client, its credential (and the
 *  signing key and iss of a flow that signs messages). */
export function requiredVariables(registration: StoredRegistration, messageSigning = false): string[] {
  const method = authMethodOf(registration);
  return [
    'rs',
    'issuer',
    'authEndpoint',
    'tokenEndpoint',
    '_clientId',
    'redirectUrl',
    ...(method === 'client_secret_basic' ? ['basicToken'] : []),
    ...(clientSigns(registration, messageSigning) ? ['signing_key', 'signing_kid'] : []),
    ...(messageSigning ? ['orgId', 'softwareId'] : []),
  ];
}

/** ERR_ENVIRONMENT_INCOMPLETE naming every required variable still empty after the merge. */
export function checkEnvironmentComplete(environment: PostmanEnvironment, registration: StoredRegistration, messageSigning = false): void {
  const missing = requiredVariables(registration, messageSigning).filter((key) => (environmentValue(environment, key) ?? '') === '');
  if (missing.length === 0) return;
  throw new ObflowError(
    'ERR_ENVIRONMENT_INCOMPLETE',
    `the merged environment has no value for ${missing.join(', ')} (token_endpoint_auth_method ${authMethodOf(registration)})`,
    {
      hint: missing.includes('basicToken')
        ? 'The stored registration has no client secret: register again (`obflow register --force`), or give the secret with `obflow register --client-id`.'
        : "Neither obflow's registration nor the bank's helper file names it: register again, or check the bank's discovery and helper.",
    },
  );
}
