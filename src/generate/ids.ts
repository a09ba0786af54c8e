// Deterministic ids for every collection element: RFC 4122 §4.3 name-based (SHA-1, version 5) UUIDs of the item path,
// so regenerating gives byte-identical collections (the SDK would otherwise assign random v4 ids).

import { createHash } from 'node:crypto';

/** obflow's namespace: uuid v5 of the URL namespace and "https://obflow.invalid/postman" (RFC 4122 Appendix C). */
export const OBFLOW_NAMESPACE = uuidV5('https://obflow.invalid/postman', '6ba7b811-9dad-11d1-80b4-00c04fd430c8');

export function uuidV5(name: string, namespace: string = OBFLOW_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new TypeError(`namespace is not a UUID: ${namespace}`);
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
