// The network edge of `obflow environment`: GET the bank's helper environment for a client (docs/bank-interface.md §4.2,
// mTLS) and the discovery document (§4.3); write the merged result to the state folder (it holds the client secret).

import { request, type Dispatcher } from 'undici';
import { ObflowError } from '../errors.js';
import { writeFileAtomic } from '../fs.js';
import { basicCredentials } from '../runner-rules.js';
import { transportError } from '../registration/http.js';
import { stateLayout } from '../state/layout.js';
import { serializeEnvironment, type PostmanEnvironment, type RawEnvironmentValue } from './merge.js';

/** The sandbox's helper path under {sandbox_base_url} (§4.2 shape `/<helper-prefix>/v1.0/<client-tool>/environment`). */
export const DEFAULT_HELPER_PATH = '/sandbox-helper/v1.0/postman/environment';

/** {sandbox_base_url} + helper path, appended (a base URL may carry a path of its own, e.g. `https://api.bank/sandbox`). */
export function environmentHelperUrl(sandboxBaseUrl: string, helperPath: string = DEFAULT_HELPER_PATH): string {
  return `${sandboxBaseUrl.replace(/\/+$/, '')}/${helperPath.replace(/^\/+/, '').replace(/\?.*$/, '')}`;
}

export interface DownloadedEnvironment {
  name?: string;
  values: RawEnvironmentValue[];
}

export interface DownloadEnvironmentInput {
  /** Full helper URL without the query (see environmentHelperUrl). */
  helperUrl: string;
  clientId: string;
  /** When known, also sent as `Authorization: Basic` (client_secret_basic form, RFC 6749 §2.3.1): the model bank's
   *  helper identifies the client that way (its guide, "Environment File download"). */
  clientSecret?: string;
  dispatcher: Dispatcher;
  log?: (line: string) => void;
}

/** GET a JSON document over the session's mTLS dispatcher; transport failures classified once (registration/http.ts). */
export async function getJson(
  url: string,
  dispatcher: Dispatcher,
  what: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; body: unknown; text: string }> {
  try {
    const response = await request(url, { method: 'GET', dispatcher, headers: { accept: 'application/json', ...extraHeaders } });
    const text = await response.body.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body, text };
  } catch (error) {
    throw transportError(error, url, what);
  }
}

/** GET {helper}?client_id=… over mTLS. A refusal (any non-200, or not an environment file) → ERR_ENVIRONMENT_DOWNLOAD. */
export async function downloadEnvironment(input: DownloadEnvironmentInput): Promise<DownloadedEnvironment> {
  const url = new URL(input.helperUrl);
  url.searchParams.set('client_id', input.clientId);
  const basic =
    input.clientSecret === undefined
      ? {}
      : {
          authorization: `Basic ${basicCredentials(input.clientId, input.clientSecret)}`,
        };
  const { status, body, text } = await getJson(url.toString(), input.dispatcher, 'environment download', basic);
  input.log?.(`GET ${input.helperUrl}?client_id=… → ${status}`);
  if (status !== 200) {
    const detail =
      typeof body === 'object' && body !== null
        ? [
            (body as Record<string, unknown>).error,
            (body as Record<string, unknown>).error_description,
            (body as Record<string, unknown>).message,
          ]
            .filter((part) => typeof part === 'string')
            .join(': ')
        : text.slice(0, 200);
    throw new ObflowError(
      'ERR_ENVIRONMENT_DOWNLOAD',
      `the bank refused the environment download (${status})${detail !== '' ? ` ${detail}` : ''}`,
      {
        hint:
          status === 404
            ? 'The bank does not know this client id here: register again (`obflow register --force`) or check the helper path in the config.'
            : 'Only the registered client, with its own transport certificate, may download its environment; check the target and `obflow register`.',
      },
    );
  }
  const values = typeof body === 'object' && body !== null ? (body as { values?: unknown }).values : undefined;
  if (!Array.isArray(values)) {
    throw new ObflowError('ERR_ENVIRONMENT_DOWNLOAD', 'the environment download is not a Postman environment (no `values` array)', {
      hint: 'Check the helper path in the config points at the environment file operation.',
    });
  }
  const name = (body as { name?: unknown }).name;
  return { ...(typeof name === 'string' ? { name } : {}), values: values as RawEnvironmentValue[] };
}

/** The addresses of an OpenID provider configuration (OIDC Discovery §3) that the flow uses. */
export interface DiscoveryAddresses {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  jwks_uri?: string;
  /** OIDC Discovery §3 grant_types_supported, when published. */
  grant_types_supported?: string[];
  /** OIDC Discovery §3 token_endpoint_auth_methods_supported, when published (absent means client_secret_basic). */
  token_endpoint_auth_methods_supported?: string[];
  /** RFC 9126 §5, when published (issue 30: flow.par). */
  pushed_authorization_request_endpoint?: string;
  require_pushed_authorization_requests?: boolean;
}

/** GET {auth_url}/.well-known/openid-configuration (§4.3). */
export async function fetchDiscovery(discoveryUrl: string, dispatcher: Dispatcher): Promise<DiscoveryAddresses> {
  const { status, body } = await getJson(discoveryUrl, dispatcher, 'discovery');
  const doc = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const str = (key: string): string | undefined => (typeof doc[key] === 'string' ? (doc[key] as string) : undefined);
  const issuer = str('issuer');
  const authorization = str('authorization_endpoint');
  const token = str('token_endpoint');
  if (status !== 200 || issuer === undefined || authorization === undefined || token === undefined) {
    throw new ObflowError(
      'ERR_DISCOVERY_INVALID',
      `discovery at ${discoveryUrl} answered ${status} without issuer/authorization_endpoint/token_endpoint`,
      {
        hint: 'Check auth_url in the config: discovery lives at {auth_url}/.well-known/openid-configuration.',
      },
    );
  }
  const registration = str('registration_endpoint');
  const jwks = str('jwks_uri');
  return {
    issuer,
    authorization_endpoint: authorization,
    token_endpoint: token,
    ...(registration !== undefined ? { registration_endpoint: registration } : {}),
    ...(jwks !== undefined ? { jwks_uri: jwks } : {}),
    ...(Array.isArray(doc.grant_types_supported)
      ? { grant_types_supported: doc.grant_types_supported.filter((grant): grant is string => typeof grant === 'string') }
      : {}),
    ...(str('pushed_authorization_request_endpoint') !== undefined
      ? { pushed_authorization_request_endpoint: str('pushed_authorization_request_endpoint') as string }
      : {}),
    ...(doc.require_pushed_authorization_requests === true ? { require_pushed_authorization_requests: true } : {}),
    ...(Array.isArray(doc.token_endpoint_auth_methods_supported)
      ? {
          token_endpoint_auth_methods_supported: doc.token_endpoint_auth_methods_supported.filter(
            (method): method is string => typeof method === 'string',
          ),
        }
      : {}),
  };
}

export function environmentPath(stateDir: string, fileStem: string): string {
  return stateLayout(stateDir).environment(fileStem);
}

/** Writes the merged environment into the state folder only (mode 0600, atomic); returns the path. */
export async function writeEnvironment(stateDir: string, fileStem: string, environment: PostmanEnvironment): Promise<string> {
  const path = environmentPath(stateDir, fileStem);
  await writeFileAtomic(path, serializeEnvironment(environment), { secret: true });
  return path;
}
