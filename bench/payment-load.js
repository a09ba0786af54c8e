// The payments load client: an undici Pool of `connections` keep-alive mutual-TLS connections, one request in flight on
// each, making `count` signed POSTs of a payment consent after `warmup` (not counted), each with its own body
// (InstructionIdentification), x-idempotency-key and x-fapi-interaction-id, signed (bench/payment-sign.js). The bodies are signed before the clock starts, so the
// client's signing is not in the figure; prints { rps, p50, p99, statuses, unsigned } as JSON (`unsigned`: answers
// without an x-jws-signature).
//   node bench/payment-load.js <job.json>
//   job: { url, token, financialId, cert, key, ca: [pem paths], signingKey (JWK), kid, iss, tan, connections, warmup, count }

import { URL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { signedPost } from './payment-sign.js';

const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
const [cert, key, ...ca] = await Promise.all([job.cert, job.key, ...job.ca].map((path) => readFile(path, 'utf8')));
const url = new URL(job.url);
const pool = new Pool(url.origin, { connections: job.connections, pipelining: 1, connect: { cert, key, ca, rejectUnauthorized: true } });
const statuses = {};
let unsigned = 0;

async function fire(requests, latencies) {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const { body, headers } = requests[next];
      next += 1;
      const started = performance.now();
      const response = await pool.request({ path: url.pathname, method: 'POST', headers, body });
      await response.body.dump();
      latencies?.push(performance.now() - started);
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      if (typeof response.headers['x-jws-signature'] !== 'string') unsigned += 1;
    }
  };
  await Promise.all(Array.from({ length: job.connections }, worker));
}

const make = (n) => Array.from({ length: n }, () => signedPost(job));
await fire(make(job.warmup));
const requests = make(job.count);
const latencies = [];
const started = performance.now();
await fire(requests, latencies);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(JSON.stringify({ rps: job.count / seconds, p50: at(0.5), p99: at(0.99), statuses, unsigned }));
await pool.close();
