// The emulator's payment POSTs under load beside a bare server doing the same signature work. The emulator serves
// accounts and payments (`obflow sandbox --apis accounts,payments --json`, its own process, no request log); a client
// registered for both takes a client-credentials token (scope payments) and makes signed, idempotent
// `POST /domestic-payment-consents` — each its own body, x-idempotency-key and detached PS256 JWS — at 32 keep-alive
// connections (bench/payment-load.js, its own process; bodies signed before its clock starts). The baseline is
// bench/payment-bare-server.js: node:https with the same certificates and mutual TLS, verifying the same JWS and
// signing its answer (the emulator's answer, byte for byte), nothing else. Rounds interleaved, medians compared, as a
// ratio of throughput in the same run. The measured POST needs no PSU: the consent is created, not authorised (an
// authorised consent is what POST /domestic-payments spends, once, which makes no load). Runnable alone:
// `node bench/payment-posts.js`.

import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { URLSearchParams } from 'node:url';
import { Agent, request } from 'undici';
import { processCpuMs } from './emulator.js';
import { startFixture } from './fixture.js';
import { invalid, row, timed } from './lib.js';
import { signedPost } from './payment-sign.js';

const CONNECTIONS = 32;
const WARMUP = 200;
const COUNT = 2_000;
const ROUNDS = 3;
const PAYMENTS_SCOPE = 'payments';
const NAME = `payments: POST /domestic-payment-consents at ${CONNECTIONS} connections / bare node:https (same signature work)`;

const mid = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The environment `obflow environment` wrote, as a name → value map. */
async function environmentOf(file) {
  return Object.fromEntries(JSON.parse(await readFile(file, 'utf8')).values.map((entry) => [entry.key, entry.value]));
}

export async function paymentPostRows() {
  const fixture = await startFixture({ apis: ['accounts', 'payments'] });
  const { tmp } = fixture;
  const job = async (name, value) => {
    const file = join(tmp, `${name}.json`);
    await writeFile(file, JSON.stringify(value));
    return file;
  };
  let bare;
  try {
    await fixture.restartSandbox({ log: false });
    const env = await environmentOf(fixture.environment);
    const [cert, key, ...ca] = await Promise.all([fixture.cert, fixture.key, ...fixture.ca].map((path) => readFile(path, 'utf8')));
    const dispatcher = new Agent({ connect: { cert, key, ca } });
    const tokenAnswer = await request(env.tokenEndpoint, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Basic ${env.basicToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: PAYMENTS_SCOPE }).toString(),
    });
    const token = (await tokenAnswer.body.json()).access_token;
    if (tokenAnswer.statusCode !== 200 || typeof token !== 'string')
      return [invalid(NAME, `the token endpoint answered ${tokenAnswer.statusCode}`)];
    const url = `${env.rs}/open-banking/v3.1/pisp/domestic-payment-consents`;
    const loadJob = {
      url,
      token,
      financialId: env.obParticipantId,
      cert: fixture.cert,
      key: fixture.key,
      ca: fixture.ca,
      signingKey: JSON.parse(env.signing_key),
      kid: env.signing_kid,
      iss: `${env.orgId}/${env.softwareId}`,
      tan: env.jws_tan,
      connections: CONNECTIONS,
    };

    // The emulator's answer to one such POST, served as is by the bare server.
    const { body, headers } = signedPost(loadJob);
    const answer = await request(url, { method: 'POST', dispatcher, headers, body });
    const bodyFile = join(tmp, 'payment-consent.json');
    await writeFile(bodyFile, Buffer.from(await answer.body.arrayBuffer()));
    const contentType = String(answer.headers['content-type']);
    await dispatcher.close();
    if (answer.statusCode !== 201 || typeof answer.headers['x-jws-signature'] !== 'string')
      return [
        invalid(
          NAME,
          `the emulator answered a signed payment consent ${answer.statusCode}, signed: ${answer.headers['x-jws-signature'] !== undefined}`,
        ),
      ];

    const bank = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const tppPublic = { kty: 'RSA', n: loadJob.signingKey.n, e: loadJob.signingKey.e };
    bare = await startBare(
      await job('payment-bare', {
        cert: fixture.serverCert,
        key: fixture.serverKey,
        clientCa: fixture.ca,
        body: bodyFile,
        contentType,
        tppKey: tppPublic,
        bankKey: bank,
        bankKid: 'bench-bank',
        iss: env.orgId,
      }),
    );
    const load = async (target, pid) => {
      const cpuBefore = processCpuMs(pid);
      const file = await job('payment-load', { ...loadJob, url: target, warmup: WARMUP, count: COUNT });
      const result = JSON.parse((await timed(process.execPath, [join(import.meta.dirname, 'payment-load.js'), file], { tmp })).stdout);
      if (Object.keys(result.statuses).some((status) => status !== '201') || result.unsigned !== 0)
        throw new Error(`bench: payment POSTs on ${target} got statuses ${JSON.stringify(result.statuses)}, ${result.unsigned} unsigned`);
      const cpuAfter = processCpuMs(pid);
      if (cpuBefore !== undefined && cpuAfter !== undefined) result.cpuUs = ((cpuAfter - cpuBefore) * 1000) / (WARMUP + COUNT);
      return result;
    };
    const emulatorRounds = [];
    const bareRounds = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      emulatorRounds.push(await load(url, fixture.sandbox.pid));
      bareRounds.push(await load(`https://127.0.0.1:${bare.port}/open-banking/v3.1/pisp/domestic-payment-consents`, bare.pid));
    }
    const rps = (rounds) => rounds.map((r) => Math.round(r.rps)).join(', ');
    const cpu = (rounds) =>
      rounds.every((r) => r.cpuUs !== undefined) ? `, CPU per request (µs) ${rounds.map((r) => Math.round(r.cpuUs)).join(', ')}` : '';
    const p = (rounds) => `p50 ${mid(rounds.map((r) => r.p50)).toFixed(1)} ms, p99 ${mid(rounds.map((r) => r.p99)).toFixed(1)} ms`;
    const note =
      `${COUNT.toLocaleString('en-GB')} signed POSTs after ${WARMUP} warm-up, ${CONNECTIONS} keep-alive connections, ${ROUNDS} interleaved rounds (median); ` +
      `emulator ${p(emulatorRounds)} (req/s ${rps(emulatorRounds)}${cpu(emulatorRounds)}); bare ${p(bareRounds)} (req/s ${rps(bareRounds)}${cpu(bareRounds)}); ` +
      'both verify the PS256 JWS and sign the answer over the same mutual TLS; the difference is the emulator stores the consent and its idempotency key, checks the token and the request';
    return [row(NAME, mid(emulatorRounds.map((r) => r.rps)), mid(bareRounds.map((r) => r.rps)), 'req/s', { ratioAtLeast: 0.5 }, note)];
  } finally {
    bare?.stop();
    await fixture.close();
  }
}

async function startBare(jobFile) {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'payment-bare-server.js'), jobFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((done, fail) => {
    child.stdout.once('data', (chunk) => done(JSON.parse(String(chunk)).port));
    child.once('exit', (code) => fail(new Error(`bench: bare payment server exited ${code}`)));
  });
  return { port, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await paymentPostRows());
}
