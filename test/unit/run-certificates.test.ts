// newman's client certificate list: port-qualified patterns for every bank origin, the coverage check that catches a
// pattern newman would silently skip, and the file preflight (missing, mismatched key, bad PFX passphrase; the
// session's material used instead of a second read).

import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';

import { isObflowError } from '../../src/errors.js';
import { loadTransportMaterial } from '../../src/pki/load.js';
import {
  bankOriginsOf,
  buildSslClientCertList,
  certificateFor,
  checkCertificateCoverage,
  matchPatternOf,
  preflightClientCertificates,
  requestUrlsOf,
  resolveVariables,
  type SslClientCert,
} from '../../src/run/certificates.js';
import { getTestIdentity, getForeignIdentity, type TestIdentity } from '../helpers/identity.js';
import { tempDir } from '../helpers/temp.js';
import { codeOf } from '../helpers/errors.js';

const values = [
  { key: 'rs', value: 'https://127.0.0.1:8443' },
  { key: 'issuer', value: 'https://127.0.0.1:9443/strict-headless' },
  { key: 'tokenEndpoint', value: 'https://127.0.0.1:9443/strict-headless/token' },
  { key: 'redirectUrl', value: 'https://tpp.obflow.example/callback' },
  { key: 'max_pages', value: '1000' },
  { key: 'weird', value: 'https://' },
];

describe('originOf', () => {
  it('makes the port explicit and keeps an IPv6 literal readable as a URL', async () => {
    const { originOf } = await import('../../src/run/origin.js');
    expect(originOf('https://bank.example/x')).toBe('https://bank.example:443');
    expect(originOf('https://[::1]:8443/x')).toBe('https://[::1]:8443');
    expect(originOf('http://bank.example/x')).toBeUndefined();
  });
});

describe('sslClientCertList', () => {
  it('collects every https origin with an explicit port and builds port-qualified patterns', () => {
    expect(bankOriginsOf(values)).toEqual(['https://127.0.0.1:8443', 'https://127.0.0.1:9443']);
    expect(bankOriginsOf(values, [])).toEqual(['https://127.0.0.1:8443', 'https://127.0.0.1:9443', 'https://tpp.obflow.example:443']);
    expect(matchPatternOf('https://bank.example')).toBe('https://bank.example:443/*');
    const list = buildSslClientCertList({ origins: bankOriginsOf(values), transport: { cert: '/c.pem', key: '/k.pem' } });
    expect(list).toEqual([
      {
        name: 'obflow transport certificate',
        matches: ['https://127.0.0.1:8443/*', 'https://127.0.0.1:9443/*'],
        key: { src: '/k.pem' },
        cert: { src: '/c.pem' },
      },
    ]);
    expect(buildSslClientCertList({ origins: ['https://a.example:1'], transport: { pfx: '/t.pfx', passphrase: 'pw' } })[0]).toEqual({
      name: 'obflow transport certificate',
      matches: ['https://a.example:1/*'],
      pfx: { src: '/t.pfx' },
      passphrase: 'pw',
    });
    expect(() => buildSslClientCertList({ origins: [], transport: { cert: '/c', key: '/k' } })).toThrow(TypeError);
  });

  it("matches with postman-collection's own matcher: a port-less pattern silently misses a non-443 port", () => {
    const portless: SslClientCert[] = [{ name: 'portless', matches: ['https://127.0.0.1/*'], key: { src: '/k' }, cert: { src: '/c' } }];
    expect(certificateFor(portless, 'https://127.0.0.1:8443/open-banking/v3.1/aisp/accounts')).toBeUndefined();
    expect(certificateFor(portless, 'https://127.0.0.1/x')?.name).toBe('portless');
    const qualified = buildSslClientCertList({ origins: ['https://127.0.0.1:8443'], transport: { cert: '/c', key: '/k' } });
    expect(certificateFor(qualified, 'https://127.0.0.1:8443/open-banking/v3.1/aisp/accounts?x=1')?.name).toBe(
      'obflow transport certificate',
    );
    expect(certificateFor(qualified, 'https://127.0.0.1:9443/token')).toBeUndefined();
  });

  it('checkCertificateCoverage names the unmatched origin (ERR_CERT_PORT_UNMATCHED)', async () => {
    const list = buildSslClientCertList({ origins: ['https://127.0.0.1:8443'], transport: { cert: '/c', key: '/k' } });
    expect(await codeOf(() => checkCertificateCoverage(list, ['https://127.0.0.1:8443/a', 'http://plain.example/x']))).toBeUndefined();
    let message = '';
    try {
      checkCertificateCoverage(list, ['https://127.0.0.1:8443/a', 'https://127.0.0.1:9443/token']);
    } catch (error) {
      expect(isObflowError(error) && error.code).toBe('ERR_CERT_PORT_UNMATCHED');
      message = (error as Error).message;
    }
    expect(message).toContain('https://127.0.0.1:9443');
  });

  it('resolves collection URLs through the environment before checking them', () => {
    expect(resolveVariables('{{base}}/x', { base: '{{rs}}/v', rs: 'https://h:1' })).toBe('https://h:1/v/x');
    const collection = {
      info: { name: 'c', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
      item: [
        { name: 'token', request: { method: 'POST', url: { raw: '{{tokenEndpoint}}' } } },
        { name: 'accounts', request: { method: 'GET', url: { raw: '{{rs}}/open-banking/v3.1/aisp/accounts' } } },
        { name: 'next page', request: { method: 'GET', url: { raw: '{{transactions_next_url}}' } } },
      ],
    };
    expect(requestUrlsOf([collection], Object.fromEntries(values.map((entry) => [entry.key, entry.value])))).toEqual([
      'https://127.0.0.1:9443/strict-headless/token',
      'https://127.0.0.1:8443/open-banking/v3.1/aisp/accounts',
    ]);
  });
});

describe('preflightClientCertificates', () => {
  let identity: TestIdentity;
  let foreign: TestIdentity;
  let dir: string;
  beforeAll(async () => {
    identity = await getTestIdentity();
    foreign = await getForeignIdentity();
    dir = await tempDir('obflow-certs-');
  });
  const list = (transport: SslClientCert): SslClientCert[] => [transport];

  it('accepts the issued PEM pair', async () => {
    const paths = identity.paths.transport as { cert: string; key: string };
    expect(
      await codeOf(() => preflightClientCertificates(list({ name: 't', matches: [], cert: { src: paths.cert }, key: { src: paths.key } }))),
    ).toBeUndefined();
  });
  it('refuses a missing file before anything is sent', async () => {
    const paths = identity.paths.transport as { cert: string; key: string };
    expect(
      await codeOf(() =>
        preflightClientCertificates(list({ name: 't', matches: [], cert: { src: join(dir, 'nope.pem') }, key: { src: paths.key } })),
      ),
    ).toBe('ERR_FILE_MISSING');
  });
  it("refuses a key that is not the certificate's", async () => {
    const paths = identity.paths.transport as { cert: string; key: string };
    const otherKey = join(dir, 'other-key.pem');
    await writeFile(otherKey, foreign.pem.transportKey);
    expect(
      await codeOf(() => preflightClientCertificates(list({ name: 't', matches: [], cert: { src: paths.cert }, key: { src: otherKey } }))),
    ).toBe('ERR_CERT_KEY_MISMATCH');
  });
  it('refuses an entry without files, and a PFX with the wrong passphrase', async () => {
    expect(await codeOf(() => preflightClientCertificates(list({ name: 't', matches: [] })))).toBe('ERR_CERT_MISSING');
    const key = forge.pki.privateKeyFromPem(identity.pem.transportKey);
    const cert = forge.pki.certificateFromPem(identity.pem.transportCert);
    const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert], 'right-pass', { algorithm: 'aes256' });
    const pfxPath = join(dir, 'transport.pfx');
    await writeFile(pfxPath, Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'));
    expect(
      await codeOf(() => preflightClientCertificates(list({ name: 't', matches: [], pfx: { src: pfxPath }, passphrase: 'right-pass' }))),
    ).toBeUndefined();
    expect(
      await codeOf(() => preflightClientCertificates(list({ name: 't', matches: [], pfx: { src: pfxPath }, passphrase: 'wrong' }))),
    ).toBe('ERR_PFX_PASSPHRASE');
  });
  it('uses the material the caller holds for the files it was loaded from (no second read), and still finds a file gone', async () => {
    const cert = join(dir, 'held-cert.pem');
    const key = join(dir, 'held-key.pem');
    await writeFile(cert, identity.pem.transportCert);
    await writeFile(key, identity.pem.transportKey);
    const held = await loadTransportMaterial({ cert, key });
    // Overwritten after the session loaded it: only a re-read would notice; the held material is what counts.
    await writeFile(cert, 'not a certificate');
    const entry: SslClientCert = { name: 't', matches: [], cert: { src: cert }, key: { src: key } };
    expect(await codeOf(() => preflightClientCertificates(list(entry), held))).toBeUndefined();
    expect(await codeOf(() => preflightClientCertificates(list(entry)))).toBe('ERR_CERT_INVALID');
    // An entry naming other files is read and checked as before.
    const other = join(dir, 'other-cert.pem');
    await writeFile(other, 'not a certificate');
    expect(await codeOf(() => preflightClientCertificates(list({ ...entry, cert: { src: other } }), held))).toBe('ERR_CERT_INVALID');
    // newman reads the files itself: one gone since the session loaded it is still ERR_FILE_MISSING before any request.
    await rm(key);
    expect(await codeOf(() => preflightClientCertificates(list(entry), held))).toBe('ERR_FILE_MISSING');
  });
});

describe('writeSslClientCertList', () => {
  it('writes the list for `newman run --ssl-client-cert-list` without the PFX passphrase; the list in memory keeps it', async () => {
    const { writeSslClientCertList } = await import('../../src/run/certificates.js');
    const { readFile, stat } = await import('node:fs/promises');
    const dir = await tempDir('obflow-certlist-');
    const list = buildSslClientCertList({
      origins: ['https://127.0.0.1:8443'],
      transport: { pfx: '/t.pfx', passphrase: 'correct horse battery' },
    });
    const path = await writeSslClientCertList(join(dir, 'ssl-client-cert-list.json'), list);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('correct horse battery');
    expect(JSON.parse(text)).toEqual([
      { name: 'obflow transport certificate', matches: ['https://127.0.0.1:8443/*'], pfx: { src: '/t.pfx' } },
    ]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(list[0]?.passphrase).toBe('correct horse battery');
  });
});
