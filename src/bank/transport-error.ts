// The one classification of a request that got no HTTP answer, for every TPP-side caller (registration, environment
// download, the newman runner): a TLS failure (handshake, server certificate, client certificate alert) or the bank
// not being reached at all. The CLI prints ERR_REMOTE_TLS for the first, ERR_REMOTE_UNREACHABLE for the second.

export type TransportErrorKind = 'unreachable' | 'tls';

/** OpenSSL's certificate verification results as Node names them (X509_V_ERR_* without the prefix), and the prefixes
 *  of Node's own TLS/OpenSSL error codes (ERR_TLS_CERT_ALTNAME_INVALID, ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED, …). */
const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'HOSTNAME_MISMATCH', 'INVALID_CA', 'EPROTO']);
const TLS_CODE_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'ERR_OSSL_', 'CERT_', 'UNABLE_TO_'] as const;

/** Words only a TLS failure puts in a message: Node sometimes reports an alert in the message alone (no code). */
const TLS_MESSAGE = /certificate|\bssl|\btls|handshake|alert/i;

/** Whether a Node error code names a TLS failure. */
export function isTlsErrorCode(code: string): boolean {
  return TLS_CODES.has(code) || TLS_CODE_PREFIXES.some((prefix) => code.startsWith(prefix));
}

/** Errors of a `cause` chain (undici wraps socket errors), outermost first; at most five deep. */
function chainOf(error: unknown): object[] {
  const chain: object[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Every string `code` of the error's cause chain, outermost first. */
export function errorCodes(error: unknown): string[] {
  return chainOf(error).flatMap((entry) => {
    const code = (entry as { code?: unknown }).code;
    return typeof code === 'string' ? [code] : [];
  });
}

/** The innermost non-empty message of the cause chain (the socket's own words), else String(error). */
export function innermostMessage(error: unknown): string {
  let message = String(error);
  for (const entry of chainOf(error)) {
    const text = (entry as { message?: unknown }).message;
    if (typeof text === 'string' && text !== '') message = text;
  }
  return message;
}

/** TLS when any code of the chain is a TLS code or any message speaks of certificates, SSL/TLS, handshakes or alerts;
 *  otherwise the bank was not reached (refused, reset, DNS, timeout). */
export function transportErrorKind(error: unknown): TransportErrorKind {
  if (errorCodes(error).some(isTlsErrorCode)) return 'tls';
  const messages = chainOf(error).map((entry) => (entry as { message?: unknown }).message);
  return messages.some((message) => typeof message === 'string' && TLS_MESSAGE.test(message)) ? 'tls' : 'unreachable';
}
