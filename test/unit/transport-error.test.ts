// One transport-error classification for the whole TPP side (src/bank/transport-error.ts): one table of Node/undici errors,
// run through every surface that classifies them — the bare kind, registration/environment download
// (bank/http.ts transportError) and a run's failed request (pipeline/verdict.ts runFailureError) — each ending in the
// error code the CLI prints: ERR_REMOTE_TLS or ERR_REMOTE_UNREACHABLE.

import { describe, expect, it } from 'vitest';

import { runFailureError } from '../../src/pipeline/verdict.js';
import { isObflowError } from '../../src/errors.js';
import { transportError } from '../../src/bank/http.js';
import type { RunResult } from '../../src/run/index.js';
import {
  errorCodes,
  innermostMessage,
  isTlsErrorCode,
  transportErrorKind,
  type TransportErrorKind,
} from '../../src/bank/transport-error.js';

/** As newman hands a request error over: flat, code and message on the error itself. */
const flat = (code: string | undefined, message: string): Error => Object.assign(new Error(message), code === undefined ? {} : { code });
/** As undici throws it: `fetch failed` around the socket's error. */
const wrapped = (code: string | undefined, message: string): Error =>
  Object.assign(new TypeError('fetch failed'), { cause: flat(code, message) });

const TABLE: readonly { code?: string; message: string; kind: TransportErrorKind }[] = [
  { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1', kind: 'unreachable' },
  { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND bank.example', kind: 'unreachable' },
  { code: 'ETIMEDOUT', message: 'ETIMEDOUT', kind: 'unreachable' },
  { code: 'ECONNRESET', message: 'socket hang up', kind: 'unreachable' },
  { code: 'UND_ERR_SOCKET', message: 'other side closed', kind: 'unreachable' },
  { code: 'UND_ERR_CONNECT_TIMEOUT', message: 'Connect Timeout Error', kind: 'unreachable' },
  { code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', message: 'unable to get local issuer certificate', kind: 'tls' },
  { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', message: 'unable to verify the first certificate', kind: 'tls' },
  { code: 'SELF_SIGNED_CERT_IN_CHAIN', message: 'self-signed certificate in certificate chain', kind: 'tls' },
  { code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate', kind: 'tls' },
  { code: 'CERT_HAS_EXPIRED', message: 'certificate has expired', kind: 'tls' },
  { code: 'HOSTNAME_MISMATCH', message: 'hostname mismatch', kind: 'tls' },
  { code: 'INVALID_CA', message: 'invalid CA', kind: 'tls' },
  { code: 'EPROTO', message: 'write EPROTO', kind: 'tls' },
  { code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: "Hostname/IP does not match certificate's altnames", kind: 'tls' },
  { code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', message: 'alert', kind: 'tls' },
  { code: 'ERR_OSSL_EVP_BAD_DECRYPT', message: 'bad decrypt', kind: 'tls' },
  // The alert only in the message (Node gives no TLS code when the server aborts the handshake).
  { code: 'ECONNRESET', message: 'tlsv13 alert certificate required', kind: 'tls' },
  { message: 'Client network socket disconnected before secure TLS connection was established', kind: 'tls' },
  { message: 'error:0A000410:SSL routines::sslv3 alert handshake failure', kind: 'tls' },
];

const CLI_CODE: Record<TransportErrorKind, string> = { tls: 'ERR_REMOTE_TLS', unreachable: 'ERR_REMOTE_UNREACHABLE' };
const codeOf = (error: unknown): unknown => (isObflowError(error) ? error.code : error);

describe('transportErrorKind', () => {
  it.each(TABLE)('$code $message → $kind (flat, as newman hands it; wrapped, as undici throws it)', ({ code, message, kind }) => {
    expect(transportErrorKind(flat(code, message))).toBe(kind);
    expect(transportErrorKind(wrapped(code, message))).toBe(kind);
  });

  it('reads codes and the innermost message through the cause chain', () => {
    const error = wrapped('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');
    expect(errorCodes(error)).toEqual(['ECONNREFUSED']);
    expect(innermostMessage(error)).toBe('connect ECONNREFUSED 127.0.0.1:1');
    expect(isTlsErrorCode('ECONNREFUSED')).toBe(false);
    expect(isTlsErrorCode('CERT_REVOKED')).toBe(true);
    expect(transportErrorKind('not an error')).toBe('unreachable');
  });
});

describe('every surface prints the same code for the same error', () => {
  const url = 'https://bank.example:8443/dynamic-client-registration/v3.2/register';

  it.each(TABLE)('registration/environment: $code $message', ({ code, message, kind }) => {
    expect(codeOf(transportError(wrapped(code, message), url, 'registration'))).toBe(CLI_CODE[kind]);
  });

  it.each(TABLE)('run: $code $message', ({ code, message, kind }) => {
    const failure = {
      kind: transportErrorKind(flat(code, message)),
      item: 'accounts: GET',
      origin: 'https://bank.example:8443',
      ...(code !== undefined ? { code } : {}),
      message,
    };
    const step = {
      name: 'accounts',
      passed: false,
      transport: failure,
      requests: 1,
      assertions: { total: 0, failed: 0 },
      failures: [],
      reports: [],
    };
    const result: RunResult = {
      passed: false,
      steps: [step],
      failedStep: 'accounts',
      environment: { id: 'e', name: 'e', values: [], _postman_variable_scope: 'environment' },
      executions: [],
    };
    expect(runFailureError(result).code).toBe(CLI_CODE[kind]);
  });
});
