// DCR v3.2 client management (GET / PUT / DELETE {registration_endpoint}/{ClientId}, optional in the spec): each call
// carries a client_credentials access token of that very client (TPPOAuth2Security), which obflow gets at the token
// endpoint authenticating as the client registered (client_secret_basic, private_key_jwt RFC 7523 §3, tls_client_auth
// RFC 8705 §2.1). A refusal is one coded line with what obflow sent and what the bank answered.

import { randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose/jwt/sign';
import type { Dispatcher } from 'undici';

import { CLIENT_ASSERTION_LIFETIME_SECONDS, CLIENT_ASSERTION_TYPE } from '../client-auth.js';
import { ObflowError } from '../errors.js';
import { basicCredentials, SECRET_KEY_PATTERN } from '../runner-rules.js';
import { oauthErrorOf } from '../bank/answers.js';
import { bankRequest } from '../bank/http.js';
import { authMethodOf, profileOfRegistration, type StoredRegistration } from './store.js';

// Lifetime of obflow's own client assertions (RFC 7523 §3: a short exp; the assertion is single use): src/client-auth.ts.
export { CLIENT_ASSERTION_LIFETIME_SECONDS };

export interface ClientTokenInput {
  tokenEndpoint: string;
  /** The issuer identifier: the assertion of a client registered under a profile that says so (FAPI 2.0) names it
   *  alone as aud (FAPI 2.0 Security Profile §5.3.2.1). */
  issuer?: string;
  registration: StoredRegistration;
  signingKey: () => Promise<KeyObject>;
  kid: string;
  dispatcher: Dispatcher;
  now: () => Date;
  newJti?: () => string;
}

/** RFC 7523 §3 / OIDC Core §9: iss = sub = client id, aud = the token endpoint (FAPI 2.0: the issuer), a unique jti,
 *  iat, a short exp. */
export async function buildClientAssertion(input: {
  clientId: string;
  /** The token endpoint, or under FAPI 2.0 the issuer identifier. */
  audience: string;
  signingKey: KeyObject;
  kid: string;
  now: () => Date;
  newJti?: () => string;
}): Promise<string> {
  const iat = Math.floor(input.now().getTime() / 1000);
  return new SignJWT({
    iss: input.clientId,
    sub: input.clientId,
    aud: input.audience,
    jti: (input.newJti ?? randomUUID)(),
    iat,
    exp: iat + CLIENT_ASSERTION_LIFETIME_SECONDS,
  })
    .setProtectedHeader({ alg: 'PS256', kid: input.kid, typ: 'JWT' })
    .sign(input.signingKey);
}

/** Whom a client assertion names as aud, as the profile the client registered under says: the token endpoint (RFC
 *  7523 §3), or the issuer identifier alone, as a FAPI 2.0 server requires (FAPI 2.0 Security Profile §5.3.2.1). */
function assertionAudience(input: ClientTokenInput): string {
  const fapi = profileOfRegistration(input.registration);
  if (fapi.assertionAudience === 'token-endpoint') return input.tokenEndpoint;
  if (input.issuer === undefined) throw new TypeError(`a ${fapi.setting} client assertion needs the issuer`);
  return input.issuer;
}

/** The client_credentials grant for the client itself, authenticated as it registered. */
export async function clientCredentialsToken(input: ClientTokenInput): Promise<string> {
  const { registration } = input;
  const method = authMethodOf(registration);
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (method === 'client_secret_basic') {
    const secret = registration.client_secret ?? '';
    headers.authorization = `Basic ${basicCredentials(registration.client_id, secret)}`;
  } else {
    form.set('client_id', registration.client_id);
    if (method === 'private_key_jwt') {
      form.set('client_assertion_type', CLIENT_ASSERTION_TYPE);
      form.set(
        'client_assertion',
        await buildClientAssertion({
          clientId: registration.client_id,
          audience: assertionAudience(input),
          signingKey: await input.signingKey(),
          kid: input.kid,
          now: input.now,
          ...(input.newJti !== undefined ? { newJti: input.newJti } : {}),
        }),
      );
    }
  }
  const { status, body } = await bankRequest(
    input.tokenEndpoint,
    { method: 'POST', dispatcher: input.dispatcher, headers, body: form.toString() },
    'token request',
  );
  const token = typeof body === 'object' && body !== null ? (body as { access_token?: unknown }).access_token : undefined;
  if (status === 200 && typeof token === 'string') return token;
  throw refusal(
    'the token endpoint',
    status,
    body,
    `client_credentials with token_endpoint_auth_method ${method} as client ${registration.client_id}`,
  );
}

export type ManageAction = 'show' | 'update' | 'delete';

/** The bank's record of a client as obflow shows it: the record may carry the client secret (RFC 7591 §3.2.1) or a
 *  registration access token (RFC 7592 §3), never shown — every member whose name is a secret's (the one rule,
 *  src/runner-rules.ts). */
export function shownRegistration(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !SECRET_KEY_PATTERN.test(key) && key !== 'registration_access_token'));
}

export interface ManageInput extends ClientTokenInput {
  action: ManageAction;
  /** update: the signed registration JWT to PUT (DCR v3.2 §"PUT /register/{ClientId}"). */
  jwt?: string;
}

/** GET / PUT / DELETE {registration_endpoint}/{ClientId}; returns the bank's metadata (none for delete). */
export async function manageRegistration(input: ManageInput): Promise<Record<string, unknown> | undefined> {
  const token = await clientCredentialsToken(input);
  const url = `${input.registration.registration_endpoint.replace(/\/+$/, '')}/${encodeURIComponent(input.registration.client_id)}`;
  const method = input.action === 'show' ? 'GET' : input.action === 'update' ? 'PUT' : 'DELETE';
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (input.action === 'update') {
    if (input.jwt === undefined) throw new TypeError('update needs the signed registration JWT');
    headers['content-type'] = 'application/jwt';
  }
  const { status, body } = await bankRequest(
    url,
    { method, dispatcher: input.dispatcher, headers, ...(input.action === 'update' ? { body: input.jwt } : {}) },
    `registration ${input.action}`,
  );
  if (input.action === 'delete' && status === 204) return undefined;
  if (status === 200 && typeof body === 'object' && body !== null) return body as Record<string, unknown>;
  throw refusal(`${method} ${url}`, status, body, `${method} with a client_credentials token of client ${input.registration.client_id}`);
}

/** One line: what obflow sent and what the bank answered (RFC 6749 §5.2 / RFC 7591 §3.2.2 error and description). */
function refusal(where: string, status: number, body: unknown, sent: string): ObflowError {
  const oauth = oauthErrorOf(body);
  const answer =
    oauth.error !== undefined ? `${oauth.error}${oauth.description !== undefined ? `: ${oauth.description}` : ''}` : `HTTP ${status}`;
  return new ObflowError('ERR_REGISTRATION_REJECTED', `${where} refused ${sent} (${status} ${answer})`, {
    hint:
      oauth.error === 'invalid_client'
        ? "The bank did not accept the client's authentication: check bank.token_endpoint_auth_method against how the client was registered (`obflow register --show` needs it right too)."
        : "Check the stored registration (`obflow register --client-id` to replace it) and the bank's answer above.",
  });
}
