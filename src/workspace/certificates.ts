// The client certificate settings Postman needs, one row per bank origin the flow calls (Postman picks a certificate by
// host and port: docs/postman-certificates.md). Light on purpose (no template engine): the workspace's guide and
// `obflow environment` both list them.

import type { PostmanEnvironment } from '../environment/merge.js';
import { bankOriginsOf } from '../run/certificates.js';
import { originOf } from '../run/origin.js';

export interface CertificateRow {
  origin: string;
  host: string;
  port: string;
  /** Which of the bank's servers it is, for people. */
  role: string;
}

/** Which server an origin is, from the environment's addresses (docs/bank-interface.md: resource and auth servers). */
const ROLES: readonly [key: string, role: string][] = [
  ['rs', 'resource server (accounts API)'],
  ['issuer', 'authorisation server'],
  ['tokenEndpoint', 'token endpoint'],
  ['authEndpoint', 'authorisation endpoint'],
];

export function originRoles(environment: Pick<PostmanEnvironment, 'values'>): Map<string, string> {
  const roles = new Map<string, string>();
  for (const [key, role] of ROLES) {
    const origin = originOf(environment.values.find((entry) => entry.key === key)?.value ?? '');
    if (origin !== undefined && !roles.has(origin)) roles.set(origin, role);
  }
  return roles;
}

/** One row per bank origin the flow calls: Postman matches certificates by host and port. */
export function certificateRows(environment: Pick<PostmanEnvironment, 'values'>): CertificateRow[] {
  const roles = originRoles(environment);
  return bankOriginsOf(environment.values).map((origin) => {
    const url = new URL(origin);
    return { origin, host: url.hostname, port: url.port === '' ? '443' : url.port, role: roles.get(origin) ?? 'bank' };
  });
}
