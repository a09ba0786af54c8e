// `runDoctorChecks` over a scenario table: a good identity passes every check; each broken prerequisite fails exactly
// its own check with its own code and a hint (docs/bank-interface.md §1), and doctor never throws.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';

import * as x509 from '@peculiar/x509';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';

import type { ErrorCode } from '../../src/errors.js';
import { CHECK_NAMES, runDoctorChecks, type DoctorCheck } from '../../src/pki/doctor.js';
import type { IdentityPaths } from '../../src/pki/types.js';
import { getForeignIdentity, getTestIdentity, issueVariantIdentity, scratchDir, type TestIdentity } from '../helpers/identity.js';

const DAY_MS = 86_400_000;

function failures(checks: DoctorCheck[]): { name: string; code: ErrorCode }[] {
  return checks.flatMap((check) => (check.ok ? [] : [{ name: check.name, code: check.code }]));
}

/** Writes a PFX of the identity's transport certificate + key (+ issuing CA) with `passphrase`. */
async function writePfx(id: TestIdentity, passphrase: string): Promise<string> {
  const key = forge.pki.privateKeyFromPem(id.pem.transportKey);
  const certs = [forge.pki.certificateFromPem(id.pem.transportCert), forge.pki.certificateFromPem(id.pem.issuingCa)];
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, certs, passphrase, { algorithm: '3des' });
  const dir = await scratchDir('pfx');
  const path = join(dir, 'transport.pfx');
  await writeFile(path, Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'), { mode: 0o600 });
  return path;
}

async function scratchFile(name: string, contents: string): Promise<string> {
  const dir = await scratchDir('doctor');
  const path = join(dir, name);
  await writeFile(path, contents);
  return path;
}

let base: TestIdentity;
let second: TestIdentity;
let foreign: TestIdentity;
/** Variants issued by the same directory as `base`, each with one thing wrong. */
let expiredTransport: IdentityPaths;
let expiredStatement: IdentityPaths;
let noRedirectUris: IdentityPaths;
/** Transport certificates of the same directory for the same org / the same software id under another org. */
let sameOrgOtherSoftware: IdentityPaths;
let sameSoftwareOtherOrg: IdentityPaths;
/** A transport certificate in the directory's name (same issuer DN and key id) signed by a rogue key. */
let forgedTransportCert: string;
const now = new Date();

async function variant(options: Parameters<typeof issueVariantIdentity>[0]): Promise<IdentityPaths> {
  return (await issueVariantIdentity(options)).paths;
}

beforeAll(async () => {
  [base, second, foreign] = await Promise.all([getTestIdentity(), getTestIdentity('second-tpp'), getForeignIdentity()]);
  expiredTransport = await variant({
    transportValidity: { notBefore: new Date(now.getTime() - 400 * DAY_MS), notAfter: new Date(now.getTime() - DAY_MS) },
  });
  expiredStatement = await variant({ statementExpiresAt: new Date(now.getTime() - DAY_MS) });
  noRedirectUris = await variant({ redirectUris: [] });
  forgedTransportCert = await forgeTransportCertificate(base);
  sameOrgOtherSoftware = await variant({ orgId: base.manifest.org_id });
  sameSoftwareOtherOrg = await variant({ softwareId: base.manifest.software_id, orgId: 'OTHERORG0000000001' });
});

async function forgeTransportCertificate(id: TestIdentity): Promise<string> {
  const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };
  const rogue = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const spki = createPublicKey(createPrivateKey(id.pem.transportKey)).export({ type: 'spki', format: 'der' });
  const publicKey = await webcrypto.subtle.importKey('spki', spki, alg, true, ['verify']);
  const issuing = new x509.X509Certificate(id.pem.issuingCa);
  const keyId = issuing.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  if (keyId === undefined) throw new Error('issuing CA without subject key identifier');
  const forged = await x509.X509CertificateGenerator.create(
    {
      subject: `C=GB, O=OpenBanking, OU=${id.manifest.org_id}, CN=${id.manifest.software_id}`,
      issuer: issuing.subject,
      notBefore: new Date(now.getTime() - DAY_MS),
      notAfter: new Date(now.getTime() + 30 * DAY_MS),
      publicKey,
      signingKey: rogue.privateKey,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
        new x509.AuthorityKeyIdentifierExtension(keyId),
      ],
    },
    webcrypto as unknown as Crypto,
  );
  return scratchFile('forged.pem', forged.toString('pem'));
}

describe('runDoctorChecks', () => {
  it('passes every check for the issued identity, one line per prerequisite', async () => {
    const checks = await runDoctorChecks(base.paths, now);
    expect(failures(checks)).toEqual([]);
    expect(checks.map((check) => check.name)).toEqual(Object.values(CHECK_NAMES));
    for (const check of checks) if (check.ok) expect(check.detail).not.toBe('');
  });

  it('passes for a second TPP of the same directory, and with a PFX transport', async () => {
    expect(failures(await runDoctorChecks(second.paths, now))).toEqual([]);
    const pfx = await writePfx(base, 'correct horse');
    const checks = await runDoctorChecks({ ...base.paths, transport: { pfx, passphrase: 'correct horse' } }, now);
    expect(failures(checks)).toEqual([]);
    expect(checks.find((check) => check.name === CHECK_NAMES.transportPresent)).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^PFX/) as unknown,
    });
  });

  // Each row: how to break the good identity → the one check that fails and its code.
  const scenarios: {
    name: string;
    paths: () => Promise<IdentityPaths> | IdentityPaths;
    at?: () => Date;
    expected: { name: string; code: ErrorCode }[];
  }[] = [
    {
      name: 'missing software statement file',
      paths: () => ({ ...base.paths, softwareStatement: join(base.dir, 'nope.jwt') }),
      expected: [{ name: CHECK_NAMES.statementPresent, code: 'ERR_SSA_MISSING' }],
    },
    {
      name: 'software statement that is not a JWT',
      paths: async () => ({ ...base.paths, softwareStatement: await scratchFile('ssa.jwt', 'not-a-jwt\n') }),
      expected: [{ name: CHECK_NAMES.statementDecodable, code: 'ERR_SSA_INVALID' }],
    },
    {
      name: 'software statement with a bad signature (payload altered)',
      paths: async () => {
        const [h, p, s] = base.softwareStatement.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
        const altered = Buffer.from(JSON.stringify({ ...claims, software_roles: ['AISP', 'PISP'] })).toString('base64url');
        return { ...base.paths, softwareStatement: await scratchFile('ssa.jwt', `${h}.${altered}.${s}`) };
      },
      expected: [{ name: CHECK_NAMES.statementSigned, code: 'ERR_SSA_SIGNATURE' }],
    },
    {
      name: 'software statement signed by another directory',
      paths: () => ({ ...base.paths, softwareStatement: foreign.paths.softwareStatement }),
      // The foreign statement publishes the foreign TPP's signing key, so the kid check fails too.
      expected: [
        { name: CHECK_NAMES.statementSigned, code: 'ERR_SSA_SIGNATURE' },
        { name: CHECK_NAMES.transportForStatement, code: 'ERR_CERT_NOT_FOR_SSA' },
        { name: CHECK_NAMES.signingKey, code: 'ERR_SIGNING_KEY_MISMATCH' },
      ],
    },
    {
      name: 'expired software statement',
      paths: () => expiredStatement,
      expected: [{ name: CHECK_NAMES.statementSigned, code: 'ERR_SSA_EXPIRED' }],
    },
    {
      name: 'missing directory JWKS',
      paths: () => ({ ...base.paths, directoryJwks: join(base.dir, 'nope.json') }),
      expected: [{ name: CHECK_NAMES.statementSigned, code: 'ERR_FILE_MISSING' }],
    },
    {
      name: 'missing directory root certificate',
      paths: () => ({ ...base.paths, directoryRoots: [join(base.dir, 'nope.pem')] }),
      expected: [{ name: CHECK_NAMES.directoryCerts, code: 'ERR_DIRECTORY_CERTS_MISSING' }],
    },
    {
      name: 'no directory issuing certificate configured',
      paths: () => ({ ...base.paths, directoryIssuing: [] }),
      expected: [{ name: CHECK_NAMES.directoryCerts, code: 'ERR_DIRECTORY_CERTS_MISSING' }],
    },
    {
      name: 'missing transport certificate file',
      paths: () => ({ ...base.paths, transport: { cert: join(base.dir, 'nope.pem'), key: base.paths.signing.key } }),
      expected: [{ name: CHECK_NAMES.transportPresent, code: 'ERR_CERT_MISSING' }],
    },
    {
      name: 'transport certificate file that is not a certificate',
      paths: async () => ({
        ...base.paths,
        transport: { cert: await scratchFile('t.pem', 'hello\n'), key: join(base.dir, base.manifest.files.transport_key) },
      }),
      expected: [{ name: CHECK_NAMES.transportPresent, code: 'ERR_CERT_INVALID' }],
    },
    {
      name: 'transport key file that is not a key',
      paths: async () => ({
        ...base.paths,
        transport: {
          cert: join(base.dir, base.manifest.files.transport_certificate),
          key: await scratchFile('t.key', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'),
        },
      }),
      expected: [{ name: CHECK_NAMES.transportPresent, code: 'ERR_KEY_INVALID' }],
    },
    {
      name: 'transport key of another certificate',
      paths: () => ({
        ...base.paths,
        transport: {
          cert: join(base.dir, base.manifest.files.transport_certificate),
          key: join(second.dir, second.manifest.files.transport_key),
        },
      }),
      expected: [{ name: CHECK_NAMES.transportKey, code: 'ERR_CERT_KEY_MISMATCH' }],
    },
    {
      name: 'transport certificate not issued by the directory',
      paths: () => ({ ...base.paths, transport: foreign.paths.transport }),
      expected: [
        { name: CHECK_NAMES.transportChain, code: 'ERR_CERT_UNTRUSTED' },
        { name: CHECK_NAMES.transportForStatement, code: 'ERR_CERT_NOT_FOR_SSA' },
      ],
    },
    {
      name: "transport certificate forged in the directory's name (same issuer and key id, rogue signature)",
      paths: () => ({ ...base.paths, transport: { cert: forgedTransportCert, key: join(base.dir, base.manifest.files.transport_key) } }),
      expected: [{ name: CHECK_NAMES.transportChain, code: 'ERR_CERT_UNTRUSTED' }],
    },
    {
      name: 'transport certificate of another software statement of the same organisation (CN differs)',
      paths: () => ({ ...base.paths, transport: sameOrgOtherSoftware.transport }),
      expected: [{ name: CHECK_NAMES.transportForStatement, code: 'ERR_CERT_NOT_FOR_SSA' }],
    },
    {
      name: 'transport certificate naming the software id under another organisation (OU differs)',
      paths: () => ({ ...base.paths, transport: sameSoftwareOtherOrg.transport }),
      expected: [{ name: CHECK_NAMES.transportForStatement, code: 'ERR_CERT_NOT_FOR_SSA' }],
    },
    {
      name: 'transport certificate of another TPP of the same directory',
      paths: () => ({ ...base.paths, transport: second.paths.transport }),
      expected: [{ name: CHECK_NAMES.transportForStatement, code: 'ERR_CERT_NOT_FOR_SSA' }],
    },
    {
      name: 'expired transport certificate',
      paths: () => expiredTransport,
      expected: [{ name: CHECK_NAMES.transportValidity, code: 'ERR_CERT_EXPIRED' }],
    },
    {
      name: 'transport certificate not yet valid (clock behind)',
      paths: () => base.paths,
      at: () => new Date(now.getTime() - 2 * DAY_MS),
      expected: [
        { name: CHECK_NAMES.transportChain, code: 'ERR_CERT_NOT_YET_VALID' },
        { name: CHECK_NAMES.transportValidity, code: 'ERR_CERT_NOT_YET_VALID' },
      ],
    },
    {
      name: 'server certificate used as transport certificate (no clientAuth)',
      paths: () => ({
        ...base.paths,
        transport: { cert: join(base.dir, base.manifest.files.server_certificate), key: join(base.dir, base.manifest.files.server_key) },
      }),
      expected: [
        { name: CHECK_NAMES.transportClientAuth, code: 'ERR_CERT_NO_CLIENT_AUTH' },
        { name: CHECK_NAMES.transportForStatement, code: 'ERR_CERT_NOT_FOR_SSA' },
      ],
    },
    {
      name: 'PFX with the wrong passphrase',
      paths: async () => ({ ...base.paths, transport: { pfx: await writePfx(base, 'right'), passphrase: 'wrong' } }),
      expected: [{ name: CHECK_NAMES.transportPresent, code: 'ERR_PFX_PASSPHRASE' }],
    },
    {
      name: 'PFX with no passphrase given',
      paths: async () => ({ ...base.paths, transport: { pfx: await writePfx(base, 'right') } }),
      expected: [{ name: CHECK_NAMES.transportPresent, code: 'ERR_PFX_PASSPHRASE' }],
    },
    {
      name: 'redirect URI not in the statement',
      paths: () => ({ ...base.paths, redirectUris: ['https://tpp.obflow.example/callback', 'https://evil.example/cb'] }),
      expected: [{ name: CHECK_NAMES.redirectUris, code: 'ERR_REDIRECT_URI_NOT_IN_SSA' }],
    },
    {
      name: 'statement without redirect URIs',
      paths: () => noRedirectUris,
      expected: [{ name: CHECK_NAMES.redirectUris, code: 'ERR_REDIRECT_URI_MISSING' }],
    },
    {
      name: 'signing key of another TPP',
      paths: () => ({ ...base.paths, signing: { key: second.paths.signing.key, kid: base.paths.signing.kid } }),
      expected: [{ name: CHECK_NAMES.signingKey, code: 'ERR_SIGNING_KEY_MISMATCH' }],
    },
    {
      name: 'kid not published in the statement',
      paths: () => ({ ...base.paths, signing: { key: base.paths.signing.key, kid: second.paths.signing.kid } }),
      expected: [{ name: CHECK_NAMES.signingKey, code: 'ERR_SIGNING_KEY_MISMATCH' }],
    },
    {
      name: 'missing signing key file',
      paths: () => ({ ...base.paths, signing: { key: join(base.dir, 'nope.key'), kid: base.paths.signing.kid } }),
      expected: [{ name: CHECK_NAMES.signingKey, code: 'ERR_FILE_MISSING' }],
    },
  ];

  it.each(scenarios)('catches: $name', async ({ paths, at, expected }) => {
    const checks = await runDoctorChecks(await paths(), at ? at() : now);
    expect(failures(checks)).toEqual(expected);
    for (const check of checks) {
      if (!check.ok) {
        expect(check.message).not.toBe('');
        expect(check.hint.length).toBeGreaterThan(10);
      }
    }
  });

  it('leaves out only the checks whose material failed to load, and still checks the rest', async () => {
    const checks = await runDoctorChecks(
      {
        ...base.paths,
        softwareStatement: join(base.dir, 'nope.jwt'),
        transport: { cert: join(base.dir, 'nope.pem'), key: join(base.dir, 'nope.key') },
      },
      now,
    );
    expect(checks.map((check) => [check.name, check.ok])).toEqual([
      [CHECK_NAMES.statementPresent, false],
      [CHECK_NAMES.directoryCerts, true],
      [CHECK_NAMES.transportPresent, false],
    ]);
  });

  it('compares the signing key with software_jwks_endpoint when the statement embeds no JWKS', async () => {
    const variantId = await issueVariantIdentity({ embedSoftwareJwks: false });
    const signingCheck = (checks: DoctorCheck[]): DoctorCheck | undefined => checks.find((check) => check.name === CHECK_NAMES.signingKey);
    const offline = await runDoctorChecks(variantId.paths, now);
    expect(failures(offline)).toEqual([]);
    expect(signingCheck(offline)).toMatchObject({ ok: true, detail: expect.stringContaining('not compared') as unknown });
    const fetched: string[] = [];
    const online = await runDoctorChecks(variantId.paths, now, {
      fetchJwks: (url) => {
        fetched.push(url);
        return Promise.resolve(variantId.signingJwks);
      },
    });
    expect(failures(online)).toEqual([]);
    expect(fetched).toEqual([`https://keystore.obflow.example/${variantId.manifest.org_id}/${variantId.manifest.software_id}.jwks`]);
    expect(signingCheck(online)).toMatchObject({ ok: true, detail: expect.stringContaining(fetched[0] ?? '?') as unknown });
    const wrongKeys = await runDoctorChecks(variantId.paths, now, { fetchJwks: () => Promise.resolve(second.signingJwks) });
    expect(failures(wrongKeys)).toEqual([{ name: CHECK_NAMES.signingKey, code: 'ERR_SIGNING_KEY_MISMATCH' }]);
    const down = await runDoctorChecks(variantId.paths, now, { fetchJwks: () => Promise.reject(new Error('ECONNREFUSED')) });
    expect(failures(down)).toEqual([{ name: CHECK_NAMES.signingKey, code: 'ERR_REMOTE_UNREACHABLE' }]);
    const junk = await runDoctorChecks(variantId.paths, now, { fetchJwks: () => Promise.resolve('<html>') });
    expect(failures(junk)).toEqual([{ name: CHECK_NAMES.signingKey, code: 'ERR_REMOTE_RESPONSE' }]);
  });

  it('does not read secrets into its output', async () => {
    const checks = await runDoctorChecks(base.paths, now);
    const text = JSON.stringify(checks);
    const keyBody = (await readFile(join(base.dir, base.manifest.files.transport_key), 'utf8')).split('\n')[1] ?? '';
    expect(keyBody.length).toBeGreaterThan(20);
    expect(text).not.toContain(keyBody);
    expect(text).not.toContain('PRIVATE KEY');
  });
});
