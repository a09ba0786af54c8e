// Talking to the bank over HTTP, the one wrapper for every TPP-side caller (registration, its management, the
// environment helper, discovery, the id_token's keys): a request over the session's mutual-TLS dispatcher whose answer
// comes back as status, text and parsed JSON, and the one place undici transport failures become ObflowErrors — TLS
// problems → ERR_REMOTE_TLS, everything else on the way → ERR_REMOTE_UNREACHABLE (the classification is
// src/bank/transport-error.ts, shared with the newman runner). What a refusal says: src/bank/answers.ts.

import type { Dispatcher } from 'undici';
import { ObflowError } from '../errors.js';
import { loadUndiciCore } from '../pki/undici-core.js';
import { errorCodes, innermostMessage, transportErrorKind } from './transport-error.js';

/** Maps a thrown undici/Node error for a request to `url` into the right ObflowError; other errors pass through. */
export function transportError(error: unknown, url: string, what: string): unknown {
  if (error instanceof ObflowError) return error;
  const codes = errorCodes(error);
  const message = innermostMessage(error);
  if (transportErrorKind(error) === 'tls') {
    return new ObflowError('ERR_REMOTE_TLS', `TLS with ${new URL(url).origin} failed during ${what}: ${message}`, {
      hint: "Check the target's CA (server certificate) and that the transport certificate is the one the bank trusts; `--insecure` only for a self-signed sandbox.",
      cause: error,
    });
  }
  const closed = codes.some((code) => code === 'ECONNRESET' || code === 'UND_ERR_SOCKET');
  return new ObflowError(
    'ERR_REMOTE_UNREACHABLE',
    `${what}: ${new URL(url).origin} could not be reached (${codes[codes.length - 1] ?? message})`,
    {
      hint: closed
        ? 'The server closed the connection: a bank that requires mutual TLS does this when it does not accept the transport certificate; check the certificate and the address.'
        : 'Check the address in the config and that the server is running (`obflow sandbox` for the local one).',
      cause: error,
    },
  );
}

/** What the bank answered: the status, the body's text, and the body as JSON (undefined when empty or not JSON). */
export interface BankAnswer {
  status: number;
  text: string;
  body: unknown;
}

/** One request to the bank over `dispatcher`; a transport failure is an ObflowError naming `what`. */
export async function bankRequest(
  url: string,
  init: { method: Dispatcher.HttpMethod; dispatcher: Dispatcher; headers: Record<string, string>; body?: string },
  what: string,
): Promise<BankAnswer> {
  let status: number;
  let text: string;
  try {
    // undici at the first request (src/pki/tls.ts says why), only the part obflow's requests use.
    const response = await loadUndiciCore().request(url, {
      method: init.method,
      dispatcher: init.dispatcher,
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw transportError(error, url, what);
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, text, body };
}

/** GET a JSON document over the session's mTLS dispatcher. */
export async function getJson(
  url: string,
  dispatcher: Dispatcher,
  what: string,
  extraHeaders: Record<string, string> = {},
): Promise<BankAnswer> {
  return bankRequest(url, { method: 'GET', dispatcher, headers: { accept: 'application/json', ...extraHeaders } }, what);
}
