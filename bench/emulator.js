// The emulator under load: GET /accounts with a valid access token over mutual TLS, 32 keep-alive connections, a
// fixed number of requests (bench/load.js, its own process), against a bare node:https server (bench/bare-server.js,
// its own process) answering the same JSON over mutual TLS; three rounds of each, interleaved, medians compared. The emulator runs as `obflow sandbox --json` (no request
// log: the figure is the emulator's, not a terminal's), restarted on the same ports.

import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { invalid, repo, row, timed } from './lib.js';

const CONNECTIONS = 32;
const WARMUP = 1_000;
const COUNT = 10_000;
const ROUNDS = 3;

/** The median round by requests per second, with the median p50 and p99 of all rounds (each its own median). */
function medianRound(rounds) {
  const mid = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { rps: mid(rounds.map((r) => r.rps)), p50: mid(rounds.map((r) => r.p50)), p99: mid(rounds.map((r) => r.p99)) };
}

export async function emulatorRows(fixture) {
  const { tmp } = fixture;
  const job = async (name, value) => {
    const file = join(tmp, `${name}.json`);
    await writeFile(file, JSON.stringify(value));
    return file;
  };
  await fixture.restartSandbox({ log: false });
  try {
    // A token for the reads: the raw client's whole flow (alex).
    const grant = join(tmp, 'emulator-grant.json');
    const rawJob = await job('raw-emulator', {
      mode: 'flow',
      environment: fixture.environment,
      cert: fixture.cert,
      key: fixture.key,
      ca: fixture.ca,
      collection: join(repo, 'collections', 'obflow-ais.postman_collection.json'),
      out: grant,
    });
    await timed(process.execPath, [join(import.meta.dirname, 'raw-client.js'), rawJob], { tmp });
    const { values } = JSON.parse(await readFile(grant, 'utf8'));
    const environment = Object.fromEntries(
      JSON.parse(await readFile(fixture.environment, 'utf8')).values.map((entry) => [entry.key, entry.value]),
    );
    const url = `${fixture.sandbox.urls.aisp_base_url}/accounts`;
    const headers = {
      accept: 'application/json',
      authorization: `Bearer ${values.access_token}`,
      'x-fapi-financial-id': environment.obParticipantId,
      'x-fapi-interaction-id': '93bac548-d2de-4546-b106-880a5018460d',
    };

    // The emulator's answer, served as is by the bare server.
    const [cert, key, ...ca] = await Promise.all([fixture.cert, fixture.key, ...fixture.ca].map((path) => readFile(path, 'utf8')));
    const dispatcher = new Agent({ connect: { cert, key, ca } });
    const answer = await request(url, { headers, dispatcher });
    const body = join(tmp, 'accounts.json');
    await writeFile(body, Buffer.from(await answer.body.arrayBuffer()));
    await dispatcher.close();
    if (answer.statusCode !== 200) return [invalid('emulator: GET /accounts', `answered ${answer.statusCode}`)];

    const load = async (target) => {
      const file = await job('load', {
        url: target,
        headers,
        cert: fixture.cert,
        key: fixture.key,
        ca: fixture.ca,
        connections: CONNECTIONS,
        warmup: WARMUP,
        count: COUNT,
      });
      const result = JSON.parse((await timed(process.execPath, [join(import.meta.dirname, 'load.js'), file], { tmp })).stdout);
      if (Object.keys(result.statuses).some((status) => status !== '200'))
        throw new Error(`bench: load on ${target} got statuses ${JSON.stringify(result.statuses)}`);
      return result;
    };
    const bare = await startBare(
      await job('bare', {
        cert: fixture.serverCert,
        key: fixture.serverKey,
        clientCa: fixture.ca,
        body,
        contentType: String(answer.headers['content-type']),
      }),
    );
    // Rounds interleaved (emulator, bare, emulator, bare, …) so a change of load on the shared machine falls on both;
    // each figure is the median of its rounds.
    const emulatorRounds = [];
    const bareRounds = [];
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        emulatorRounds.push(await load(url));
        bareRounds.push(await load(`https://127.0.0.1:${bare.port}/open-banking/v3.1/aisp/accounts`));
      }
    } finally {
      bare.stop();
    }
    const emulator = medianRound(emulatorRounds);
    const baseline = medianRound(bareRounds);
    const p = (result) => `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`;
    const rps = (rounds) => rounds.map((r) => Math.round(r.rps)).join(', ');
    const note = `${COUNT.toLocaleString('en-GB')} requests after ${WARMUP.toLocaleString('en-GB')} warm-up, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds (median); emulator ${p(emulator)} (req/s ${rps(emulatorRounds)}); bare ${p(baseline)} (req/s ${rps(bareRounds)})`;
    return [
      row(
        `emulator: GET /accounts at ${CONNECTIONS} connections / bare node:https`,
        emulator.rps,
        baseline.rps,
        'req/s',
        { ratioAtLeast: 0.5 },
        note,
      ),
      row('emulator: requests per second', emulator.rps, undefined, 'req/s', { figureAtLeast: 3000 }),
      row('emulator: p99 latency / bare node:https', emulator.p99, baseline.p99, 'ms', { figureAtMost: 25 }),
    ];
  } finally {
    await fixture.restartSandbox({ log: true });
  }
}

async function startBare(jobFile) {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'bare-server.js'), jobFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((done, fail) => {
    child.stdout.once('data', (chunk) => done(JSON.parse(String(chunk)).port));
    child.once('exit', (code) => fail(new Error(`bench: bare server exited ${code}`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}
