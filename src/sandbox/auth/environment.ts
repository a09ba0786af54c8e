// The environment helper (bank-interface §4.2): GET {sandbox_base_url}/sandbox-helper/v1.0/postman/environment?
// client_id=… returns a Postman environment for that client, named as the model bank's own collection expects.
// Only the transport certificate that registered the client may fetch it (it carries the client secret).

import { createHash } from 'node:crypto';
import { BANK_FINANCIAL_ID } from '../contracts.js';
import type { PostmanEnvironment, PostmanEnvironmentValue } from '../contracts.js';
import { ObieError } from '../http/errors.js';
import { sendJson } from '../http/io.js';
import type { StoredClient } from '../store/auth-store.js';
import type { AuthCall, AuthDeps } from './deps.js';
import type { EnvironmentClientForm } from './routes.js';

export async function handleEnvironment(
  call: AuthCall<{ kind: 'environment'; form: EnvironmentClientForm }>,
  deps: AuthDeps,
): Promise<void> {
  const { req, res, ctx } = call;
  const { form } = call.route;
  const basic = form === 'basic' ? basicCredentials(req.headers.authorization) : undefined;
  const clientId = form === 'basic' ? basic?.clientId : ctx.url.searchParams.get('client_id');
  if (!clientId) {
    throw ObieError.of(
      400,
      'UK.OBIE.Field.Missing',
      form === 'basic' ? 'Authorization: Basic base64(client_id:client_secret) is required' : 'query parameter client_id is required',
    );
  }
  const client = deps.store.clients.get(clientId);
  if (client && basic !== undefined && basic.secret !== client.clientSecret)
    throw ObieError.of(401, 'UK.OBIE.Unauthorised', 'the Basic credentials do not match the client');
  if (!client) throw ObieError.of(404, 'UK.OBIE.Resource.NotFound', `no client ${clientId} is registered with this sandbox`);
  if (ctx.peerThumbprint === undefined || !client.certificateThumbprints.includes(ctx.peerThumbprint)) {
    throw ObieError.of(
      403,
      'UK.OBIE.Unauthorised',
      'only the transport certificate that registered this client may download its environment',
    );
  }
  ctx.clientId = client.clientId;
  res.setHeader('Content-Disposition', `attachment; filename="${client.clientId}.postman_environment.json"`);
  sendJson(res, 200, form === 'plain' ? plainNames(buildEnvironment(client, deps)) : buildEnvironment(client, deps));
}

/** Pure: the environment of one client. Variable names follow the model bank's published Postman collection. */
export function buildEnvironment(client: StoredClient, deps: Pick<AuthDeps, 'urls'>): PostmanEnvironment {
  const profile = deps.urls.profiles[client.profile];
  const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64');
  const plain = (key: string, value: string): PostmanEnvironmentValue => ({ key, value, type: 'default', enabled: true });
  const secret = (key: string, value: string): PostmanEnvironmentValue => ({ key, value, type: 'secret', enabled: true });
  return {
    id: uuidFrom(`obflow-sandbox-environment:${client.clientId}`),
    name: `obflow sandbox (${client.profile}) ${client.clientId}`,
    values: [
      plain('rs', deps.urls.sandbox_base_url),
      plain('issuer', profile.auth_url),
      plain('configEndpoint', profile.discovery_url),
      plain('authEndpoint', profile.authorization_endpoint),
      plain('tokenEndpoint', profile.token_url),
      plain('registrationEndpoint', deps.urls.registration_endpoint),
      // private_key_jwt and tls_client_auth clients have no secret (RFC 7591 §3.2.1): nothing to put in Basic.
      secret('basicToken', client.clientSecret === '' ? '' : basic),
      plain('_clientId', client.clientId),
      secret('_clientSecret', client.clientSecret),
      plain('oidcClient', client.clientId),
      plain('redirectUrl', client.redirectUris[0] ?? ''),
      plain('obParticipantId', BANK_FINANCIAL_ID),
      plain('request-scope', 'openid accounts'),
      plain('softwareId', client.softwareId),
      plain('orgId', client.orgId),
      // Real exports carry switched-off leftovers like this one; a TPP-side merge must drop disabled entries.
      { key: 'paymentsRequestScope', value: 'openid payments', type: 'default', enabled: false },
    ],
    _postman_variable_scope: 'environment',
  };
}

/** The plain helper's names: client_id, client_secret, redirect_uri; no basicToken (a TPP builds it). */
const PLAIN_NAMES: Readonly<Record<string, string | null>> = {
  _clientId: 'client_id',
  _clientSecret: 'client_secret',
  redirectUrl: 'redirect_uri',
  oidcClient: null,
  basicToken: null,
};

export function plainNames(environment: PostmanEnvironment): PostmanEnvironment {
  const values = environment.values.flatMap((entry) => {
    const renamed = PLAIN_NAMES[entry.key];
    if (renamed === null) return [];
    return [renamed === undefined ? entry : { ...entry, key: renamed }];
  });
  return { ...environment, values };
}

function basicCredentials(header: string | undefined): { clientId: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** A UUID-shaped id derived from text, so the same client always gets the same environment id. */
function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
