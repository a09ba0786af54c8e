// Mutual TLS for the TPP side: an undici dispatcher that presents the transport certificate, and the RFC 8705
// certificate thumbprint (`x5t#S256`) that certificate-bound tokens carry.

import { X509Certificate, createHash } from 'node:crypto';
import type { Agent } from 'undici';

import { ObflowError } from '../errors.js';
import type { TransportMaterial } from './load.js';
import { loadUndiciCore } from './undici-core.js';

export interface MtlsDispatcherOptions {
  /** The loaded transport certificate and key (loadTransportMaterial). */
  transport: Pick<TransportMaterial, 'certPem' | 'chainPem' | 'keyPem'>;
  /** PEM texts of the CAs that issued the bank's server certificate (default: Node's public roots). */
  serverCa?: string[];
  /** Do not verify the bank's server certificate (self-signed sandboxes only). */
  insecure?: boolean;
}

/**
 * An undici Agent that presents the transport certificate (plus any chain that came with it) on every connection.
 * Pass it as `dispatcher` to undici's fetch/request; close it when done.
 */
export function createMtlsDispatcher(options: MtlsDispatcherOptions): Agent {
  const { transport } = options;
  // undici at the first dispatcher, not with the module: a command that never calls the bank itself (`obflow run`:
  // newman makes the requests) does not hold its files (each MB live at start-up raises the run's peak RSS; docs/notes.md).
  const { Agent } = loadUndiciCore();
  return new Agent({
    connect: {
      cert: [transport.certPem, ...transport.chainPem].join('\n'),
      key: transport.keyPem,
      ...(options.serverCa === undefined || options.serverCa.length === 0 ? {} : { ca: options.serverCa }),
      rejectUnauthorized: options.insecure !== true,
    },
  });
}

/** RFC 8705 §3.1 `x5t#S256`: base64url SHA-256 of the certificate's DER encoding. */
export function certificateThumbprint(certPem: string): string {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (cause) {
    throw new ObflowError('ERR_CERT_INVALID', 'the certificate is not a valid X.509 PEM certificate', {
      hint: 'use the transport certificate file as issued',
      cause,
    });
  }
  return createHash('sha256').update(cert.raw).digest('base64url');
}
