// The local test trust directory: issues a complete TPP identity the way the OB directory would (docs/bank-interface.md §1
// prerequisites 1–5) — root and issuing CA, transport certificate, signing key + JWKS, software statement assertion —
// plus the emulator's server certificate, and writes it under one folder with a manifest (`identity.json`).

import { createHash, createPrivateKey, createPublicKey, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import * as x509 from '@peculiar/x509';
import { calculateJwkThumbprint } from 'jose/jwk/thumbprint';
import { SignJWT } from 'jose/jwt/sign';

import { REGULATORY_ROLES } from '../api-families.js';
import { ObflowError } from '../errors.js';
import { writeFolderAtomic, type FolderFile } from './files.js';
import { MANIFEST_FILE } from './manifest.js';
import type { LocalIdentityManifest, PublicJwk, SoftwareStatementClaims } from './types.js';

/** WebCrypto (Node's) drives @peculiar/x509; set once, explicitly, rather than relying on a global. */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/** Redirect URIs of the default statement: https and not localhost, as `code id_token` clients require. */
export const DEFAULT_REDIRECT_URIS = ['https://tpp.obflow.example/callback', 'https://tpp.obflow.example/callback/alt'];

/** File layout inside the identity folder, relative to it (the manifest stores these). */
const LAYOUT = {
  directory_root_ca: 'directory/root-ca.pem',
  directory_issuing_ca: 'directory/issuing-ca.pem',
  directory_jwks: 'directory/jwks.json',
  transport_certificate: 'tpp/transport.pem',
  transport_key: 'tpp/transport.key',
  signing_key: 'tpp/signing.key',
  signing_jwks: 'tpp/signing-jwks.json',
  software_statement: 'tpp/software-statement.jwt',
  server_certificate: 'server/server.pem',
  server_key: 'server/server.key',
} as const satisfies LocalIdentityManifest['files'];

const DIRECTORY_PRIVATE_LAYOUT = {
  root_ca_key: 'directory/private/root-ca.key',
  issuing_ca_key: 'directory/private/issuing-ca.key',
  signing_certificate: 'directory/private/signing.pem',
  signing_key: 'directory/private/signing.key',
} as const satisfies NonNullable<LocalIdentityManifest['directory_private']>;

export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

export interface IssueLocalIdentityOptions {
  /** Folder to write the identity into (created if missing). */
  dir: string;
  /** Clock seam: issue times and default validity windows derive from it. */
  now?: () => Date;
  /** Issue under the trust directory of this existing identity folder (another TPP of the same directory) instead of
   *  creating a new directory. The directory's public files and the emulator's server certificate are copied. */
  directoryFrom?: string;
  /** Replace an identity already in `dir` (default: refuse, ERR_WRITE_FAILED). */
  overwrite?: boolean;
  /** 22-char base62 software id (default: random). Becomes the transport certificate's CN. */
  softwareId?: string;
  /** OB organisation id (default: random 18-char id in the directory's `0015800001…` style). */
  orgId?: string;
  /** software_redirect_uris (default DEFAULT_REDIRECT_URIS). */
  redirectUris?: string[];
  /** software_roles (default AISP, PISP and CBPII: the local test identity may call every API family the sandbox
   *  serves; which of them a client asks for is flow.apis, src/registration/claims.ts). */
  roles?: string[];
  softwareClientName?: string;
  /** Transport certificate validity (default: now − 1 day … now + 365 days). */
  transportValidity?: Validity;
  /** Server certificate validity (default: now − 1 day … now + 365 days). */
  serverValidity?: Validity;
  /** Optional `exp` for the statement (OB statements carry none). */
  statementExpiresAt?: Date;
  /** Embed the TPP's JWKS as `software_jwks` (default true; real directories may publish only the endpoint). */
  embedSoftwareJwks?: boolean;
  /** JWT id of the statement (default: random UUID). */
  jti?: string;
}

const DAY_MS = 86_400_000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RSA_ALG: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
};

/** Uniform random string over `alphabet` (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet: string = BASE62): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

interface KeyMaterial {
  keys: CryptoKeyPair;
  pem: string;
}

async function generateRsa(): Promise<KeyMaterial> {
  const keys = await webcrypto.subtle.generateKey(RSA_ALG, true, ['sign', 'verify']);
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { keys, pem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** Imports a PEM PKCS#8 RSA key (written by this module) back into a WebCrypto pair for signing certificates. */
async function importRsa(pem: string): Promise<KeyMaterial> {
  const der = x509.PemConverter.decodeFirst(pem);
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, RSA_ALG, true, ['sign']);
  const spki = createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' });
  const publicKey = await webcrypto.subtle.importKey('spki', spki, RSA_ALG, true, ['verify']);
  return { keys: { privateKey, publicKey }, pem };
}

/** A positive 16-byte serial (RFC 5280 §4.1.2.2: positive, ≤ 20 octets). */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** RFC 7517 §4.8 `x5t`: base64url SHA-1 of the DER certificate — the OB directory uses it as the SSA `kid`. */
function x5t(cert: x509.X509Certificate): string {
  return createHash('sha1').update(new Uint8Array(cert.rawData)).digest('base64url');
}

function publicRsaJwk(privatePem: string): { kty: string; n: string; e: string } {
  const jwk = createPublicKey(createPrivateKey(privatePem)).export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || typeof jwk.n !== 'string' || typeof jwk.e !== 'string') {
    throw new TypeError('expected an RSA key');
  }
  return { kty: 'RSA', n: jwk.n, e: jwk.e };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

interface Directory {
  root: x509.X509Certificate;
  rootKey: KeyMaterial;
  issuing: x509.X509Certificate;
  issuingKey: KeyMaterial;
  signingCert: x509.X509Certificate;
  signingKey: KeyMaterial;
  jwks: { keys: PublicJwk[] };
}

async function createDirectory(now: Date): Promise<Directory> {
  const notBefore = new Date(now.getTime() - DAY_MS);
  const notAfter = new Date(now.getTime() + 3650 * DAY_MS);
  const rootKey = await generateRsa();
  const rootName = 'C=GB, O=OpenBanking, OU=obflow local test directory, CN=OpenBanking Root CA';
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: rootName,
    notBefore,
    notAfter,
    keys: rootKey.keys,
    signingAlgorithm: RSA_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKey.keys.publicKey),
    ],
  });
  const issuingKey = await generateRsa();
  // The issuing CA signs only end-entity certificates: pathlen 0 (RFC 5280 §4.2.1.9).
  const issuing = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'C=GB, O=OpenBanking, OU=obflow local test directory, CN=OpenBanking Issuing CA',
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: issuingKey.keys.publicKey,
    signingKey: rootKey.keys.privateKey,
    signingAlgorithm: RSA_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(issuingKey.keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKey.keys.publicKey),
    ],
  });
  // The directory signs statements with a key whose certificate it publishes; the SSA `kid` is that certificate's x5t.
  const signingKey = await generateRsa();
  const signingCert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'C=GB, O=OpenBanking, OU=obflow local test directory, CN=OpenBanking SSA Signing',
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: signingKey.keys.publicKey,
    signingKey: rootKey.keys.privateKey,
    signingAlgorithm: RSA_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(signingKey.keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKey.keys.publicKey),
    ],
  });
  return { root, rootKey, issuing, issuingKey, signingCert, signingKey, jwks: directoryJwks(signingCert, signingKey.pem) };
}

function directoryJwks(signingCert: x509.X509Certificate, signingKeyPem: string): { keys: PublicJwk[] } {
  const kid = x5t(signingCert);
  return {
    keys: [
      {
        ...publicRsaJwk(signingKeyPem),
        kid,
        use: 'sig',
        alg: 'PS256',
        x5c: [Buffer.from(signingCert.rawData).toString('base64')],
        x5t: kid,
      },
    ],
  };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    throw new ObflowError('ERR_IDENTITY_MISSING', `no local trust directory material at ${path}`, {
      hint: 'issue a new directory first (obflow init), then issue further statements under it',
      cause,
    });
  }
}

/** Loads the directory (CA keys, signing key) of an identity that was issued as a new directory. */
async function loadDirectory(identityDir: string): Promise<{ directory: Directory; server: { cert: string; key: string } }> {
  const manifestText = await readText(join(identityDir, MANIFEST_FILE));
  const manifest = JSON.parse(manifestText) as LocalIdentityManifest;
  const priv = manifest.directory_private;
  if (priv === undefined) {
    throw new ObflowError('ERR_IDENTITY_MISSING', `${identityDir} holds no directory private keys`, {
      hint: 'pass the folder of the identity that created the directory',
    });
  }
  const at = (rel: string): Promise<string> => readText(resolve(identityDir, rel));
  const root = new x509.X509Certificate(await at(manifest.files.directory_root_ca));
  const issuing = new x509.X509Certificate(await at(manifest.files.directory_issuing_ca));
  const signingCert = new x509.X509Certificate(await at(priv.signing_certificate));
  const rootKey = await importRsa(await at(priv.root_ca_key));
  const issuingKey = await importRsa(await at(priv.issuing_ca_key));
  const signingKey = await importRsa(await at(priv.signing_key));
  const jwks = JSON.parse(await at(manifest.files.directory_jwks)) as { keys: PublicJwk[] };
  return {
    directory: { root, rootKey, issuing, issuingKey, signingCert, signingKey, jwks },
    server: { cert: await at(manifest.files.server_certificate), key: await at(manifest.files.server_key) },
  };
}

async function issueServerCertificate(directory: Directory, validity: Validity): Promise<{ cert: string; key: string }> {
  const key = await generateRsa();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'C=GB, O=obflow, OU=sandbox, CN=localhost',
    issuer: directory.issuing.subject,
    notBefore: validity.notBefore,
    notAfter: validity.notAfter,
    publicKey: key.keys.publicKey,
    signingKey: directory.issuingKey.keys.privateKey,
    signingAlgorithm: RSA_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
      await x509.SubjectKeyIdentifierExtension.create(key.keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(directory.issuingKey.keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: key.pem + '\n' };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Issues a TPP identity under a local trust directory (a new one, or `directoryFrom`'s) and writes it to `dir`.
 * Every file is built in memory first, then the folder is written as a whole (staging folder + rename), keys 0600.
 * `dir` belongs to the identity: with `overwrite` the previous folder is replaced; a non-empty folder that is not an
 * identity is never touched.
 */
/** The roles of the local test identity's software statement: every regulatory role obflow has a family for. */
export const LOCAL_IDENTITY_ROLES = Object.keys(REGULATORY_ROLES);

export async function issueLocalIdentity(options: IssueLocalIdentityOptions): Promise<LocalIdentityManifest> {
  const now = (options.now ?? (() => new Date()))();
  const dir = resolve(options.dir);
  if (options.directoryFrom !== undefined && resolve(options.directoryFrom) === dir) {
    throw new TypeError('directoryFrom must be another identity folder than dir');
  }
  const hasManifest = await exists(join(dir, MANIFEST_FILE));
  if (!options.overwrite && hasManifest) {
    throw new ObflowError('ERR_IDENTITY_EXISTS', `an identity already exists in ${dir}`, {
      hint: 'keep it (nothing to do), or re-issue with --force to replace it (its registrations then need registering again)',
    });
  }
  // Replacing swaps the whole folder out, so only ever replace a folder that holds an identity.
  if (!hasManifest && (await readdir(dir).catch(() => [])).length > 0) {
    throw new ObflowError('ERR_WRITE_FAILED', `${dir} is not empty and holds no identity`, {
      hint: 'choose an empty or new folder for the identity',
    });
  }
  const defaultValidity: Validity = {
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + 365 * DAY_MS),
  };

  const inherited = options.directoryFrom === undefined ? undefined : await loadDirectory(resolve(options.directoryFrom));
  const directory = inherited?.directory ?? (await createDirectory(now));
  const server = inherited?.server ?? (await issueServerCertificate(directory, options.serverValidity ?? defaultValidity));

  const softwareId = options.softwareId ?? randomString(22);
  const orgId = options.orgId ?? `0015800001${randomString(8, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ')}`;
  // Both go into the transport certificate's subject DN: keep them to the directory's alphabet (base62, Max35Text).
  if (!/^[0-9A-Za-z]{1,40}$/.test(softwareId)) throw new TypeError(`softwareId must be base62: ${softwareId}`);
  if (!/^[0-9A-Za-z]{1,35}$/.test(orgId)) throw new TypeError(`orgId must be alphanumeric, at most 35: ${orgId}`);
  const redirectUris = options.redirectUris ?? [...DEFAULT_REDIRECT_URIS];
  const roles = options.roles ?? [...LOCAL_IDENTITY_ROLES];

  // Transport certificate (OB "network" certificate): subject C=GB, O=OpenBanking, OU=<org_id>, CN=<software_id>.
  const transportKey = await generateRsa();
  const transportValidity = options.transportValidity ?? defaultValidity;
  const transport = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `C=GB, O=OpenBanking, OU=${orgId}, CN=${softwareId}`,
    issuer: directory.issuing.subject,
    notBefore: transportValidity.notBefore,
    notAfter: transportValidity.notAfter,
    publicKey: transportKey.keys.publicKey,
    signingKey: directory.issuingKey.keys.privateKey,
    signingAlgorithm: RSA_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(transportKey.keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(directory.issuingKey.keys.publicKey),
    ],
  });

  // TPP signing key: RSA 2048, kid = RFC 7638 thumbprint, published for PS256 (DCR v3.2 request signing).
  const signingKey = await generateRsa();
  const signingPublic = publicRsaJwk(signingKey.pem);
  const kid = await calculateJwkThumbprint(signingPublic, 'sha256');
  const signingJwks = { keys: [{ ...signingPublic, kid, use: 'sig', alg: 'PS256' }] };

  // Software statement assertion: claims per the directory API (`.../software-statement-assertion` GET).
  const jwksBase = `https://keystore.obflow.example/${orgId}`;
  const clientName = options.softwareClientName ?? `obflow test TPP ${softwareId.slice(0, 6)}`;
  const claims: SoftwareStatementClaims = {
    iss: 'OpenBanking Ltd',
    iat: Math.floor(now.getTime() / 1000),
    jti: options.jti ?? randomUUID(),
    ...(options.statementExpiresAt === undefined ? {} : { exp: Math.floor(options.statementExpiresAt.getTime() / 1000) }),
    software_environment: 'sandbox',
    software_mode: 'Test',
    software_id: softwareId,
    software_client_id: softwareId,
    software_client_name: clientName,
    software_client_description: 'A test TPP issued by the obflow local trust directory',
    software_version: '1.0',
    software_client_uri: 'https://tpp.obflow.example',
    software_redirect_uris: redirectUris,
    software_roles: roles,
    organisation_competent_authority_claims: {
      authority_id: 'GBFCA',
      registration_id: '123456',
      status: 'Active',
      authorisations: [{ member_state: 'GB', roles }],
    },
    software_logo_uri: 'https://tpp.obflow.example/logo.png',
    org_status: 'Active',
    org_id: orgId,
    org_name: 'obflow Test TPP Ltd',
    org_contacts: [
      { name: 'Technical contact', email: 'tech@tpp.obflow.example', phone: '+441234567890', type: 'Technical' },
      { name: 'Business contact', email: 'business@tpp.obflow.example', phone: '+441234567891', type: 'Business' },
    ],
    org_jwks_endpoint: `${jwksBase}/${orgId}.jwks`,
    org_jwks_revoked_endpoint: `${jwksBase}/revoked/${orgId}.jwks`,
    software_jwks_endpoint: `${jwksBase}/${softwareId}.jwks`,
    software_jwks_revoked_endpoint: `${jwksBase}/revoked/${softwareId}.jwks`,
    software_policy_uri: 'https://tpp.obflow.example/policy',
    software_tos_uri: 'https://tpp.obflow.example/tos',
    software_on_behalf_of_org: '',
    ...(options.embedSoftwareJwks === false ? {} : { software_jwks: signingJwks }),
  };
  const directoryKid = directory.jwks.keys[0]?.kid ?? x5t(directory.signingCert);
  const statement = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'PS256', kid: directoryKid, typ: 'JWT' })
    .sign(createPrivateKey(directory.signingKey.pem));

  const manifest: LocalIdentityManifest = {
    version: 1,
    software_id: softwareId,
    org_id: orgId,
    kid,
    redirect_uris: redirectUris,
    files: { ...LAYOUT },
    ...(inherited === undefined ? { directory_private: { ...DIRECTORY_PRIVATE_LAYOUT } } : {}),
  };
  const files: FolderFile[] = [
    { rel: LAYOUT.directory_root_ca, contents: directory.root.toString('pem') + '\n', secret: false },
    { rel: LAYOUT.directory_issuing_ca, contents: directory.issuing.toString('pem') + '\n', secret: false },
    { rel: LAYOUT.directory_jwks, contents: json(directory.jwks), secret: false },
    { rel: LAYOUT.server_certificate, contents: server.cert, secret: false },
    { rel: LAYOUT.server_key, contents: server.key, secret: true },
    { rel: LAYOUT.transport_certificate, contents: transport.toString('pem') + '\n', secret: false },
    { rel: LAYOUT.transport_key, contents: transportKey.pem + '\n', secret: true },
    { rel: LAYOUT.signing_key, contents: signingKey.pem + '\n', secret: true },
    { rel: LAYOUT.signing_jwks, contents: json(signingJwks), secret: false },
    { rel: LAYOUT.software_statement, contents: `${statement}\n`, secret: false },
  ];
  if (inherited === undefined) {
    files.push(
      { rel: DIRECTORY_PRIVATE_LAYOUT.root_ca_key, contents: directory.rootKey.pem + '\n', secret: true },
      { rel: DIRECTORY_PRIVATE_LAYOUT.issuing_ca_key, contents: directory.issuingKey.pem + '\n', secret: true },
      { rel: DIRECTORY_PRIVATE_LAYOUT.signing_certificate, contents: directory.signingCert.toString('pem') + '\n', secret: false },
      { rel: DIRECTORY_PRIVATE_LAYOUT.signing_key, contents: directory.signingKey.pem + '\n', secret: true },
    );
  }
  files.push({ rel: MANIFEST_FILE, contents: json(manifest), secret: false });
  // The whole folder is swapped in at once: an interrupted or failed run leaves the previous identity untouched.
  await writeFolderAtomic(dir, files, options.overwrite === true);
  return manifest;
}
