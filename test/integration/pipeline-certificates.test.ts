// Client certificates with newman against the real emulator: plain newman silently sends NO certificate for a
// port-less pattern or a missing file (proved here on the wire), and obflow refuses both before any request.

import { writeFile } from 'node:fs/promises';
import forge from 'node-forge';
import { join } from 'node:path';
import tls from 'node:tls';
import newman from 'newman';
import { describe, expect, it, vi } from 'vitest';

import { isObflowError } from '../../src/errors.js';
import { STEP_NAMES } from '../../src/generate/index.js';
import { certificateFileStats } from '../../src/run/certificate-files.js';
import { buildRunPlan, buildSslClientCertList, runSteps, type SslClientCert } from '../../src/run/index.js';
import { getTestIdentity } from '../helpers/identity.js';
import { usePreparedSandbox } from './pipeline-helpers.js';
import { codeOf } from '../helpers/errors.js';

const fixture = usePreparedSandbox('strict-headless');

const tokenRequests = (): string[] => fixture.sandbox.log.filter((line) => /^auth POST \/strict-headless\/token /.test(line));
const portOf = (url: string): string => new URL(url).port;

/** Plain newman (no obflow checks) running the client-credentials step with a given certificate list. */
function rawNewman(list: SslClientCert[]): Promise<{ status: number | undefined; warnings: string[] }> {
  const warnings: string[] = [];
  let status: number | undefined;
  return new Promise((resolve, reject) => {
    newman
      .run(
        {
          collection: fixture.prepared.collections['client-credentials'] as never,
          environment: { values: fixture.prepared.environment.values } as never,
          reporters: [],
          sslClientCertList: list,
          sslExtraCaCerts: fixture.prepared.caBundle,
        } as never,
        (error) => (error ? reject(error) : resolve({ status, warnings })),
      )
      .on('console', (_error: unknown, args: { level: string; messages: unknown[] }) => {
        if (args.level === 'warn') warnings.push(args.messages.map(String).join(' '));
      })
      .on('request', (_error: unknown, args: { response?: { code: number } }) => {
        status = args.response?.code;
      });
  });
}

function run(list: SslClientCert[]): Promise<unknown> {
  return runSteps({
    steps: buildRunPlan({ stepNames: STEP_NAMES, collections: fixture.prepared.collections }),
    environment: fixture.prepared.environment,
    cwd: fixture.prepared.stateDir,
    sslClientCertList: list,
    sslExtraCaCerts: fixture.prepared.caBundle,
    reporters: [],
  });
}

describe('a pattern without the port', () => {
  const tokenEndpoint = (): string => fixture.prepared.environment.values.find((entry) => entry.key === 'tokenEndpoint')?.value ?? '';
  const portless = (): SslClientCert[] => [{ ...(fixture.prepared.certList[0] as SslClientCert), matches: ['https://127.0.0.1/*'] }];

  it('plain newman: the request goes out without a certificate and without a warning; the bank refuses it', async () => {
    expect(portOf(tokenEndpoint())).not.toBe('');
    const control = await rawNewman(fixture.prepared.certList);
    expect(control.status).toBe(200);
    const before = tokenRequests().length;
    const silent = await rawNewman(portless());
    expect(tokenRequests().length).toBe(before + 1); // it was sent…
    expect(silent.status).toBe(401); // …without the certificate (the token endpoint requires mutual TLS)…
    expect(silent.warnings).toEqual([]); // …and newman said nothing.
  });

  it('obflow: ERR_CERT_PORT_UNMATCHED before any request', async () => {
    const before = fixture.sandbox.log.length;
    expect(await codeOf(run(portless()))).toBe('ERR_CERT_PORT_UNMATCHED');
    expect(fixture.sandbox.log.length).toBe(before);
  });

  it('obflow: a list built for another port of the resource server is caught too', async () => {
    const rs = fixture.prepared.environment.values.find((entry) => entry.key === 'rs')?.value ?? '';
    const wrongPort = buildSslClientCertList({
      origins: [`https://127.0.0.1:${Number(portOf(rs)) === 1 ? 2 : 1}`, new URL(tokenEndpoint()).origin],
      transport: (await getTestIdentity()).paths.transport,
    });
    const before = fixture.sandbox.log.length;
    let message = '';
    try {
      await run(wrongPort);
    } catch (error) {
      expect(isObflowError(error) && error.code).toBe('ERR_CERT_PORT_UNMATCHED');
      message = (error as Error).message;
    }
    expect(message).toContain(new URL(rs).origin);
    expect(fixture.sandbox.log.length).toBe(before);
  });
});

describe('a missing certificate file', () => {
  const missing = (): SslClientCert[] => [
    { ...(fixture.prepared.certList[0] as SslClientCert), cert: { src: join(fixture.prepared.stateDir, 'no-such-cert.pem') } },
  ];

  it('plain newman: only a console warning, and the request is sent anyway', async () => {
    const before = tokenRequests().length;
    const result = await rawNewman(missing());
    expect(tokenRequests().length).toBe(before + 1);
    expect(result.status).toBe(401);
    expect(result.warnings.join('\n')).toMatch(/certificate/i);
  });

  it('obflow: a clear error before any request', async () => {
    const before = fixture.sandbox.log.length;
    expect(await codeOf(run(missing()))).toBe('ERR_FILE_MISSING');
    expect(fixture.sandbox.log.length).toBe(before);
  });
});

describe('a PFX transport certificate', () => {
  it('runs over mTLS through the list (pfx src + passphrase); a wrong passphrase is refused before any request', async () => {
    const key = forge.pki.privateKeyFromPem((await getTestIdentity()).pem.transportKey);
    const cert = forge.pki.certificateFromPem((await getTestIdentity()).pem.transportCert);
    const pfxPath = join(fixture.prepared.stateDir, 'transport.pfx');
    await writeFile(
      pfxPath,
      Buffer.from(forge.asn1.toDer(forge.pkcs12.toPkcs12Asn1(key, [cert], 'pfx-pass', { algorithm: 'aes256' })).getBytes(), 'binary'),
      { mode: 0o600 },
    );
    const origins = [
      ...new Set(fixture.prepared.certList.flatMap((entry) => entry.matches.map((pattern) => pattern.replace(/\/\*$/, '')))),
    ];
    const pfxList = buildSslClientCertList({ origins, transport: { pfx: pfxPath, passphrase: 'pfx-pass' } });
    expect(pfxList[0]?.pfx).toEqual({ src: pfxPath });
    const result = await runSteps({
      steps: buildRunPlan({
        stepNames: ['discovery', 'client-credentials', 'account-access-consent'],
        collections: fixture.prepared.collections,
      }),
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: pfxList,
      sslExtraCaCerts: fixture.prepared.caBundle,
      reporters: [],
    });
    expect(result.passed).toBe(true);
    expect(result.steps.map((step) => step.requests)).toEqual([1, 1, 2]);

    const before = fixture.sandbox.log.length;
    expect(await codeOf(run([{ ...(pfxList[0] as SslClientCert), passphrase: 'wrong' }]))).toBe('ERR_PFX_PASSPHRASE');
    expect(fixture.sandbox.log.length).toBe(before);
  });
});

describe("the list's files (src/run/certificate-files.ts)", () => {
  it('are read once for the run: newman asks for them before every request and gets them from memory', async () => {
    const before = certificateFileStats().answered;
    const result = await run(fixture.prepared.certList);
    expect(result).toMatchObject({ passed: true });
    const requests = (result as { steps: { requests: number }[] }).steps.reduce((sum, step) => sum + step.requests, 0);
    expect(requests).toBeGreaterThan(5);
    // A key and a certificate for every request (the emulator refuses any request without them).
    expect(certificateFileStats().answered - before).toBe(2 * requests);
  });
});

describe('TLS contexts with the target CA (sslExtraCaCerts)', () => {
  it('one per origin and certificate for the whole run, not one per request (newman alone builds one per request)', async () => {
    const spy = vi.spyOn(tls, 'createSecureContext');
    try {
      const result = await run(fixture.prepared.certList);
      expect(result).toMatchObject({ passed: true });
      const requests = (result as { steps: { requests: number }[] }).steps.reduce((sum, step) => sum + step.requests, 0);
      const origins = new Set(fixture.prepared.certList.flatMap((entry) => entry.matches)).size;
      expect(origins).toBe(2); // resource server and authorisation server
      expect(requests).toBeGreaterThan(3 * origins);
      expect(spy.mock.calls.length).toBeGreaterThan(0); // the count below is of contexts actually built
      expect(spy.mock.calls.length).toBeLessThanOrEqual(origins);
    } finally {
      spy.mockRestore();
    }
  });

  it('a CA bundle that is not there: ERR_FILE_MISSING before any request (newman alone falls back to the default roots)', async () => {
    const before = fixture.sandbox.log.length;
    const outcome = runSteps({
      steps: buildRunPlan({ stepNames: STEP_NAMES, collections: fixture.prepared.collections }),
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: fixture.prepared.certList,
      sslExtraCaCerts: join(fixture.prepared.stateDir, 'no-such-ca.pem'),
      reporters: [],
    });
    expect(await codeOf(outcome)).toBe('ERR_FILE_MISSING');
    expect(fixture.sandbox.log.length).toBe(before);
  });

  it('an origin the list does not match still gets no certificate (the agent adds only the CA)', async () => {
    const rs = fixture.prepared.environment.values.find((entry) => entry.key === 'rs')?.value ?? '';
    const resourceOnly: SslClientCert[] = [{ ...(fixture.prepared.certList[0] as SslClientCert), matches: [`${new URL(rs).origin}/*`] }];
    const before = tokenRequests().length;
    const outcome = runSteps({
      steps: buildRunPlan({ stepNames: ['discovery', 'client-credentials'], collections: fixture.prepared.collections }),
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: resourceOnly,
      sslExtraCaCerts: fixture.prepared.caBundle,
      reporters: [],
      preflight: false,
    });
    // obflow's own check notices the certificate-less request after it went out (preflight off)…
    expect(await codeOf(outcome)).toBe('ERR_CERT_PORT_UNMATCHED');
    // …and the token endpoint (mutual TLS required) saw it without a certificate: the server's certificate was trusted
    // through the CA (an answer came), the client's was not presented.
    expect(tokenRequests().slice(before)).toEqual([expect.stringMatching(/ 401 /)]);
  });
});
