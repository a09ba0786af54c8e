// newman's client certificates: an `sslClientCertList` with port-qualified `matches` for every bank origin, a
// preflight of the files it names, and a coverage check — newman silently sends NO certificate when a pattern does
// not match (a port-less pattern misses https://host:8443) or a file is missing (docs/pipeline.md#newman-findings).

import { access, constants } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { createRequire } from 'node:module';
import type PostmanCollection from 'postman-collection';
import { ObflowError } from '../errors.js';
import { writeFileAtomic } from '../fs.js';
import { loadTransportMaterial, readMaterialFile, type TransportMaterial } from '../pki/load.js';
import { verifyKeyMatch } from '../pki/verify.js';
import type { IdentityPaths } from '../pki/types.js';
import { originOf } from './origin.js';

/** One entry of newman's `sslClientCertList` (postman-collection Certificate definition). Paths only: newman ignores
 *  inline PEM values. */
export interface SslClientCert {
  name: string;
  matches: string[];
  key?: { src: string };
  cert?: { src: string };
  pfx?: { src: string };
  passphrase?: string;
}

export { originOf };

/** Keys whose URLs are the TPP's own, not the bank's: no client certificate is presented there. */
export const NON_BANK_KEYS: readonly string[] = ['redirectUrl'];

/** Every https origin among the environment's values (rs, issuer, tokenEndpoint, authEndpoint, …), sorted. */
export function bankOriginsOf(values: readonly { key: string; value: unknown }[], exclude: readonly string[] = NON_BANK_KEYS): string[] {
  const origins = new Set<string>();
  for (const entry of values) {
    if (exclude.includes(entry.key)) continue;
    if (typeof entry.value !== 'string' || !entry.value.startsWith('https://')) continue;
    const origin = originOf(entry.value);
    if (origin !== undefined) origins.add(origin);
  }
  return [...origins].sort();
}

/** The pattern for one origin, port included: `https://host:port/*` (a port-less pattern only matches port 443). */
export function matchPatternOf(origin: string): string {
  const normalised = originOf(origin);
  if (normalised === undefined) throw new TypeError(`not an https origin: ${origin}`);
  return `${normalised}/*`;
}

export interface BuildCertListInput {
  origins: readonly string[];
  transport: IdentityPaths['transport'];
  name?: string;
}

/** One entry presenting the transport certificate to every bank origin (PEM src pair, or PFX src + passphrase). The
 *  passphrase stays in memory for newman.run; writeSslClientCertList leaves it out of the file. */
export function buildSslClientCertList(input: BuildCertListInput): SslClientCert[] {
  const matches = [...new Set(input.origins.map(matchPatternOf))].sort();
  if (matches.length === 0) throw new TypeError('buildSslClientCertList needs at least one bank origin');
  const name = input.name ?? 'obflow transport certificate';
  if ('pfx' in input.transport) {
    return [
      {
        name,
        matches,
        pfx: { src: input.transport.pfx },
        ...(input.transport.passphrase !== undefined ? { passphrase: input.transport.passphrase } : {}),
      },
    ];
  }
  return [{ name, matches, key: { src: input.transport.key }, cert: { src: input.transport.cert } }];
}

/** The certificate newman would pick for a URL — postman-collection's own matcher, the one postman-runtime uses —
 *  built once for a list (the runner asks it for every request). */
export function certificateMatcher(list: readonly SslClientCert[]): (url: string) => SslClientCert | undefined {
  // Required on first use: the SDK (~0.3 s to load) is for runs, which load it with newman anyway; `obflow generate`
  // on current collections, `register` and `environment` never do.
  const pc = createRequire(import.meta.url)('postman-collection') as typeof PostmanCollection;
  const certificates = new pc.CertificateList({}, list.map((entry) => structuredClone(entry)) as never);
  return (url) => {
    const found = certificates.resolveOne(url) as { name?: string } | undefined;
    return found === undefined ? undefined : list.find((entry) => entry.name === found.name);
  };
}

/** The certificate newman would pick for `url` (certificateMatcher for one question). */
export function certificateFor(list: readonly SslClientCert[], url: string): SslClientCert | undefined {
  return certificateMatcher(list)(url);
}

/**
 * Every URL must get a certificate from the list; otherwise newman would send the request without one and the bank
 * would answer with a TLS alert or 401 that looks like anything but a certificate problem.
 */
export function checkCertificateCoverage(list: readonly SslClientCert[], urls: readonly string[]): void {
  const certificateOf = certificateMatcher(list);
  const unmatched = [
    ...new Set(urls.filter((url) => url.startsWith('https://') && certificateOf(url) === undefined).map((url) => originOf(url) ?? url)),
  ];
  if (unmatched.length > 0) {
    throw new ObflowError(
      'ERR_CERT_PORT_UNMATCHED',
      `no client certificate matches ${unmatched.join(', ')}: newman would send these requests without one`,
      {
        hint: 'Every bank origin needs a port-qualified pattern (https://host:port/*); check the addresses in the environment and the certificate list.',
      },
    );
  }
}

/** Substitutes {{variables}} from the environment (twice: values may refer to other values). */
export function resolveVariables(text: string, values: Readonly<Record<string, string>>): string {
  const substitute = (input: string): string =>
    input.replace(/\{\{([^{}]+)\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? (values[name] ?? whole) : whole));
  return substitute(substitute(text));
}

/** The request URLs of collections (v2.1 JSON definitions) that can be resolved before running (fully substituted).
 *  URLs built at run time (e.g. `{{transactions_next_url}}`) are checked by the runner as newman sends them. */
export function requestUrlsOf(collections: readonly object[], values: Readonly<Record<string, string>>): string[] {
  const urls: string[] = [];
  const visit = (items: unknown): void => {
    if (!Array.isArray(items)) return;
    for (const item of items as { item?: unknown; request?: unknown }[]) {
      visit(item.item);
      const request = item.request;
      if (typeof request !== 'object' || request === null) continue;
      const url = (request as { url?: unknown }).url;
      const raw = typeof url === 'string' ? url : typeof url === 'object' && url !== null ? (url as { raw?: unknown }).raw : undefined;
      if (typeof raw !== 'string') continue;
      const resolved = resolveVariables(raw, values);
      if (!/\{\{[^}]*\}\}/.test(resolved) && /^https?:\/\//.test(resolved)) urls.push(resolved);
    }
  };
  for (const definition of collections) visit((definition as { item?: unknown }).item);
  return urls;
}

/** Whether an entry names exactly the files the material was loaded from (same paths, same passphrase). */
function sameSource(transport: IdentityPaths['transport'], material: TransportMaterial): boolean {
  const source = material.source;
  if ('pfx' in transport)
    return 'pfx' in source && source.pfx === transport.pfx && (source.passphrase ?? '') === (transport.passphrase ?? '');
  return 'cert' in source && source.cert === transport.cert && source.key === transport.key;
}

/** The material of an entry: the caller's (the session loaded it from these very files; newman still reads the files,
 *  so they must still be there), else loaded and checked here. */
async function materialOf(transport: IdentityPaths['transport'], known: TransportMaterial | undefined): Promise<TransportMaterial> {
  if (known === undefined || !sameSource(transport, known)) return loadTransportMaterial(transport);
  const files: [path: string, what: string][] =
    'pfx' in transport
      ? [[transport.pfx, 'transport PFX']]
      : [
          [transport.cert, 'transport certificate'],
          [transport.key, 'transport key'],
        ];
  // Gone or unreadable since the session loaded it: the read says which (ERR_FILE_MISSING / ERR_FILE_UNREADABLE).
  for (const [path, what] of files) await access(path, constants.R_OK).catch(() => readMaterialFile(path, what));
  return known;
}

/**
 * Before any request: every file of the list exists and parses, the key belongs to the certificate, and Node's TLS
 * (what newman uses) accepts the pair or PFX. Throws ERR_FILE_MISSING / ERR_FILE_UNREADABLE / ERR_CERT_INVALID /
 * ERR_KEY_INVALID / ERR_PFX_PASSPHRASE / ERR_CERT_KEY_MISMATCH. `known`: the transport material the caller already
 * holds (the session's), used for entries that name its files instead of reading and parsing them again.
 */
export async function preflightClientCertificates(list: readonly SslClientCert[], known?: TransportMaterial): Promise<void> {
  for (const entry of list) {
    const transport: IdentityPaths['transport'] | undefined =
      entry.pfx !== undefined
        ? { pfx: entry.pfx.src, ...(entry.passphrase !== undefined ? { passphrase: entry.passphrase } : {}) }
        : entry.cert !== undefined && entry.key !== undefined
          ? { cert: entry.cert.src, key: entry.key.src }
          : undefined;
    if (transport === undefined) {
      throw new ObflowError('ERR_CERT_MISSING', `certificate list entry "${entry.name}" names neither cert+key nor pfx`, {
        hint: 'Give the transport certificate as PEM cert + key files or as a PFX with passphrase.',
      });
    }
    const material = await materialOf(transport, known);
    verifyKeyMatch(material);
    try {
      createSecureContext(
        material.pfx !== undefined
          ? { pfx: material.pfx.bytes, passphrase: material.pfx.passphrase }
          : { cert: material.certPem, key: material.keyPem },
      );
    } catch (cause) {
      throw new ObflowError(
        'ERR_CERT_INVALID',
        `Node's TLS cannot use the transport certificate of "${entry.name}": ${(cause as Error).message}`,
        {
          hint: 'A PFX with legacy encryption (RC2/3DES) is refused by OpenSSL 3: configure the PEM certificate and key instead.',
          cause,
        },
      );
    }
  }
}

/** newman's `sslExtraCaCerts` takes ONE PEM path: write the target's CA certificates (root + issuing) into a bundle. */
export async function writeCaBundle(path: string, pems: readonly string[]): Promise<string> {
  await writeFileAtomic(path, `${pems.map((pem) => pem.trim()).join('\n')}\n`);
  return path;
}

/** The list as written to disk: without the PFX passphrase (a secret never lands in a file obflow writes unless
 *  asked; obflow hands the passphrase to newman.run in memory). Plain-newman users with a PFX add `passphrase` to
 *  the entry themselves, or configure the PEM certificate and key (docs/pipeline.md). */
export function sslClientCertListForFile(list: readonly SslClientCert[]): SslClientCert[] {
  return list.map(({ passphrase: _passphrase, ...entry }) => structuredClone(entry));
}

/** Writes the list as the file `newman run --ssl-client-cert-list <path>` reads: paths only, no passphrase (mode 0600
 *  all the same: it names the key files). Returns the path. */
export async function writeSslClientCertList(path: string, list: readonly SslClientCert[]): Promise<string> {
  await writeFileAtomic(path, `${JSON.stringify(sslClientCertListForFile(list), null, 2)}\n`, { secret: true });
  return path;
}
