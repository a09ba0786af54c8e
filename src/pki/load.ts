// Loads the TPP's transport material for mutual TLS: a PEM certificate + key pair, or a PFX (PKCS#12) with passphrase
// (node-forge: it also opens the legacy RC2/3DES PFX files directories hand out, which OpenSSL 3 refuses).

import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';

import type forge from 'node-forge';

import { ObflowError } from '../errors.js';
import type { IdentityPaths } from './types.js';

export { identityPathsFromManifest, loadLocalIdentity } from './manifest.js';

/** The transport certificate and key, ready for TLS, plus where they came from (newman reads files by path). */
export interface TransportMaterial {
  /** The form on disk: PEM pair or PFX. */
  kind: 'pem' | 'pfx';
  /** The source paths as configured (newman: `cert`/`key` src, or `pfx` src + passphrase). */
  source: IdentityPaths['transport'];
  /** The end-entity (transport) certificate, PEM. */
  certPem: string;
  /** Further certificates that came with it (chain in the PEM file or PFX), PEM, leaf excluded. */
  chainPem: string[];
  /** The private key, PKCS#8 PEM (a secret: never log it). */
  keyPem: string;
  x509: X509Certificate;
  privateKey: KeyObject;
  /** The PFX bytes and passphrase when kind is 'pfx'. `nodeTlsReadable` is false for legacy encodings (RC2-40,
   *  `openssl pkcs12 -legacy`) that Node's OpenSSL 3 refuses: hand newman PEM copies (certPem/keyPem) instead. */
  pfx?: { bytes: Buffer; passphrase: string; nodeTlsReadable: boolean };
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads a file the config names; missing → ERR_FILE_MISSING, unreadable → ERR_FILE_UNREADABLE. */
export async function readMaterialFile(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ObflowError('ERR_FILE_MISSING', `${what} not found: ${path}`, {
        hint: 'fix the path (relative paths resolve from the config file folder), or run `obflow init` locally',
        cause,
      });
    }
    throw new ObflowError('ERR_FILE_UNREADABLE', `${what} cannot be read: ${path}`, {
      hint: 'check the file permissions',
      cause,
    });
  }
}

/** Parses every certificate in a PEM text (leaf first, as TLS sends them). */
export function parseCertificates(pem: string, what: string): X509Certificate[] {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  if (blocks.length === 0) {
    throw new ObflowError('ERR_CERT_INVALID', `${what} holds no PEM certificate`, {
      hint: 'use the PEM certificate file (-----BEGIN CERTIFICATE-----) as the directory issued it',
    });
  }
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch (cause) {
      throw new ObflowError('ERR_CERT_INVALID', `${what} is not a valid X.509 certificate`, {
        hint: 'use the certificate file as issued; check it was not truncated or edited',
        cause,
      });
    }
  });
}

/** Parses a PEM private key (PKCS#8 or PKCS#1); encrypted keys are not supported. */
export function parsePrivateKey(pem: string, what: string): KeyObject {
  if (/ENCRYPTED/.test(pem)) {
    throw new ObflowError('ERR_KEY_INVALID', `${what} is encrypted`, {
      hint: 'decrypt it (openssl pkey -in key.pem -out plain.pem) or use a PFX with a passphrase',
    });
  }
  try {
    const key = createPrivateKey(pem);
    if (key.type !== 'private') throw new TypeError('not a private key');
    return key;
  } catch (cause) {
    throw new ObflowError('ERR_KEY_INVALID', `${what} is not a PEM private key`, {
      hint: 'use the PKCS#8 or PKCS#1 PEM key generated for the certificate',
      cause,
    });
  }
}

function toPkcs8(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Opens a PKCS#12 file with node-forge; returns certificates (PEM) and the private key (PEM). node-forge loads here,
 *  on the first PFX: a PEM pair (the local identity, most banks' files) never pays for it. */
async function openPfx(bytes: Buffer, passphrase: string, path: string): Promise<{ certs: string[]; keyPem: string }> {
  const { default: forge } = await import('node-forge');
  let p12: forge.pkcs12.Pkcs12Pfx;
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')));
  } catch (cause) {
    throw new ObflowError('ERR_CERT_INVALID', `${path} is not a PKCS#12 (PFX) file`, {
      hint: 'export the transport certificate and key as .pfx/.p12, or configure PEM cert + key instead',
      cause,
    });
  }
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, passphrase);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    // forge reports a bad passphrase as a MAC failure (or, without a MAC, a garbled decryption).
    if (/MAC could not be verified|Invalid password|decrypt/i.test(message)) {
      throw new ObflowError('ERR_PFX_PASSPHRASE', `cannot open ${path} with the passphrase given`, {
        hint: 'set the right passphrase (identity.transport.passphrase or OBFLOW_IDENTITY__TRANSPORT__PASSPHRASE)',
        cause,
      });
    }
    throw new ObflowError('ERR_CERT_INVALID', `${path} is not a readable PKCS#12 (PFX) file`, {
      hint: 'export the transport certificate and key again as .pfx/.p12, or configure PEM cert + key instead',
      cause,
    });
  }
  const certs: string[] = [];
  for (const bag of p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag as string] ?? []) {
    if (bag.cert) certs.push(forge.pki.certificateToPem(bag.cert));
  }
  const keyBags = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag as string] ?? []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag as string] ?? []),
  ];
  const key = keyBags.find((bag) => bag.key !== undefined)?.key;
  if (certs.length === 0) {
    throw new ObflowError('ERR_CERT_INVALID', `${path} holds no certificate`, {
      hint: 'export the PFX with the certificate and its private key',
    });
  }
  if (key === undefined) {
    // A key that forge could not decrypt shows up as a bag without a key: almost always a wrong passphrase.
    const hasShrouded = keyBags.length > 0;
    throw new ObflowError(hasShrouded ? 'ERR_PFX_PASSPHRASE' : 'ERR_KEY_INVALID', `${path} holds no usable private key`, {
      hint: hasShrouded ? 'check the PFX passphrase' : 'export the PFX with the certificate and its private key',
    });
  }
  return { certs, keyPem: forge.pki.privateKeyToPem(key) };
}

/**
 * Loads the transport certificate and key: PEM pair or PFX. The leaf is the certificate that matches the key (the
 * first one if none does — verify.ts then reports ERR_CERT_KEY_MISMATCH). Throws ObflowError: ERR_FILE_MISSING,
 * ERR_FILE_UNREADABLE, ERR_CERT_INVALID, ERR_KEY_INVALID, ERR_PFX_PASSPHRASE.
 */
export async function loadTransportMaterial(transport: IdentityPaths['transport']): Promise<TransportMaterial> {
  let certs: X509Certificate[];
  let privateKey: KeyObject;
  let pfx: TransportMaterial['pfx'];
  if ('pfx' in transport) {
    const bytes = await readMaterialFile(transport.pfx, 'transport PFX');
    const passphrase = transport.passphrase ?? '';
    const opened = await openPfx(bytes, passphrase, transport.pfx);
    certs = parseCertificates(opened.certs.join('\n'), `${transport.pfx} (certificate)`);
    privateKey = parsePrivateKey(opened.keyPem, `${transport.pfx} (key)`);
    pfx = { bytes, passphrase, nodeTlsReadable: nodeTlsReadsPfx(bytes, passphrase) };
  } else {
    const certText = (await readMaterialFile(transport.cert, 'transport certificate')).toString('utf8');
    const keyText = (await readMaterialFile(transport.key, 'transport key')).toString('utf8');
    certs = parseCertificates(certText, transport.cert);
    privateKey = parsePrivateKey(keyText, transport.key);
  }
  const leafIndex = Math.max(
    0,
    certs.findIndex((cert) => !cert.ca && safeCheckPrivateKey(cert, privateKey)),
  );
  const leaf = certs[leafIndex];
  if (leaf === undefined) throw new TypeError('parseCertificates returns at least one certificate');
  const chain = certs.filter((_, i) => i !== leafIndex);
  return {
    kind: 'pfx' in transport ? 'pfx' : 'pem',
    source: transport,
    certPem: leaf.toString(),
    chainPem: chain.map((cert) => cert.toString()),
    keyPem: toPkcs8(privateKey),
    x509: leaf,
    privateKey,
    ...(pfx === undefined ? {} : { pfx }),
  };
}

/** Whether Node's TLS (OpenSSL 3, no legacy provider) can open this PFX itself, as newman's `pfx:{src}` needs. */
function nodeTlsReadsPfx(bytes: Buffer, passphrase: string): boolean {
  try {
    createSecureContext({ pfx: bytes, passphrase });
    return true;
  } catch {
    return false;
  }
}

/** checkPrivateKey throws for mismatched key types (e.g. EC key vs RSA certificate); treat that as "no match". */
export function safeCheckPrivateKey(cert: X509Certificate, key: KeyObject): boolean {
  try {
    return cert.checkPrivateKey(key);
  } catch {
    return false;
  }
}
