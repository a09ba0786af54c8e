// The one place the TPP side turns undici transport failures into ObflowErrors (registration, environment helper):
// TLS problems → ERR_REMOTE_TLS, everything else on the way → ERR_REMOTE_UNREACHABLE.

import { ObflowError } from '../errors.js';

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|EPROTO$|HOSTNAME_MISMATCH$|ERR_OSSL_)/;

/** Walks `cause` chains (undici wraps socket errors) and returns every `code` found, outermost first. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = String(error);
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof Error && current.message !== '') message = current.message;
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}

/** Maps a thrown undici/Node error for a request to `url` into the right ObflowError; other errors pass through. */
export function transportError(error: unknown, url: string, what: string): unknown {
  if (error instanceof ObflowError) return error;
  const codes = errorCodes(error);
  const message = innermostMessage(error);
  const tls = codes.some((code) => TLS_CODE.test(code)) || /certificate|ssl|tls|handshake/i.test(message);
  if (tls) {
    return new ObflowError('ERR_REMOTE_TLS', `TLS with ${new URL(url).origin} failed during ${what}: ${message}`, {
      hint: "Check the target's CA (server certificate) and that the transport certificate is the one the bank trusts; `--insecure` only for a self-signed sandbox.",
      cause: error,
    });
  }
  const closed = codes.some((code) => code === 'ECONNRESET' || code === 'UND_ERR_SOCKET');
  return new ObflowError('ERR_REMOTE_UNREACHABLE', `${what}: ${new URL(url).origin} could not be reached (${codes[codes.length - 1] ?? message})`, {
    hint: closed
      ? 'The server closed the connection: a bank that requires mutual TLS does this when it does not accept the transport certificate; check the certificate and the address.'
      : 'Check the address in the config and that the server is running (`obflow sandbox` for the local one).',
    cause: error,
  });
}
