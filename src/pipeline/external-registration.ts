// `obflow register --client-id`: a client registered elsewhere (the bank's portal, another machine, a CI secret) stored
// as obflow's registration without calling the bank (issue #19 item 3): register once per statement and bank, reuse it.

import { ObflowError } from '../errors.js';
import { chooseAuthMethod, writeStoredRegistration, type StoredRegistration } from '../registration/index.js';
import type { Session } from './session.js';
import { tokenAuthSetting } from './stages.js';
import { fetchDiscovery } from '../environment/index.js';

export interface ExternalClient {
  clientId: string;
  /** From OBFLOW_CLIENT_SECRET or a file, never a flag value (it would stay in the shell history and `ps`). */
  clientSecret?: string;
}

/** Stores the client as obflow's registration for the session's target; the method and request-object alg are the
 *  config's (`auto` asks the bank's discovery). client_secret_basic needs the secret; the others must not get one. */
export async function externalRegistrationStage(
  session: Session,
  client: ExternalClient,
): Promise<{ registration: StoredRegistration; path: string }> {
  const setting = tokenAuthSetting(session.config);
  const method =
    setting === 'auto'
      ? chooseAuthMethod(
          'auto',
          (await fetchDiscovery(session.target.discoveryUrl, session.dispatcher)).token_endpoint_auth_methods_supported,
        )
      : setting;
  if (method === 'client_secret_basic' && (client.clientSecret ?? '') === '') {
    throw new ObflowError('ERR_USAGE', `client ${client.clientId} authenticates with client_secret_basic, but no client secret was given`, {
      hint: 'Put the secret in OBFLOW_CLIENT_SECRET or a file named by --client-secret-file (never on the command line).',
    });
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
    // What obflow knows of the client; the bank's own record stays with the bank (`register --show`).
    metadata: { client_id: client.clientId, token_endpoint_auth_method: method, external: true },
  };
  return { registration, path: await writeStoredRegistration(session.config.stateDir, registration) };
}
