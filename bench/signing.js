// The signer's cost in newman: the payment collection's POST /domestic-payment-consents item (its pre-request resolves
// the body and signs it: a detached PS256 JWS made in the collection's own JavaScript, lib-jws-sign.js) beside the same
// item with the signing call replaced by a constant, each run ITERATIONS times in one newman run against a local
// server that answers 201 at once (no TLS, no verification: the figure is the collection's). The items' tests are left
// out of both (the answer is not a bank's). Target: a ratio to the unsigned request in the same run; the per-request
// difference (the brief's "≤ 20 ms a request") is printed as information. Runnable alone: `node bench/signing.js`.

import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateKeyPairSync } from 'node:crypto';
import newman from 'newman';
import { repo, row } from './lib.js';

const ITERATIONS = 40;
const ROUNDS = 3;
const ITEM = 'payment-consent: POST /domestic-payment-consents';
/** The line of jws-sign.prerequest.js before the signing: the unsigned variant stubs the signer there. */
const SIGNING_COMMENT = '// The body is signed as it is sent';

function itemOf(collection) {
  const folder = collection.item.find((entry) => (entry.item ?? []).some((item) => item.name === ITEM));
  const item = folder?.item.find((entry) => entry.name === ITEM);
  if (item === undefined) throw new Error(`bench signing: no item "${ITEM}" in the payments collection`);
  return item;
}

function variant(collection, signed) {
  const item = JSON.parse(JSON.stringify(itemOf(collection)));
  item.event = (item.event ?? []).filter((event) => event.listen === 'prerequest');
  if (!signed) {
    const exec = item.event[0].script.exec;
    const at = exec.findIndex((line) => line.startsWith(SIGNING_COMMENT));
    if (at < 0) throw new Error('bench signing: the signing pre-request moved (no comment line to stub the signer at)');
    exec.splice(at, 0, "obflowJwsSign.detached = function () { return 'unsigned..unsigned'; };");
  }
  return { info: collection.info, item: [item] };
}

function runOnce(collection, environment) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    newman.run({ collection, environment, iterationCount: ITERATIONS, reporters: [] }, (error, summary) => {
      if (error) return reject(error);
      const failures = summary.run.failures.length;
      if (failures > 0) return reject(new Error(`bench signing: ${failures} failure(s): ${summary.run.failures[0]?.error?.message}`));
      resolve((performance.now() - started) / ITERATIONS);
    });
  });
}

export async function signingRows() {
  const collection = JSON.parse(await readFile(join(repo, 'collections', 'payments', 'obflow-pis.postman_collection.json'), 'utf8'));
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{"Data":{}}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const values = {
      rs: `http://127.0.0.1:${server.address().port}`,
      client_credentials_token: 'bench',
      signing_key: JSON.stringify(key),
      signing_kid: 'bench-kid',
      orgId: 'ORG',
      softwareId: 'SOFTWARE',
      jws_tan: 'openbanking.org.uk',
      payment_amount: '10.00',
      payment_currency: 'GBP',
      payment_creditor_scheme: 'UK.OBIE.SortCodeAccountNumber',
      payment_creditor_identification: '08080021325698',
      payment_creditor_name: 'ACME Inc',
      payment_reference: 'bench',
    };
    const environment = { values: Object.entries(values).map(([k, value]) => ({ key: k, value, enabled: true })) };
    const signed = variant(collection, true);
    const unsigned = variant(collection, false);
    await runOnce(unsigned, environment); // warm-up: newman's first run loads its sandbox
    const times = { signed: [], unsigned: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      times.unsigned.push(await runOnce(unsigned, environment));
      times.signed.push(await runOnce(signed, environment));
    }
    const mid = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const [a, b] = [mid(times.signed), mid(times.unsigned)];
    return [
      row(
        'payments: a signed POST in newman vs the same POST unsigned (per request)',
        a,
        b,
        'ms',
        { ratioAtMost: 6 },
        `the signer adds ${(a - b).toFixed(1)} ms a request (the brief asks at most 20); ${ITERATIONS} requests × ${ROUNDS} rounds`,
      ),
    ];
  } finally {
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const entry of await signingRows()) console.log(entry);
}
