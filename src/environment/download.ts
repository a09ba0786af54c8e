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
  /** Where the client id came from, for the fix a 404 names: a client obflow registered, or one stored with
   *  `register --client-id` (registered elsewhere; in CI the TPP_CLIENT_ID_… secret, docs/ci.md). Default registered. */
  clientSource?: ClientSource;
  /** The setting that names the helper's path (`bank.environment_helper_path` and its value); absent for the embedded
   *  sandbox, whose address file names the helper. */
  helperPathSetting?: { key: string; value: string };
  dispatcher: Dispatcher;
  log?: (line: string) => void;
}

export type ClientSource = 'registered' | 'external';

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
    const refused = `the bank refused the environment download (${status})${detail !== '' ? ` ${detail}` : ''}`;
    if (status === 404) {
      const helper = await helperAnswers(input);
      throw new ObflowError('ERR_ENVIRONMENT_DOWNLOAD', `${refused}${NOT_FOUND_WHAT[helper]}`, { hint: notFoundHint(input, helper) });
    }
    throw new ObflowError('ERR_ENVIRONMENT_DOWNLOAD', refused, {
      hint: 'Only the registered client, with its own transport certificate, may download its environment; check the target and `obflow register`.',
    });
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

/** Whether the helper answers at its path at all: a 404 for the client may be an unknown client or a wrong path. */
type HelperAnswer = 'answers' | 'not-found' | 'unknown';

/**
 * The same GET without the client (no query, no credentials): a helper at that path answers it with something else
 * than 404 (the emulator: 400, client_id is required; the model bank's: 400 or 401, Basic credentials required), so
 * the 404 was for the client; a 404 again says nothing answers at the path. A failed probe tells nothing.
 */
async function helperAnswers(input: DownloadEnvironmentInput): Promise<HelperAnswer> {
  try {
    const { status } = await getJson(input.helperUrl, input.dispatcher, 'environment helper');
    return status === 404 ? 'not-found' : 'answers';
  } catch {
    return 'unknown';
  }
}

const NOT_FOUND_WHAT: Record<HelperAnswer, string> = {
  answers: ': the helper answers at its path, but does not know this client id',
  'not-found': ': nothing answers at the helper path (404 without a client id too)',
  unknown: '',
};

/** The fix for a 404, by what the probe told apart and where the client id came from. */
function notFoundHint(input: DownloadEnvironmentInput, helper: HelperAnswer): string {
  const path = input.helperPathSetting;
  const checkPath =
    path === undefined
      ? `check the target's helper address (${input.helperUrl}).`
      : `check ${path.key} ("${path.value}"): the bank's documentation names the path (the interface's default is ${DEFAULT_HELPER_PATH}).`;
  const client =
    input.clientSource === 'external'
      ? `Client ${input.clientId} was stored with \`obflow register --client-id\` (in CI from the TPP_CLIENT_ID_<BANK>_<PROFILE> ` +
        'secret, as OBFLOW_CLIENT_ID; CI legs never register): set it to the client registered for this bank and profile and ' +
        'store that one (`obflow register --client-id "$OBFLOW_CLIENT_ID" --force`; docs/ci.md, "Register once")'
      : `The bank does not know client ${input.clientId} that obflow registered (the sandbox was reset, or the client deleted): ` +
        'register again (`obflow register --force`)';
  if (helper === 'not-found') return `Nothing answers at ${input.helperUrl}: ${checkPath}`;
  if (helper === 'answers') return `${client}, then run \`obflow environment\` again.`;
  return `${client}; or, if the path is wrong, ${checkPath}`;
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
