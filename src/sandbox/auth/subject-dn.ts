// tls_client_auth (RFC 8705 §2.1.2): the presented certificate's subject DN against the registered
// tls_client_auth_subject_dn. The bank writes the certificate's DN as an RFC 4514 string (most specific RDN first);
// strict profiles compare those strings exactly, permissive ones (tolerance tls-client-auth-dn-form) also accept the
// RDNs in another order and the OpenSSL one-line form `/C=GB/O=…/CN=…` a TPP copies from `openssl x509 -subject`.

import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';

/** RFC 4514 §2.1: the RDNs last to first. Node writes the subject one RDN a line, first to last, escaped as RFC 2253. */
export function subjectDnOf(certificate: PeerCertificate | undefined): string | undefined {
  const raw = (certificate as { raw?: unknown } | undefined)?.raw;
  if (!Buffer.isBuffer(raw)) return undefined;
  return new X509Certificate(raw).subject.split('\n').reverse().join(',');
}

/** One attribute type=value, type upper-cased and the value unescaped (RFC 4514 §3 `\,`, `\2C`). */
type Attribute = readonly [string, string];

/** Splits on `separator` where it is not escaped by a backslash. */
function splitUnescaped(text: string, separators: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? '';
    if (char === '\\' && i + 1 < text.length) {
      current += char + (text[i + 1] ?? '');
      i += 1;
    } else if (separators.includes(char)) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

function unescapeValue(value: string): string {
  return value
    .trim()
    .replace(/\\([0-9A-Fa-f]{2}|.)/g, (_, escaped: string) =>
      escaped.length === 2 ? String.fromCharCode(parseInt(escaped, 16)) : escaped,
    );
}

/** The attributes of an RFC 4514 string or an OpenSSL one-line `/C=GB/O=…` DN, in any order; undefined if unparsable. */
function attributesOf(dn: string): Attribute[] | undefined {
  const text = dn.trim();
  const parts = text.startsWith('/') ? splitUnescaped(text.slice(1), '/+') : splitUnescaped(text, ',+');
  const attributes: Attribute[] = [];
  for (const part of parts) {
    const equals = part.indexOf('=');
    if (equals <= 0) return undefined;
    attributes.push([part.slice(0, equals).trim().toUpperCase(), unescapeValue(part.slice(equals + 1))]);
  }
  const key = (a: Attribute): string => `${a[0]}=${a[1]}`;
  return attributes.sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
}

/**
 * Whether the presented DN is the registered one: RFC 4514 string equality, or with `tolerant` the same attributes in
 * any RDN order and either written form.
 */
export function sameSubjectDn(presented: string, registered: string, tolerant: boolean): boolean {
  if (presented === registered) return true;
  if (!tolerant) return false;
  const a = attributesOf(presented);
  const b = attributesOf(registered);
  return (
    a !== undefined && b !== undefined && a.length === b.length && a.every(([type, value], i) => b[i]?.[0] === type && b[i]?.[1] === value)
  );
}
