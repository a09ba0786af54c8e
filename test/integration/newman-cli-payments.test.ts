// The payments and funds hand-over works without obflow: the checked-in whole-flow collections (collections/payments/,
// collections/funds/, and their v4.0/) run unchanged with the plain `newman run` CLI (a subprocess), given the
// environment file and certificate list obflow wrote, against the real emulator serving payments and funds. A
// recording mutual-TLS proxy stands in front of the resource server and forwards every request unchanged: each signed
// POST's x-jws-signature is verified here with Node's crypto (not obflow's signer) over the bytes the proxy received,
// which are the bytes the bank received. Then 50 concurrent runs of the collection's payment item with one
// x-idempotency-key must make exactly one payment as obflow sees it (OB R/W Data API Profile, "Idempotency").

import { constants, createPublicKey, verify } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import newman from 'newman';
import { request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { environmentValue, withEnvironmentValues, type PostmanEnvironment } from '../../src/environment/index.js';
import { SANDBOX_CURRENT_ACCOUNTS } from '../../src/pipeline/family-inputs.js';
import {
  bankOriginsOf,
  buildRunPlan,
  buildSslClientCertList,
  readStepCollections,
  runSteps,
  writeSslClientCertList,
  type SslClientCert,
} from '../../src/run/index.js';
import { API_FAMILIES } from '../../src/api-families.js';
import { SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { mergeRunReports } from '../../src/report/merge-files.js';
import { issuedSecrets, messageSignatureParts } from '../helpers/secrets.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { newmanCli } from '../helpers/newman.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { COLLECTIONS_DIR, prepare, type Prepared } from './pipeline-helpers.js';

interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface Recorder {
  origin: string;
  received: Received[];
  /** The bank's x-jws-signature of every answer that had one. */
  answerSignatures: string[];
  close(): Promise<void>;
}

/** Forwards every request, byte for byte, to `target` over the TPP's own mTLS dispatcher (tokens stay bound to that
 *  certificate) and the answer back unchanged (the bank's signatures cover its bytes); records what it received. */
async function startRecorder(target: string, dispatcher: Dispatcher, identity: TestIdentity): Promise<Recorder> {
  const received: Received[] = [];
  const answerSignatures: string[] = [];
  const hop = ['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'];
  const server: Server = createServer(
    {
      key: identity.pem.serverKey,
      cert: identity.pem.serverCert,
      ca: [identity.pem.rootCa, identity.pem.issuingCa],
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        received.push({ method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'https://x').pathname, headers: req.headers, body });
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (hop.includes(name) || value === undefined) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        request(`${target}${req.url ?? '/'}`, {
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers,
          ...(body.length > 0 ? { body } : {}),
          dispatcher,
        })
          .then(async (upstream) => {
            const answer = Buffer.from(await upstream.body.arrayBuffer());
            const signature = upstream.headers['x-jws-signature'];
            if (typeof signature === 'string') answerSignatures.push(signature);
            for (const [name, value] of Object.entries(upstream.headers)) {
              if (hop.includes(name) || value === undefined) continue;
              res.setHeader(name, value);
            }
            res.statusCode = upstream.statusCode;
            res.end(answer);
          })
          .catch((error: unknown) => {
            res.statusCode = 502;
            res.end(String(error));
          });
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answerSignatures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const OB = 'http://openbanking.org.uk/';

/** Verifies a detached JWS over `body` with Node's crypto and the TPP's public signing key; its protected header. */
function verifyDetached(signature: string, body: Buffer, identity: TestIdentity): Record<string, unknown> {
  const [encoded = '', payload, sig = ''] = signature.split('.');
  expect(payload, 'a detached JWS: empty payload').toBe('');
  const signed = Buffer.from(`${encoded}.${body.toString('base64url')}`);
  const ok = verify(
    'sha256',
    signed,
    { key: createPublicKey(identity.pem.signingKey), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
    Buffer.from(sig, 'base64url'),
  );
  expect(ok, 'the x-jws-signature verifies over the bytes received').toBe(true);
  return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
}

let sandbox: TestSandbox;
let identity: TestIdentity;
let prepared: Prepared;
let recorder: Recorder;
let environmentPath: string;
let certList: SslClientCert[];
let listPath: string;

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox({ apis: ['accounts', 'payments', 'funds'], seed: SANDBOX_CURRENT_ACCOUNTS.seed });
  prepared = await prepare(sandbox, identity, 'strict-headless', {}, { flow: { apis: ['payments', 'funds'] } });
  recorder = await startRecorder(environmentValue(prepared.environment, 'rs') ?? '', prepared.dispatcher, identity);
  // The resource server through the recorder; every other origin (and Links.Self, the bank's own) as obflow wrote it.
  const environment = withEnvironmentValues(prepared.environment, { rs: recorder.origin });
  environmentPath = join(prepared.stateDir, 'recorded.postman_environment.json');
  await writeFile(environmentPath, JSON.stringify(environment));
  const origins = [...new Set([...bankOriginsOf(prepared.environment.values), recorder.origin])];
  certList = buildSslClientCertList({ origins, transport: identity.paths.transport });
  listPath = await writeSslClientCertList(join(prepared.stateDir, 'ssl-client-cert-list.json'), certList);
});
afterAll(async () => {
  await recorder?.close();
  await prepared?.dispatcher.close();
  await sandbox?.close();
});

describe('newman run (CLI subprocess): payments and funds', () => {
  it.each([
    ['PIS', '3.1', join(COLLECTIONS_DIR, 'payments', 'obflow-pis.postman_collection.json')],
    ['PIS', '4.0', join(COLLECTIONS_DIR, 'payments', 'v4.0', 'obflow-pis.postman_collection.json')],
    ['CoF', '3.1', join(COLLECTIONS_DIR, 'funds', 'obflow-cof.postman_collection.json')],
    ['CoF', '4.0', join(COLLECTIONS_DIR, 'funds', 'v4.0', 'obflow-cof.postman_collection.json')],
  ])('%s v%s: the whole-flow collection passes every assertion; each signed POST verifies with Node crypto', async (api, version, file) => {
    const from = recorder.received.length;
    const junit = join(prepared.stateDir, `cli-${api}-${version}.xml`);
    const result = await newmanCli(
      [
        'run',
        file,
        '--environment',
        environmentPath,
        '--ssl-client-cert-list',
        listPath,
        '--ssl-extra-ca-certs',
        prepared.caBundle,
        '--reporters',
        'cli,junit',
        '--reporter-junit-export',
        junit,
        '--color',
        'off',
      ],
      prepared.stateDir,
    );
    expect(result.code, `${result.stdout.slice(-4000)}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/│\s+assertions\s+│\s+\d+\s+│\s+0\s+│/);
    expect(await readFile(junit, 'utf8')).not.toMatch(/(failures|errors)="[1-9]/);
    const posts = recorder.received.slice(from).filter((entry) => entry.method === 'POST');
    const signed = posts.filter((entry) => /\/pisp\/domestic-payment(-consent)?s$/.test(entry.path));
    if (api === 'CoF') {
      // CBPII requests are not signed (neither file has x-jws-signature); the funds calls went through the recorder.
      expect(posts.some((entry) => entry.path.endsWith('/funds-confirmations'))).toBe(true);
      return;
    }
    // Consent: first, replay, changed body; payment: first, replay, changed body, new key.
    expect(signed.length).toBe(7);
    for (const entry of signed) {
      const signature = entry.headers['x-jws-signature'];
      expect(typeof signature, `${entry.path} carries x-jws-signature`).toBe('string');
      const header = verifyDetached(String(signature), entry.body, identity);
      // OB R/W Data API Profile, "Message Signing": exactly these claims; no b64 since 3.1.4.
      expect(header).toEqual({
        alg: 'PS256',
        kid: identity.manifest.kid,
        [`${OB}iat`]: expect.any(Number) as unknown,
        [`${OB}iss`]: `${identity.manifest.org_id}/${identity.manifest.software_id}`,
        [`${OB}tan`]: 'openbanking.org.uk',
        crit: [`${OB}iat`, `${OB}iss`, `${OB}tan`],
      });
      expect(entry.body.toString('utf8')).not.toMatch(/\{\{/);
    }
  });
});

describe('50 concurrent POSTs with one x-idempotency-key', () => {
  it("make exactly one payment as obflow sees it: one DomesticPaymentId, one created, the consent's second payment refused", async () => {
    const collection = JSON.parse(await readFile(join(COLLECTIONS_DIR, 'payments', 'obflow-pis.postman_collection.json'), 'utf8')) as {
      item: { name: string; item: { name: string; event?: { listen: string; script: { exec: string[] } }[] }[] }[];
    };
    const folder = (name: string) => collection.item.filter((entry) => entry.name === name);
    // Up to the payment: a consent authorised by the PSU and its access token, through the collection's own folders.
    const upTo = ['discovery', 'client-credentials', 'payment-consent', 'psu-consent', 'code-exchange', 'payment-funds-check'];
    const environment = JSON.parse(await readFile(environmentPath, 'utf8')) as PostmanEnvironment;
    const ready = await runNewman({ ...collection, item: upTo.flatMap(folder) }, environment);
    expect(ready.failures).toEqual([]);
    // The payment item alone, its key fixed: the pre-request's fresh key is what the 50 share instead.
    const payment = folder('payment')[0]?.item.find((entry) => entry.name === 'payment: POST /domestic-payments');
    if (payment === undefined) throw new Error('no payment item');
    const prerequest = payment.event?.find((event) => event.listen === 'prerequest');
    if (prerequest === undefined) throw new Error('no pre-request');
    const keyLine = prerequest.script.exec.findIndex((line) => line.includes("set('payment_idempotency_key'"));
    expect(keyLine).toBeGreaterThanOrEqual(0);
    prerequest.script.exec.splice(keyLine, 1);
    const shared = withEnvironmentValues(ready.environment, { payment_idempotency_key: `obflow-50-${Date.now()}` });
    const from = recorder.received.length;
    const runs = await Promise.all(
      Array.from({ length: 50 }, () => runNewman({ ...collection, item: [{ name: 'payment', item: [payment] }] }, shared)),
    );
    // Every run's own checks passed (the payment is the consent's, signed answer verified), each naming one payment; a
    // run whose POST never reached the bank says why here, before the count below.
    expect(runs.flatMap((entry) => entry.failures)).toEqual([]);
    const posts = recorder.received.slice(from).filter((entry) => entry.path.endsWith('/pisp/domestic-payments'));
    expect(posts.length).toBe(50);
    const ids = new Set(runs.map((entry) => environmentValue(entry.environment, 'payment_id')));
    expect([...ids].filter((id) => id !== undefined && id !== '').length).toBe(1);
    // Read back: the consent is consumed once; a payment under a new key is refused (no second payment possible).
    const after = await runNewman(
      { ...collection, item: folder('payment').map((entry) => ({ ...entry, item: entry.item.slice(3) })) },
      withEnvironmentValues(runs[0]?.environment ?? shared, {}),
    );
    expect(after.failures).toEqual([]);
    // Fifty newman runs in one process, each with its own script sandbox: seconds of CPU, more on a loaded machine.
  }, 120_000);
});

/** Runs a collection with newman's library (the environment obflow wrote, the recorder's certificate list). */
function runNewman(collection: object, environment: PostmanEnvironment): Promise<{ failures: string[]; environment: PostmanEnvironment }> {
  return new Promise((resolve, reject) => {
    newman.run(
      {
        collection,
        environment,
        sslClientCertList: certList,
        sslExtraCaCerts: prepared.caBundle,
        reporters: [],
      } as unknown as newman.NewmanRunOptions,
      (error, summary) => {
        if (error !== null && error !== undefined) {
          reject(error);
          return;
        }
        resolve({
          failures: summary.run.failures.map((failure) => `${failure.source?.name ?? ''}: ${failure.error.message}`),
          environment: summary.environment.toJSON() as unknown as PostmanEnvironment,
        });
      },
    );
  });
}

describe("obflow's own run of the payment flow: no report holds a key, a token or a signature", () => {
  it("junit, json, html and the merged page hold the payment (ids, amount, verdicts) and none of the run's secrets or signatures", async () => {
    const reportDir = join(prepared.stateDir, 'obflow-reports');
    const environment = JSON.parse(await readFile(environmentPath, 'utf8')) as PostmanEnvironment;
    const collections = await readStepCollections(join(COLLECTIONS_DIR, 'payments'), API_FAMILIES.payments.steps);
    const from = recorder.received.length;
    const signaturesBefore = recorder.answerSignatures.length;
    const result = await runSteps({
      steps: buildRunPlan({ stepNames: API_FAMILIES.payments.steps, collections }),
      environment,
      cwd: prepared.stateDir,
      sslClientCertList: certList,
      sslExtraCaCerts: prepared.caBundle,
      reporters: ['junit', 'json', 'html'],
      reportDir,
      secretKeys: SECRET_VARIABLE_KEYS,
    });
    expect(result.passed).toBe(true);
    const merged = join(prepared.stateDir, 'merged');
    await mergeRunReports({ inputs: [reportDir], out: merged, slowerThreshold: '50%', cwd: prepared.stateDir });
    const signatures = [
      ...recorder.received.slice(from).flatMap((entry) => {
        const header = entry.headers['x-jws-signature'];
        return typeof header === 'string' ? [header] : [];
      }),
      ...recorder.answerSignatures.slice(signaturesBefore),
    ];
    expect(signatures.length).toBeGreaterThan(7);
    const secrets = [
      ...issuedSecrets({
        environments: [result.environment.values],
        keyPems: [identity.pem.signingKey, identity.pem.transportKey],
      }),
      ...messageSignatureParts(signatures),
    ];
    const files = [...filesUnder(reportDir), ...filesUnder(merged)];
    expect(files.map((file) => file.split('/').at(-1))).toEqual(expect.arrayContaining(['obflow-run.json', 'report.html']));
    const paymentId = environmentValue(result.environment, 'payment_id') ?? '';
    expect(paymentId).not.toBe('');
    let mentions = 0;
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      if (text.includes(paymentId)) mentions += 1;
      for (const secret of secrets)
        expect(text.includes(secret), `${file} holds a secret or signature (${secret.slice(0, 8)}…)`).toBe(false);
    }
    // junit, json, html and the merged page (and its copy of the leg's page) name the payment: the scan read real pages.
    expect(mentions).toBeGreaterThanOrEqual(4);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}
