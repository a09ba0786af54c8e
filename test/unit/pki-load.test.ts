// Loading transport material (PEM pair, PEM with chain, PFX in several encryptions), the RFC 8705 thumbprint, the
// mTLS dispatcher's construction, and verifyIdentity as the register/run preflight uses it.

import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import forge from 'node-forge';
import { Agent } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';

import { loadTransportMaterial } from '../../src/pki/load.js';
import { certificateThumbprint, createMtlsDispatcher } from '../../src/pki/tls.js';
import { verifyIdentity } from '../../src/pki/verify.js';
import { getForeignIdentity, getTestIdentity, scratchDir, type TestIdentity } from '../helpers/identity.js';
import { needs, openssl, presentOrSkipAtTheEnd } from '../helpers/prerequisites.js';
import { codeOf } from '../helpers/errors.js';

let id: TestIdentity;
let scratch: string;

async function file(name: string, contents: string | Buffer): Promise<string> {
  const path = join(scratch, name);
  await writeFile(path, contents);
  return path;
}

function pfxBytes(keyPem: string, certPems: string[], passphrase: string, algorithm: 'aes256' | '3des'): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    forge.pki.privateKeyFromPem(keyPem),
    certPems.map((pem) => forge.pki.certificateFromPem(pem)),
    passphrase,
    { algorithm },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

beforeAll(async () => {
  id = await getTestIdentity();
  scratch = await scratchDir('pki-load');
});

describe('loadTransportMaterial', () => {
  it('loads a PEM pair: leaf, PKCS#8 key, no chain', async () => {
    const material = await loadTransportMaterial(id.paths.transport);
    expect(material.kind).toBe('pem');
    expect(material.source).toEqual(id.paths.transport);
    expect(material.x509.fingerprint256).toBe(new X509Certificate(id.pem.transportCert).fingerprint256);
    expect(material.chainPem).toEqual([]);
    expect(material.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(material.x509.checkPrivateKey(createPrivateKey(material.keyPem))).toBe(true);
    expect(material.pfx).toBeUndefined();
  });

  it('finds the leaf in a PEM bundle whatever the order, keeping the rest as chain; accepts PKCS#1 keys', async () => {
    const cert = await file('bundle.pem', `${id.pem.issuingCa}${id.pem.transportCert}`);
    const pkcs1 = createPrivateKey(id.pem.transportKey).export({ type: 'pkcs1', format: 'pem' }).toString();
    const key = await file('pkcs1.key', pkcs1);
    expect(pkcs1).toMatch(/BEGIN RSA PRIVATE KEY/);
    const material = await loadTransportMaterial({ cert, key });
    expect(material.x509.fingerprint256).toBe(new X509Certificate(id.pem.transportCert).fingerprint256);
    expect(material.chainPem.map((pem) => new X509Certificate(pem).fingerprint256)).toEqual([
      new X509Certificate(id.pem.issuingCa).fingerprint256,
    ]);
  });

  it.each(['aes256', '3des'] as const)('opens a PFX (%s) and keeps its bytes and passphrase for newman', async (algorithm) => {
    const bytes = pfxBytes(id.pem.transportKey, [id.pem.transportCert, id.pem.issuingCa], 's3cret', algorithm);
    const pfx = await file(`transport-${algorithm}.pfx`, bytes);
    const material = await loadTransportMaterial({ pfx, passphrase: 's3cret' });
    expect(material.kind).toBe('pfx');
    expect(material.source).toEqual({ pfx, passphrase: 's3cret' });
    expect(material.pfx?.bytes.equals(bytes)).toBe(true);
    expect(material.pfx?.passphrase).toBe('s3cret');
    expect(material.pfx?.nodeTlsReadable).toBe(true);
    expect(material.x509.fingerprint256).toBe(new X509Certificate(id.pem.transportCert).fingerprint256);
    expect(material.chainPem).toHaveLength(1);
    expect(material.x509.checkPrivateKey(createPrivateKey(material.keyPem))).toBe(true);
  });

  it('opens PFX files made by openssl 3, modern and -legacy (which Node TLS cannot read)', async () => {
    needs(openssl);
    const cert = join(id.dir, id.manifest.files.transport_certificate);
    const key = join(id.dir, id.manifest.files.transport_key);
    for (const [name, extra, nodeTlsReadable] of [
      ['modern', [], true],
      ['legacy', ['-legacy'], false],
    ] as const) {
      const pfx = join(scratch, `openssl-${name}.pfx`);
      execFileSync(
        'openssl',
        [
          'pkcs12',
          '-export',
          ...extra,
          '-in',
          cert,
          '-inkey',
          key,
          '-certfile',
          join(id.dir, id.manifest.files.directory_issuing_ca),
          '-passout',
          'pass:pw',
          '-out',
          pfx,
        ],
        { stdio: 'pipe' },
      );
      const material = await loadTransportMaterial({ pfx, passphrase: 'pw' });
      expect(material.x509.fingerprint256, name).toBe(new X509Certificate(id.pem.transportCert).fingerprint256);
      expect(material.pfx?.nodeTlsReadable, name).toBe(nodeTlsReadable);
      expect(await codeOf(loadTransportMaterial({ pfx, passphrase: 'nope' })), name).toBe('ERR_PFX_PASSPHRASE');
    }
  });

  it('reports each kind of bad material with its own code', async () => {
    const pfx = await file('wrong.pfx', pfxBytes(id.pem.transportKey, [id.pem.transportCert], 'right', '3des'));
    const emptyPass = await file('empty.pfx', pfxBytes(id.pem.transportKey, [id.pem.transportCert], '', '3des'));
    const encrypted = createPrivateKey(id.pem.transportKey)
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' })
      .toString();
    const cert = join(id.dir, id.manifest.files.transport_certificate);
    const key = join(id.dir, id.manifest.files.transport_key);
    expect(await codeOf(loadTransportMaterial({ pfx, passphrase: 'wrong' }))).toBe('ERR_PFX_PASSPHRASE');
    expect(await codeOf(loadTransportMaterial({ pfx }))).toBe('ERR_PFX_PASSPHRASE');
    expect(await codeOf(loadTransportMaterial({ pfx: emptyPass }))).toBeUndefined();
    expect(await codeOf(loadTransportMaterial({ pfx: await file('junk.pfx', 'not der at all') }))).toBe('ERR_CERT_INVALID');
    expect(await codeOf(loadTransportMaterial({ pfx: join(scratch, 'absent.pfx') }))).toBe('ERR_FILE_MISSING');
    expect(await codeOf(loadTransportMaterial({ cert: join(scratch, 'absent.pem'), key }))).toBe('ERR_FILE_MISSING');
    expect(await codeOf(loadTransportMaterial({ cert, key: join(scratch, 'absent.key') }))).toBe('ERR_FILE_MISSING');
    expect(await codeOf(loadTransportMaterial({ cert: await file('junk.pem', 'junk'), key }))).toBe('ERR_CERT_INVALID');
    const truncated = id.pem.transportCert.replace(/\n[A-Za-z0-9+/]{20,}\n/, '\nAAAA\n');
    expect(await codeOf(loadTransportMaterial({ cert: await file('trunc.pem', truncated), key }))).toBe('ERR_CERT_INVALID');
    expect(await codeOf(loadTransportMaterial({ cert, key: await file('junk.key', 'junk') }))).toBe('ERR_KEY_INVALID');
    expect(await codeOf(loadTransportMaterial({ cert, key: await file('enc.key', encrypted) }))).toBe('ERR_KEY_INVALID');
    // A certificate is not a key.
    expect(await codeOf(loadTransportMaterial({ cert, key: cert }))).toBe('ERR_KEY_INVALID');
  });
});

describe('certificateThumbprint', () => {
  it('is the base64url SHA-256 of the DER certificate (RFC 8705 x5t#S256)', async () => {
    const thumbprint = certificateThumbprint(id.pem.transportCert);
    const fromNode = Buffer.from(new X509Certificate(id.pem.transportCert).fingerprint256.replaceAll(':', ''), 'hex').toString('base64url');
    expect(thumbprint).toBe(fromNode);
    expect(thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(certificateThumbprint(id.pem.serverCert)).not.toBe(thumbprint);
    expect(await codeOf(Promise.resolve().then(() => certificateThumbprint('junk')))).toBe('ERR_CERT_INVALID');
    // The cross-check with OpenSSL: without it on PATH the test ends skipped with the reason (after the checks above),
    // and fails under OBFLOW_REQUIRE_PREREQUISITES (CI) — never a silent pass (test/integration/prerequisites.test.ts).
    if (presentOrSkipAtTheEnd(openssl)) {
      const out = execFileSync(
        'openssl',
        ['x509', '-noout', '-fingerprint', '-sha256', '-in', join(id.dir, id.manifest.files.transport_certificate)],
        { encoding: 'utf8' },
      );
      const hex = out.trim().split('=')[1]?.replaceAll(':', '') ?? '';
      expect(Buffer.from(hex, 'hex').toString('base64url')).toBe(thumbprint);
    }
  });
});

describe('createMtlsDispatcher', () => {
  it('builds an undici Agent from loaded material (the handshake itself is covered by integration tests)', async () => {
    const material = await loadTransportMaterial(id.paths.transport);
    const agent = createMtlsDispatcher({ transport: material, serverCa: [id.pem.rootCa, id.pem.issuingCa] });
    expect(agent).toBeInstanceOf(Agent);
    await agent.close();
    const insecure = createMtlsDispatcher({ transport: material, insecure: true });
    await insecure.close();
  });
});

describe('verifyIdentity', () => {
  it('returns the verified material of a good identity', async () => {
    const verified = await verifyIdentity(id.paths, new Date());
    expect(verified.claims.software_id).toBe(id.manifest.software_id);
    expect(verified.softwareStatement).toBe(id.softwareStatement);
    expect(verified.redirectUris).toEqual(id.manifest.redirect_uris);
    expect(verified.chain.map((cert) => cert.fingerprint256)).toEqual(
      [id.pem.transportCert, id.pem.issuingCa, id.pem.rootCa].map((pem) => new X509Certificate(pem).fingerprint256),
    );
  });

  it('uses the statement redirect URIs when none are configured, and throws the first problem', async () => {
    const foreign = await getForeignIdentity();
    const verified = await verifyIdentity({ ...id.paths, redirectUris: [] }, new Date());
    expect(verified.redirectUris).toEqual(['https://tpp.obflow.example/callback', 'https://tpp.obflow.example/callback/alt']);
    expect(await codeOf(verifyIdentity({ ...id.paths, transport: foreign.paths.transport }, new Date()))).toBe('ERR_CERT_UNTRUSTED');
    expect(await codeOf(verifyIdentity({ ...id.paths, directoryJwks: foreign.paths.directoryJwks }, new Date()))).toBe('ERR_SSA_SIGNATURE');
    expect(await codeOf(verifyIdentity(id.paths, new Date(Date.now() + 3 * 365 * 86_400_000)))).toBe('ERR_CERT_EXPIRED');
  });
});
