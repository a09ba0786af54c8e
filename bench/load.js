// The bench's load client: an undici Pool of `connections` keep-alive mutual-TLS connections, one request in flight on
// each, making `count` GETs of one URL after `warmup` (not counted); prints { rps, p50, p99, statuses } as JSON.
//   node bench/load.js <job.json>   job: { url, headers, cert, key, ca: [pem paths], connections, warmup, count }

import { URL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
const [cert, key, ...ca] = await Promise.all([job.cert, job.key, ...job.ca].map((path) => readFile(path, 'utf8')));
const url = new URL(job.url);
const pool = new Pool(url.origin, { connections: job.connections, pipelining: 1, connect: { cert, key, ca, rejectUnauthorized: true } });
const path = `${url.pathname}${url.search}`;
const statuses = {};

async function fire(total, latencies) {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next += 1;
      const started = performance.now();
      const response = await pool.request({ path, method: 'GET', headers: job.headers });
      await response.body.dump();
      latencies?.push(performance.now() - started);
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: job.connections }, worker));
}

await fire(job.warmup);
const latencies = [];
const started = performance.now();
await fire(job.count, latencies);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(JSON.stringify({ rps: job.count / seconds, p50: at(0.5), p99: at(0.99), statuses }));
await pool.close();
