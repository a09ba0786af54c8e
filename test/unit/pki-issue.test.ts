// The local trust directory issues an identity that verifies: SSA signed by the directory key with the OB claims,
// transport certificate chaining to the root with clientAuth, keys matching certificates, private keys 0600 —
// cross-checked once with openssl, an independent verifier.

import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';

import { isObflowError } from '../../src/errors.js';
import { issueLocalIdentity } from '../../src/pki/issue.js';
import { loadLocalIdentity } from '../../src/pki/manifest.js';
import { getForeignIdentity, getTestIdentity, scratchDir } from '../helpers/identity.js';
import { needs, openssl } from '../helpers/prerequisites.js';

describe('issueLocalIdentity', () => {
  it('signs the software statement PS256 with the directory key, with the directory API claims', async () => {
    const id = await getTestIdentity();
    const header = decodeProtectedHeader(id.softwareStatement);
    expect(header).toEqual({ alg: 'PS256', kid: id.directoryJwks.keys[0]?.kid, typ: 'JWT' });
    const { payload } = await jwtVerify(id.softwareStatement, createLocalJWKSet(id.directoryJwks), {
      issuer: 'OpenBanking Ltd',
      algorithms: ['PS256'],
    });
    expect(payload.software_id).toBe(id.manifest.software_id);
    expect(payload.software_id).toMatch(/^[0-9A-Za-z]{22}$/);
    expect(payload.org_id).toBe(id.manifest.org_id);
    expect(payload.software_roles).toEqual(['AISP', 'PISP', 'CBPII']);
    expect(payload.software_redirect_uris).toEqual(['https://tpp.obflow.example/callback', 'https://tpp.obflow.example/callback/alt']);
    for (const claim of [
      'iat',
      'jti',
      'software_environment',
      'software_mode',
      'software_client_id',
      'software_client_name',
      'software_client_description',
      'software_version',
      'software_client_uri',
      'organisation_competent_authority_claims',
      'software_logo_uri',
      'org_status',
      'org_name',
      'org_contacts',
      'org_jwks_endpoint',
      'org_jwks_revoked_endpoint',
      'software_jwks_endpoint',
      'software_jwks_revoked_endpoint',
      'software_policy_uri',
      'software_tos_uri',
      'software_on_behalf_of_org',
    ]) {
      expect(payload, claim).toHaveProperty(claim);
    }
    // The embedded JWKS is the TPP's public signing key, whose kid is its RFC 7638 thumbprint.
    expect(payload.software_jwks).toEqual(id.signingJwks);
    const jwk = id.signingJwks.keys[0];
    expect(jwk).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'PS256', kid: id.manifest.kid });
    expect(jwk).not.toHaveProperty('d');
    expect(await calculateJwkThumbprint({ kty: 'RSA', n: jwk?.n ?? '', e: jwk?.e ?? '' })).toBe(id.manifest.kid);
    const signingPublic = createPublicKey(createPrivateKey(id.pem.signingKey)).export({ format: 'jwk' });
    expect(signingPublic.n).toBe(jwk?.n);
  });

  it('does not verify the statement with a foreign directory key', async () => {
    const [id, foreign] = await Promise.all([getTestIdentity(), getForeignIdentity()]);
    const foreignKey = foreign.directoryJwks.keys[0];
    const key = createPublicKey({ key: { kty: 'RSA', n: foreignKey?.n ?? '', e: foreignKey?.e ?? '' }, format: 'jwk' });
    await expect(compactVerify(id.softwareStatement, key)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });

  it('issues a transport certificate that chains to the root, matches its key and allows only client auth', async () => {
    const id = await getTestIdentity();
    const root = new X509Certificate(id.pem.rootCa);
    const issuing = new X509Certificate(id.pem.issuingCa);
    const transport = new X509Certificate(id.pem.transportCert);
    expect(root.ca).toBe(true);
    expect(root.verify(root.publicKey)).toBe(true);
    expect(issuing.ca).toBe(true);
    expect(issuing.checkIssued(root)).toBe(true);
    expect(issuing.verify(root.publicKey)).toBe(true);
    expect(transport.ca).toBe(false);
    expect(transport.checkIssued(issuing)).toBe(true);
    expect(transport.verify(issuing.publicKey)).toBe(true);
    expect(transport.verify(root.publicKey)).toBe(false);
    expect(transport.checkPrivateKey(createPrivateKey(id.pem.transportKey))).toBe(true);
    expect(transport.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(transport.subject.split('\n')).toEqual(['C=GB', 'O=OpenBanking', `OU=${id.manifest.org_id}`, `CN=${id.manifest.software_id}`]);
  });

  it('issues an emulator server certificate for localhost and 127.0.0.1 with server auth', async () => {
    const id = await getTestIdentity();
    const server = new X509Certificate(id.pem.serverCert);
    expect(server.checkIssued(new X509Certificate(id.pem.issuingCa))).toBe(true);
    expect(server.checkPrivateKey(createPrivateKey(id.pem.serverKey))).toBe(true);
    expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkHost('example.com')).toBeUndefined();
  });

  it('writes private keys 0600 and a manifest loadLocalIdentity reads back', async () => {
    const id = await getTestIdentity();
    const f = id.manifest.files;
    for (const rel of [f.transport_key, f.signing_key, f.server_key, ...Object.values(id.manifest.directory_private ?? {})]) {
      if (!rel.endsWith('.key')) continue;
      expect((await stat(join(id.dir, rel))).mode & 0o777, rel).toBe(0o600);
    }
    expect(id.manifest.directory_private).toBeDefined();
    expect((await stat(join(id.dir, f.transport_certificate))).mode & 0o077).toBe(0o044);
    const loaded = await loadLocalIdentity(id.dir);
    expect(loaded.manifest).toEqual(id.manifest);
    expect(loaded.paths).toEqual(id.paths);
    expect(loaded.paths.transport).toEqual({ cert: join(id.dir, f.transport_certificate), key: join(id.dir, f.transport_key) });
    // Paths in the manifest are relative to the identity folder.
    for (const rel of Object.values(f)) expect(rel.startsWith('/')).toBe(false);
  });

  it('issues a second TPP under the same directory: same CAs and directory key, different statement and keys', async () => {
    const [a, b] = await Promise.all([getTestIdentity(), getTestIdentity('second-tpp')]);
    expect(b.pem.rootCa).toBe(a.pem.rootCa);
    expect(b.pem.issuingCa).toBe(a.pem.issuingCa);
    expect(b.pem.serverCert).toBe(a.pem.serverCert);
    expect(b.directoryJwks).toEqual(a.directoryJwks);
    expect(b.manifest.software_id).not.toBe(a.manifest.software_id);
    expect(b.manifest.kid).not.toBe(a.manifest.kid);
    expect(b.pem.transportCert).not.toBe(a.pem.transportCert);
    expect(b.manifest.directory_private).toBeUndefined();
    await jwtVerify(b.softwareStatement, createLocalJWKSet(a.directoryJwks));
    expect(new X509Certificate(b.pem.transportCert).verify(new X509Certificate(a.pem.issuingCa).publicKey)).toBe(true);
  });

  it('honours the options: ids, redirect URIs, roles, validity window, statement expiry', async () => {
    const dir = await scratchDir('pki-issue');
    const now = new Date('2031-05-01T12:00:00Z');
    const manifest = await issueLocalIdentity({
      dir,
      now: () => now,
      softwareId: 'aBcDeFgHiJkLmNoPqRsTuV',
      orgId: '0015800001ABCDEFGH',
      redirectUris: ['https://other.example/cb'],
      roles: ['AISP', 'PISP'],
      transportValidity: { notBefore: new Date('2030-01-01T00:00:00Z'), notAfter: new Date('2030-12-31T00:00:00Z') },
      statementExpiresAt: new Date('2031-06-01T00:00:00Z'),
      jti: 'fixed-jti',
    });
    expect(manifest).toMatchObject({
      software_id: 'aBcDeFgHiJkLmNoPqRsTuV',
      org_id: '0015800001ABCDEFGH',
      redirect_uris: ['https://other.example/cb'],
    });
    const ssa = (await readFile(join(dir, manifest.files.software_statement), 'utf8')).trim();
    const jwks = JSON.parse(await readFile(join(dir, manifest.files.directory_jwks), 'utf8')) as Parameters<typeof createLocalJWKSet>[0];
    const { payload } = await jwtVerify(ssa, createLocalJWKSet(jwks), { currentDate: now });
    expect(payload).toMatchObject({
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(Date.parse('2031-06-01T00:00:00Z') / 1000),
      jti: 'fixed-jti',
      software_roles: ['AISP', 'PISP'],
      software_redirect_uris: ['https://other.example/cb'],
    });
    const transport = new X509Certificate(await readFile(join(dir, manifest.files.transport_certificate)));
    expect(new Date(transport.validTo).toISOString()).toBe('2030-12-31T00:00:00.000Z');
    expect(new Date(transport.validFrom).toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it('refuses to overwrite an existing identity unless asked', async () => {
    const id = await getTestIdentity();
    const error: unknown = await issueLocalIdentity({ dir: id.dir }).catch((e: unknown) => e);
    expect(isObflowError(error) && error.code).toBe('ERR_IDENTITY_EXISTS');
  });

  it('replaces a whole identity folder with overwrite, leaving no staging or backup folders', async () => {
    const parent = await scratchDir('pki-overwrite');
    const dir = join(parent, 'identity');
    const first = await issueLocalIdentity({ dir, softwareId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await writeFile(join(dir, 'stray.txt'), 'left by hand');
    const second = await issueLocalIdentity({ dir, overwrite: true, softwareId: 'BBBBBBBBBBBBBBBBBBBBBB' });
    expect(first.software_id).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect((await loadLocalIdentity(dir)).manifest).toEqual(second);
    expect(existsSync(join(dir, 'stray.txt'))).toBe(false);
    expect(await readdir(parent)).toEqual(['identity']);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('never writes into a non-empty folder that is not an identity', async () => {
    const dir = await scratchDir('pki-foreign-folder');
    await writeFile(join(dir, 'notes.txt'), 'mine');
    for (const overwrite of [false, true]) {
      const error: unknown = await issueLocalIdentity({ dir, overwrite }).catch((e: unknown) => e);
      expect(isObflowError(error) && error.code).toBe('ERR_WRITE_FAILED');
      expect(await readdir(dir)).toEqual(['notes.txt']);
    }
  });

  it('reports a missing or partial identity folder as ERR_IDENTITY_MISSING', async () => {
    const dir = await scratchDir('pki-empty');
    const error: unknown = await loadLocalIdentity(dir).catch((e: unknown) => e);
    expect(isObflowError(error) && error.code).toBe('ERR_IDENTITY_MISSING');
    await writeFile(join(dir, 'identity.json'), '{"version":1}');
    const invalid: unknown = await loadLocalIdentity(dir).catch((e: unknown) => e);
    expect(isObflowError(invalid) && invalid.code).toBe('ERR_FILE_UNREADABLE');
    expect((invalid as Error).message).toContain(join(dir, 'identity.json'));
  });

  it('verifies with openssl (independent verifier)', async () => {
    needs(openssl);
    const id = await getTestIdentity();
    const f = id.manifest.files;
    const at = (rel: string): string => join(id.dir, rel);
    const verify = (purpose: string, cert: string): string =>
      execFileSync(
        'openssl',
        ['verify', '-x509_strict', '-purpose', purpose, '-CAfile', at(f.directory_root_ca), '-untrusted', at(f.directory_issuing_ca), cert],
        { encoding: 'utf8' },
      );
    expect(verify('sslclient', at(f.transport_certificate))).toContain(': OK');
    expect(verify('sslserver', at(f.server_certificate))).toContain(': OK');
    expect(() =>
      execFileSync(
        'openssl',
        [
          'verify',
          '-purpose',
          'sslserver',
          '-CAfile',
          at(f.directory_root_ca),
          '-untrusted',
          at(f.directory_issuing_ca),
          at(f.transport_certificate),
        ],
        { stdio: 'pipe' },
      ),
    ).toThrow();
    // Modulus of key and certificate agree.
    const certModulus = execFileSync('openssl', ['x509', '-noout', '-modulus', '-in', at(f.transport_certificate)], { encoding: 'utf8' });
    const keyModulus = execFileSync('openssl', ['rsa', '-noout', '-modulus', '-in', at(f.transport_key)], { encoding: 'utf8' });
    expect(certModulus).toBe(keyModulus);
    const text = execFileSync('openssl', ['x509', '-noout', '-text', '-in', at(f.directory_issuing_ca)], { encoding: 'utf8' });
    expect(text).toMatch(/CA:TRUE, pathlen:0/);
    expect(existsSync(at(f.directory_root_ca))).toBe(true);
  });
});
