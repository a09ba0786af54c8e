// The one place the TPP side turns undici transport failures into ObflowErrors (registration, environment helper):
// TLS problems → ERR_REMOTE_TLS, everything else on the way → ERR_REMOTE_UNREACHABLE (the classification is
// src/transport-error.ts, shared with the newman runner).

import { ObflowError } from '../errors.js';
import { errorCodes, innermostMessage, transportErrorKind } from '../transport-error.js';

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
