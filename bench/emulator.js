// The emulator under load: GET /accounts with a valid access token over mutual TLS, 32 keep-alive connections, a
// fixed number of requests (bench/load.js, its own process), against a bare node:https server (bench/bare-server.js,
// its own process) answering the same JSON over mutual TLS; three rounds of each, interleaved, medians compared. The
// emulator runs as `obflow sandbox --json` (no request log: the figure is the emulator's, not a terminal's), restarted
// on the same ports. The note gives each server's CPU per request (from /proc on Linux), which survives load.

import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { invalid, repo, row, timed } from './lib.js';

const CONNECTIONS = 32;
const WARMUP = 1_000;
const COUNT = 10_000;
const ROUNDS = 3;

const medianOf = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid, read = (path) => readFileSync(path, 'utf8')) {
  try {
    // /proc/<pid>/stat: fields after the command's last closing parenthesis; utime and stime are the 12th and 13th, in
    // clock ticks (USER_HZ, 100 on Linux).
    const stat = read(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
  } catch {
    return undefined;
  }
}

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
    const bodyBytes = Buffer.from(await answer.body.arrayBuffer());
    await writeFile(body, bodyBytes);
    await dispatcher.close();
    if (answer.statusCode !== 200) return [invalid('emulator: GET /accounts', `answered ${answer.statusCode}`)];

    const load = async (target, pid) => {
      const cpuBefore = processCpuMs(pid);
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
      const client = await timed(process.execPath, [join(import.meta.dirname, 'load.js'), file], { tmp, usage: true });
      const result = JSON.parse(client.stdout);
      // The load client's CPU per request (µs; its start and TLS handshakes included): what bounds the bare rounds.
      result.clientCpuUs = (client.cpuMs * 1000) / (WARMUP + COUNT);
      if (Object.keys(result.statuses).some((status) => status !== '200'))
        throw new Error(`bench: load on ${target} got statuses ${JSON.stringify(result.statuses)}`);
      const cpuAfter = processCpuMs(pid);
      // The server's CPU per request (µs), warm-up included in both the time and the count.
      if (cpuBefore !== undefined && cpuAfter !== undefined) result.cpuUs = ((cpuAfter - cpuBefore) * 1000) / (WARMUP + COUNT);
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
        emulatorRounds.push(await load(url, fixture.sandbox.pid));
        bareRounds.push(await load(`https://127.0.0.1:${bare.port}/open-banking/v3.1/aisp/accounts`, bare.pid));
      }
    } finally {
      bare.stop();
    }
    const emulator = medianRound(emulatorRounds);
    const baseline = medianRound(bareRounds);
    const p = (result) => `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`;
    const rps = (rounds) => rounds.map((r) => Math.round(r.rps)).join(', ');
    const cpu = (rounds) =>
      (rounds.every((r) => r.cpuUs !== undefined)
        ? `, server CPU per request (µs) ${rounds.map((r) => Math.round(r.cpuUs)).join(', ')}`
        : '') + `, load client CPU per request (µs) ${rounds.map((r) => Math.round(r.clientCpuUs)).join(', ')}`;
    // Fair by construction: both over TLS 1.3 with the same server certificate, both asking for and verifying the client
    // certificate, the same 32 keep-alive connections from the same load client with the same request headers, and the
    // same answer (the emulator's body, byte for byte, with its Content-Type). What differs is the work: the emulator
    // checks the token, its client, certificate binding, consent and permissions, and builds the body per request; the
    // bare server writes a fixed buffer.
    const note = `${COUNT.toLocaleString('en-GB')} requests after ${WARMUP.toLocaleString('en-GB')} warm-up, ${CONNECTIONS} keep-alive connections, ${ROUNDS} interleaved rounds (median); emulator ${p(emulator)} (req/s ${rps(emulatorRounds)}${cpu(emulatorRounds)}); bare ${p(baseline)} (req/s ${rps(bareRounds)}${cpu(bareRounds)}); same TLS (mutual, same certificates), same connections and request headers, same ${bodyBytes.length.toLocaleString('en-GB')}-byte body: the difference is the emulator's checks and rendering`;
    return [
      row(
        `emulator: GET /accounts at ${CONNECTIONS} connections / bare node:https`,
        emulator.rps,
        baseline.rps,
        'req/s',
        // 0.54–0.80 over the benches of one code: the bare server gains more than the emulator when the machine is
        // quieter (the load client bounds it); the CPU row below is the steadier reading.
        { ratioAtLeast: 0.4 },
        note,
      ),
      // The median of each server's rounds' p99, same load client and connections (bare's reads 27–63 ms under load).
      row('emulator: p99 latency / bare node:https', emulator.p99, baseline.p99, 'ms', { ratioAtMost: 4 }),
      // Server against server, which load on the machine moves less than req/s (the bare rounds are bound
      // by the load client, whose CPU per request is a few times the bare server's: in the note above).
      ...(emulatorRounds.every((r) => r.cpuUs !== undefined) && bareRounds.every((r) => r.cpuUs !== undefined)
        ? [
            row(
              'emulator: server CPU per request / bare node:https',
              medianOf(emulatorRounds.map((r) => r.cpuUs)),
              medianOf(bareRounds.map((r) => r.cpuUs)),
              'µs',
              // 1.33–1.77 over the benches of one code.
              { ratioAtMost: 2.2 },
            ),
          ]
        : []),
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
  return { port, pid: child.pid, stop: () => child.kill('SIGTERM') };
}
