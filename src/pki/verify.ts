// Verification of the TPP's identity material against the trust directory (docs/bank-interface.md §1 prerequisites):
// software statement signature and claims, transport certificate chain / validity / key / clientAuth, signing key ↔
// `kid` ↔ statement JWKS, redirect URIs ⊆ statement. Each check throws one ObflowError with a stable code.

import { createPublicKey, type KeyObject, type X509Certificate } from 'node:crypto';

import * as joseErrors from 'jose/errors';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { createLocalJWKSet } from 'jose/jwks/local';
import { decodeJwt } from 'jose/jwt/decode';
import { jwtVerify } from 'jose/jwt/verify';
import type { JSONWebKeySet } from 'jose';

import { ObflowError } from '../errors.js';
import {
  loadTransportMaterial,
  parseCertificates,
  parsePrivateKey,
  readMaterialFile,
  safeCheckPrivateKey,
  type TransportMaterial,
} from './load.js';
import type { IdentityPaths, PublicJwk, SoftwareStatementClaims } from './types.js';

/** RFC 5280 §4.2.1.12 id-kp-clientAuth and anyExtendedKeyUsage. */
const OID_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const OID_ANY_EKU = '2.5.29.37.0';
/** Directory statements are signed PS256 or ES256 (directory API swagger, "SSA header"). */
const SSA_ALGORITHMS = ['PS256', 'ES256'];
const MAX_CHAIN_DEPTH = 5;

// ---- software statement ---------------------------------------------------------------------------------------

/** Reads the statement file (compact JWT, surrounding whitespace ignored). Missing → ERR_SSA_MISSING. */
export async function readSoftwareStatement(path: string): Promise<string> {
  let text: string;
  try {
    text = (await readMaterialFile(path, 'software statement')).toString('utf8');
  } catch (cause) {
    throw new ObflowError('ERR_SSA_MISSING', `software statement not found or unreadable: ${path}`, {
      hint: 'download the software statement assertion from the directory and point identity.softwareStatement at it',
      cause,
    });
  }
  const jwt = text.trim();
  if (jwt === '') {
    throw new ObflowError('ERR_SSA_MISSING', `software statement file is empty: ${path}`, {
      hint: 'download the software statement assertion from the directory again',
    });
  }
  return jwt;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Decodes the statement without verifying it and checks the claims obflow relies on. → ERR_SSA_INVALID. */
export function decodeSoftwareStatement(jwt: string): SoftwareStatementClaims {
  let payload: Record<string, unknown>;
  try {
    decodeProtectedHeader(jwt);
    payload = decodeJwt(jwt);
  } catch (cause) {
    throw new ObflowError('ERR_SSA_INVALID', 'the software statement is not a decodable JWT', {
      hint: 'download the software statement assertion from the directory again; do not edit it',
      cause,
    });
  }
  const problems: string[] = [];
  for (const claim of ['software_id', 'org_id', 'iss'] as const) {
    if (typeof payload[claim] !== 'string' || payload[claim] === '') problems.push(claim);
  }
  if (!isStringArray(payload.software_redirect_uris)) problems.push('software_redirect_uris');
  if (!isStringArray(payload.software_roles)) problems.push('software_roles');
  if (payload.software_jwks !== undefined && !isJwks(payload.software_jwks)) problems.push('software_jwks');
  if (problems.length > 0) {
    throw new ObflowError('ERR_SSA_INVALID', `the software statement lacks or mistypes: ${problems.join(', ')}`, {
      hint: 'use the software statement assertion exactly as the directory issued it',
    });
  }
  return payload as unknown as SoftwareStatementClaims;
}

function isJwks(value: unknown): value is { keys: PublicJwk[] } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = (value as { keys?: unknown }).keys;
  return Array.isArray(keys) && keys.every((key) => typeof key === 'object' && key !== null && 'kty' in key);
}

/** Reads the directory's public JWKS file. Missing → ERR_FILE_MISSING; not a JWKS → ERR_FILE_UNREADABLE. */
export async function readDirectoryJwks(path: string): Promise<JSONWebKeySet> {
  const text = (await readMaterialFile(path, 'directory JWKS')).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} is not JSON`, {
      hint: "use the directory's public JWKS (a JSON object with a keys array)",
      cause,
    });
  }
  if (!isJwks(parsed)) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} is not a JWKS (no keys array)`, {
      hint: "use the directory's public JWKS (a JSON object with a keys array)",
    });
  }
  return parsed as JSONWebKeySet;
}

/**
 * Verifies the statement's signature with the directory's keys (header `kid`) and its time claims at `now`, then its
 * claims. → ERR_SSA_INVALID (not a JWT / claims), ERR_SSA_SIGNATURE (no matching key or bad signature), ERR_SSA_EXPIRED.
 */
export async function verifySoftwareStatement(jwt: string, directoryJwks: JSONWebKeySet, now: Date): Promise<SoftwareStatementClaims> {
  const claims = decodeSoftwareStatement(jwt);
  try {
    await jwtVerify(jwt, createLocalJWKSet(directoryJwks), { algorithms: SSA_ALGORITHMS, currentDate: now });
  } catch (cause) {
    if (cause instanceof joseErrors.JWTExpired) {
      throw new ObflowError('ERR_SSA_EXPIRED', `the software statement expired (exp ${String(claims.exp)})`, {
        hint: 'issue a fresh software statement in the directory (locally: obflow init --force)',
        cause,
      });
    }
    if (cause instanceof joseErrors.JWTClaimValidationFailed) {
      throw new ObflowError('ERR_SSA_INVALID', `the software statement's ${cause.claim} claim is not valid now`, {
        hint: "check the machine's clock, or issue a fresh software statement",
        cause,
      });
    }
    if (
      cause instanceof joseErrors.JWSSignatureVerificationFailed ||
      cause instanceof joseErrors.JWKSNoMatchingKey ||
      cause instanceof joseErrors.JWKSMultipleMatchingKeys ||
      cause instanceof joseErrors.JOSEAlgNotAllowed
    ) {
      throw new ObflowError('ERR_SSA_SIGNATURE', "the software statement's signature does not verify with the directory's keys", {
        hint: 'use a statement issued by the configured directory, or fix identity.directoryJwks',
        cause,
      });
    }
    throw new ObflowError('ERR_SSA_INVALID', 'the software statement cannot be verified', {
      hint: 'download the software statement assertion from the directory again; do not edit it',
      cause,
    });
  }
  return claims;
}

// ---- certificates ---------------------------------------------------------------------------------------------

/** Reads the directory's root and issuing certificates. None configured or a file missing → ERR_DIRECTORY_CERTS_MISSING. */
export async function readDirectoryCertificates(
  paths: Pick<IdentityPaths, 'directoryRoots' | 'directoryIssuing'>,
): Promise<{ roots: X509Certificate[]; issuing: X509Certificate[] }> {
  const read = async (list: string[], what: string): Promise<X509Certificate[]> => {
    if (list.length === 0) {
      throw new ObflowError('ERR_DIRECTORY_CERTS_MISSING', `no directory ${what} certificate is configured`, {
        hint: `download the directory's ${what} certificate and list it in identity.${what === 'root' ? 'directoryRoots' : 'directoryIssuing'}`,
      });
    }
    const certs: X509Certificate[] = [];
    for (const path of list) {
      let text: string;
      try {
        text = (await readMaterialFile(path, `directory ${what} certificate`)).toString('utf8');
      } catch (cause) {
        throw new ObflowError('ERR_DIRECTORY_CERTS_MISSING', `directory ${what} certificate not found or unreadable: ${path}`, {
          hint: `download the directory's ${what} certificate to that path (locally: obflow init)`,
          cause,
        });
      }
      certs.push(...parseCertificates(text, path));
    }
    return certs;
  };
  return { roots: await read(paths.directoryRoots, 'root'), issuing: await read(paths.directoryIssuing, 'issuing') };
}

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return parent.ca && child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

function describe(cert: X509Certificate): string {
  return cert.subject.replaceAll('\n', ', ');
}

/** Checks one certificate's validity window at `now`. → ERR_CERT_EXPIRED / ERR_CERT_NOT_YET_VALID. */
export function verifyValidity(cert: X509Certificate, now: Date, what: string): void {
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  if (now.getTime() < from.getTime()) {
    throw new ObflowError('ERR_CERT_NOT_YET_VALID', `${what} is not valid before ${from.toISOString()}`, {
      hint: "check the machine's clock, or wait until the certificate's notBefore",
    });
  }
  if (now.getTime() > to.getTime()) {
    throw new ObflowError('ERR_CERT_EXPIRED', `${what} expired at ${to.toISOString()}`, {
      hint: 'renew the certificate in the directory (locally: obflow init --force)',
    });
  }
}

/**
 * Builds the path leaf → issuing CA(s) → root from the directory's certificates (signatures and CA flags checked,
 * RFC 5280 §6.1 basics; dates are not). Returns the path, leaf first. → ERR_CERT_UNTRUSTED.
 */
export function buildChain(leaf: X509Certificate, directory: { roots: X509Certificate[]; issuing: X509Certificate[] }): X509Certificate[] {
  const path: X509Certificate[] = [leaf];
  let current = leaf;
  for (let depth = 0; depth < MAX_CHAIN_DEPTH; depth += 1) {
    const root = directory.roots.find((candidate) => issuedBy(current, candidate));
    if (root !== undefined) {
      path.push(root);
      return path;
    }
    const parent = directory.issuing.find((candidate) => !path.includes(candidate) && issuedBy(current, candidate));
    if (parent === undefined) break;
    path.push(parent);
    current = parent;
  }
  throw new ObflowError(
    'ERR_CERT_UNTRUSTED',
    `the transport certificate (${describe(leaf)}) does not chain to the directory's root and issuing certificates`,
    {
      hint: 'use a transport certificate issued by the configured directory, or fix identity.directoryRoots / directoryIssuing',
    },
  );
}

/** buildChain, then every certificate on the path valid at `now` (the leaf first: that is the one a TPP renews).
 *  → ERR_CERT_UNTRUSTED, ERR_CERT_EXPIRED, ERR_CERT_NOT_YET_VALID. */
export function verifyChain(
  leaf: X509Certificate,
  directory: { roots: X509Certificate[]; issuing: X509Certificate[] },
  now: Date,
): X509Certificate[] {
  const path = buildChain(leaf, directory);
  path.forEach((cert, i) => verifyValidity(cert, now, i === 0 ? 'the transport certificate' : `directory certificate ${describe(cert)}`));
  return path;
}

/** → ERR_CERT_KEY_MISMATCH when the private key does not belong to the certificate. The one check of the pair:
 *  doctor, every session (register, environment, run, demo) and newman's certificate preflight call it. */
export function verifyKeyMatch(material: Pick<TransportMaterial, 'x509' | 'privateKey'>, what = 'transport'): void {
  if (!safeCheckPrivateKey(material.x509, material.privateKey)) {
    throw new ObflowError('ERR_CERT_KEY_MISMATCH', `the ${what} key does not belong to the ${what} certificate`, {
      hint: 'pair the certificate with the key generated for its signing request',
    });
  }
}

/**
 * → ERR_CERT_NO_CLIENT_AUTH when an extended key usage is present without clientAuth (RFC 5280 §4.2.1.12; an absent
 * extension places no restriction, as for many self-signed sandbox certificates).
 */
export function verifyClientAuth(cert: X509Certificate): void {
  const eku = cert.keyUsage as string[] | undefined;
  if (eku === undefined || eku.includes(OID_CLIENT_AUTH) || eku.includes(OID_ANY_EKU)) return;
  throw new ObflowError(
    'ERR_CERT_NO_CLIENT_AUTH',
    `the transport certificate's extended key usage (${eku.join(', ')}) excludes TLS client authentication`,
    {
      hint: 'use the transport certificate (extended key usage clientAuth), not the signing or server one',
    },
  );
}

/** Subject attributes of a certificate (Node prints one `key=value` per line). */
function subjectAttributes(cert: X509Certificate): Map<string, string[]> {
  const attributes = new Map<string, string[]>();
  for (const line of cert.subject.split('\n')) {
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const key = line.slice(0, at);
    attributes.set(key, [...(attributes.get(key) ?? []), line.slice(at + 1)]);
  }
  return attributes;
}

/**
 * The directory issues a transport certificate per software statement (docs/bank-interface.md §1 prerequisite 3) with
 * subject CN=<software_id>, OU=<org_id>; the bank binds a registration to it. → ERR_CERT_NOT_FOR_SSA.
 */
export function verifyCertificateForStatement(
  cert: X509Certificate,
  claims: Pick<SoftwareStatementClaims, 'software_id' | 'org_id'>,
): void {
  const subject = subjectAttributes(cert);
  const cn = subject.get('CN') ?? [];
  const ou = subject.get('OU') ?? [];
  if (!cn.includes(claims.software_id)) {
    throw new ObflowError(
      'ERR_CERT_NOT_FOR_SSA',
      `the transport certificate's CN (${cn.join(', ') || 'none'}) is not the statement's software_id ${claims.software_id}`,
      {
        hint: 'use the transport certificate the directory issued for this software statement',
      },
    );
  }
  if (ou.length > 0 && !ou.includes(claims.org_id)) {
    throw new ObflowError(
      'ERR_CERT_NOT_FOR_SSA',
      `the transport certificate's OU (${ou.join(', ')}) is not the statement's org_id ${claims.org_id}`,
      {
        hint: 'use the transport certificate the directory issued for this software statement',
      },
    );
  }
}

// ---- signing key and redirect URIs ----------------------------------------------------------------------------

/** Reads the TPP's private signing key. Missing → ERR_FILE_MISSING; not a key → ERR_KEY_INVALID. */
export async function readSigningKey(path: string): Promise<KeyObject> {
  const text = (await readMaterialFile(path, 'signing key')).toString('utf8');
  return parsePrivateKey(text, path);
}

/** Fetches a JWKS document (seam: the CLI passes an undici fetch; tests a function). */
export type FetchJwks = (url: string) => Promise<unknown>;

/**
 * The statement's public signing keys: the embedded `software_jwks`, else the document at `software_jwks_endpoint`
 * fetched with `fetchJwks` (→ ERR_REMOTE_UNREACHABLE / ERR_REMOTE_RESPONSE), else undefined (offline, not embedded).
 */
export async function statementJwks(
  claims: Pick<SoftwareStatementClaims, 'software_jwks' | 'software_jwks_endpoint'>,
  fetchJwks?: FetchJwks,
): Promise<{ jwks: { keys: PublicJwk[] }; source: string } | undefined> {
  if (claims.software_jwks !== undefined) return { jwks: claims.software_jwks, source: "the statement's software_jwks" };
  const endpoint = claims.software_jwks_endpoint;
  if (fetchJwks === undefined || typeof endpoint !== 'string' || endpoint === '') return undefined;
  let document: unknown;
  try {
    document = await fetchJwks(endpoint);
  } catch (cause) {
    throw new ObflowError('ERR_REMOTE_UNREACHABLE', `cannot fetch the statement's software_jwks_endpoint ${endpoint}`, {
      hint: 'check the network can reach the directory keystore',
      cause,
    });
  }
  if (!isJwks(document)) {
    throw new ObflowError('ERR_REMOTE_RESPONSE', `${endpoint} did not return a JWKS`, {
      hint: "check the statement's software_jwks_endpoint",
    });
  }
  return { jwks: document, source: endpoint };
}

/**
 * The signing key must be the one the statement publishes under `kid`: `kid` present in the statement's JWKS and the
 * same public key. → ERR_SIGNING_KEY_MISMATCH.
 */
export function verifySigningKey(signingKey: KeyObject, kid: string, jwks: { keys: PublicJwk[] }): void {
  const published = jwks.keys.find((key) => key.kid === kid);
  if (published === undefined) {
    throw new ObflowError('ERR_SIGNING_KEY_MISMATCH', `kid ${kid} is not in the software statement's JWKS`, {
      hint: `use the kid the statement publishes (${jwks.keys.map((key) => key.kid).join(', ') || 'none'}) and its key`,
    });
  }
  const mine = createPublicKey(signingKey).export({ format: 'jwk' });
  const same =
    mine.kty === published.kty &&
    (mine.kty === 'RSA' ? mine.n === published.n && mine.e === published.e : mine.x === published.x && mine.y === published.y);
  if (!same) {
    throw new ObflowError('ERR_SIGNING_KEY_MISMATCH', `the signing key is not the key the statement publishes under kid ${kid}`, {
      hint: "use the private key whose public half is in the statement's JWKS under that kid",
    });
  }
}

/**
 * Redirect URIs: the statement must have at least one (→ ERR_REDIRECT_URI_MISSING) and every configured one must be in
 * it, compared exactly (→ ERR_REDIRECT_URI_NOT_IN_SSA). Returns the URIs to use: the configured ones, else the statement's.
 */
export function verifyRedirectUris(configured: string[], claims: Pick<SoftwareStatementClaims, 'software_redirect_uris'>): string[] {
  const inStatement = claims.software_redirect_uris;
  if (inStatement.length === 0) {
    throw new ObflowError('ERR_REDIRECT_URI_MISSING', 'the software statement has no redirect URI', {
      hint: 'add at least one redirect URI to the software statement in the directory',
    });
  }
  const outside = configured.filter((uri) => !inStatement.includes(uri));
  if (outside.length > 0) {
    throw new ObflowError('ERR_REDIRECT_URI_NOT_IN_SSA', `redirect URI not in the software statement: ${outside.join(', ')}`, {
      hint: `use only the statement's software_redirect_uris (${inStatement.join(', ')}) or add the URI in the directory`,
    });
  }
  return configured.length > 0 ? [...configured] : [...inStatement];
}

// ---- everything, first failure wins ---------------------------------------------------------------------------

export interface VerifiedIdentity {
  claims: SoftwareStatementClaims;
  softwareStatement: string;
  transport: TransportMaterial;
  chain: X509Certificate[];
  signingKey: KeyObject;
  redirectUris: string[];
}

/**
 * All prerequisites at once (register/run preflight): throws the first problem, returns the verified material. The
 * signing key is compared with the statement's JWKS when it is embedded or `fetchJwks` can fetch it.
 */
export async function verifyIdentity(paths: IdentityPaths, now: Date, options: { fetchJwks?: FetchJwks } = {}): Promise<VerifiedIdentity> {
  const softwareStatement = await readSoftwareStatement(paths.softwareStatement);
  const claims = await verifySoftwareStatement(softwareStatement, await readDirectoryJwks(paths.directoryJwks), now);
  const directory = await readDirectoryCertificates(paths);
  const transport = await loadTransportMaterial(paths.transport);
  verifyKeyMatch(transport);
  const chain = verifyChain(transport.x509, directory, now);
  verifyClientAuth(transport.x509);
  verifyCertificateForStatement(transport.x509, claims);
  const redirectUris = verifyRedirectUris(paths.redirectUris, claims);
  const signingKey = await readSigningKey(paths.signing.key);
  const published = await statementJwks(claims, options.fetchJwks);
  if (published !== undefined) verifySigningKey(signingKey, paths.signing.kid, published.jwks);
  return { claims, softwareStatement, transport, chain, signingKey, redirectUris };
}
