// The network edge of `obflow environment`: GET the bank's helper environment for a client (docs/bank-interface.md §4.2,
// mTLS) and the discovery document (§4.3); write the merged result to the state folder (it holds the client secret).

import type { Dispatcher } from 'undici';
import { ObflowError } from '../errors.js';
import { writeFileAtomic } from '../fs.js';
import { basicCredentials } from '../runner-rules.js';
import { getJson } from '../bank/http.js';
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

export function environmentPath(stateDir: string, fileStem: string): string {
  return stateLayout(stateDir).environment(fileStem);
}

/** Writes the merged environment into the state folder only (mode 0600, atomic); returns the path. */
export async function writeEnvironment(stateDir: string, fileStem: string, environment: PostmanEnvironment): Promise<string> {
  const path = environmentPath(stateDir, fileStem);
  await writeFileAtomic(path, serializeEnvironment(environment), { secret: true });
  return path;
}
