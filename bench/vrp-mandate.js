// A VRP mandate's 100 payments through obflow, plain newman and a raw client, against the same emulator (bench/fixture.js
// serving accounts and vrp), each a process of its own (start included), each checked against the emulator's request
// log to have made 100 POST /domestic-vrps answered 201.
//
// The mandate is flow.vrp.controlParameters of a config file: at most 1.00 GBP a payment, 5,000.00 GBP a consent-aligned
// day, so every payment of every round is inside it. The generated mandate walk (vrp-mandate) cannot carry 100
// payments: it makes at most WALK_MAX_MADE (20) inside a limit before giving up crossing it (src/generate/vrp-plan.ts),
// and it is a walk to a refusal, not a run of payments. So the payment item of the generated flow (vrp-payment's
// `POST /domestic-vrps`: a fresh x-idempotency-key, InstructionIdentification and EndToEndIdentification, the body
// signed in the collection's own JavaScript) is run 100 times under the one authorised consent:
//
//  obflow     `obflow run vrp-payment` with that step's collection holding the item 100 times (obflow's runner runs a
//             step's collection once: it has no iteration count)
//  newman     plain `newman run` of the whole-flow collection's same item with `-n 100` (newman's iteration count), with
//             the environment obflow's steps left and the certificates a newman user lists by hand
//  raw        the same 100 POSTs with undici, one after another, each body signed with node:crypto (bench/payment-sign.js)
//
// Targets: ratios of wall time in the same run (rounds interleaved, medians). Runnable alone: `node bench/vrp-mandate.js`.

import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { plainNewmanArgs, startFixture } from './fixture.js';
import { interleaved, invalid, row, timed } from './lib.js';
import { detachedJws } from './payment-sign.js';

export const PAYMENTS = 100;
const ROUNDS = 3;
const ITEM = 'vrp-payment: POST /domestic-vrps';
const MANDATE = {
  PSUAuthenticationMethods: ['UK.OBIE.SCANotRequired'],
  MaximumIndividualAmount: { Amount: '1.00', Currency: 'GBP' },
  PeriodicLimits: [{ PeriodType: 'Day', PeriodAlignment: 'Consent', Amount: '5000.00', Currency: 'GBP' }],
};
/** The steps before the payments: the consent made, authorised headlessly and its code exchanged for the PSU's token. */
const SETUP_STEPS = ['discovery', 'client-credentials', 'vrp-consent', 'psu-consent', 'code-exchange'];
/** Plain newman ÷ the raw client: set from the measured spread (docs/notes.md, "Payments in the bench"). */
const NEWMAN_RAW_BOUND = 7;
const PAYMENT_LINE = /^resource POST \/open-banking\/v3\.1\/pisp\/domestic-vrps 201$/;

/** The payment item of a generated collection (at its top level or in a step folder). */
function paymentItem(collection) {
  const items = collection.item.flatMap((entry) => entry.item ?? [entry]);
  const item = items.find((entry) => entry.name === ITEM);
  if (item === undefined) throw new Error(`bench vrp: no item "${ITEM}"`);
  return item;
}

export async function vrpMandateRows() {
  const own = await mkdtemp(join(tmpdir(), 'obflow-bench-vrp-'));
  const config = join(own, 'obflow.config.json');
  const collections = join(own, 'collections');
  await writeFile(config, JSON.stringify({ flow: { vrp: { controlParameters: MANDATE } } }));
  const fixture = await startFixture({
    apis: ['accounts', 'vrp'],
    env: { OBFLOW_CONFIG: config, OBFLOW_OUTPUT__COLLECTIONS: collections },
  });
  try {
    const { tmp } = fixture;
    await fixture.obflow(['generate', '--json']);
    for (const step of SETUP_STEPS) await fixture.obflow(['run', step, '--apis', 'vrp', '--json']);
    // The environment obflow's steps left (the PSU's token, the consent), as plain newman and the raw client start from.
    const environment = join(tmp, 'vrp-environment.json');
    await writeFile(
      environment,
      await readFile(join(fixture.stateDir, 'environments', 'sandbox-strict-headless.vrp.postman_environment.json')),
    );
    const values = Object.fromEntries(JSON.parse(await readFile(environment, 'utf8')).values.map((entry) => [entry.key, entry.value]));

    // obflow: the step's own collection with its payment item 100 times (each run of the item makes a new payment).
    const stepFile = join(collections, 'vrp', 'vrp-payment.postman_collection.json');
    const step = JSON.parse(await readFile(stepFile, 'utf8'));
    const item = paymentItem(step);
    step.item = Array.from({ length: PAYMENTS }, (_, index) => ({ ...item, name: `${ITEM} (${index + 1})` }));
    await writeFile(stepFile, JSON.stringify(step));
    // newman: the whole-flow collection's same item, once, run PAYMENTS times.
    const whole = JSON.parse(await readFile(join(collections, 'vrp', 'obflow-vrp.postman_collection.json'), 'utf8'));
    const single = join(tmp, 'vrp-payment-item.postman_collection.json');
    await writeFile(single, JSON.stringify({ ...whole, item: [paymentItem(whole)] }));
    // raw: the item's body with its variables filled as the collection's pre-request fills them.
    const rawJob = join(tmp, 'vrp-raw.json');
    await writeFile(
      rawJob,
      JSON.stringify({
        url: `${values.rs}/open-banking/v3.1/pisp/domestic-vrps`,
        body: paymentItem(whole).request.body.raw,
        values,
        cert: fixture.cert,
        key: fixture.key,
        ca: fixture.ca,
        count: PAYMENTS,
      }),
    );

    /** Runs `fn`; throws unless the emulator logged exactly PAYMENTS payments made meanwhile (and nothing refused). */
    const checked = async (name, fn) => {
      const mark = fixture.sandbox.mark();
      const result = await fn();
      const requests = await fixture.sandbox.requestsSince(mark);
      const made = requests.filter((line) => PAYMENT_LINE.test(line)).length;
      if (made !== PAYMENTS || requests.length !== PAYMENTS)
        throw new Error(
          `bench vrp: ${name} made ${made} payments in ${requests.length} requests, not ${PAYMENTS}: ${requests.slice(0, 3).join('; ')}`,
        );
      return result;
    };
    const results = await interleaved(ROUNDS, {
      obflow: () => checked('obflow', () => fixture.obflow(['run', 'vrp-payment', '--apis', 'vrp', '--json'])),
      newman: () =>
        checked('plain newman', () =>
          timed(
            process.execPath,
            plainNewmanArgs(fixture, single, { environment, iterations: PAYMENTS, junit: join(tmp, 'vrp-newman.xml') }),
            { tmp },
          ),
        ),
      raw: () => checked('raw client', () => timed(process.execPath, [import.meta.filename, rawJob], { tmp })),
    });
    const all = (name) => results[name].all.map((ms) => (ms / 1000).toFixed(2)).join(', ');
    const note = `${PAYMENTS} signed payments of 1.00 GBP under one authorised consent (≤ 1.00 a payment, 5,000.00 a day), ${ROUNDS} interleaved rounds (median), process start included; s per round: obflow ${all('obflow')}, newman ${all('newman')}, raw ${all('raw')}`;
    return [
      row(
        `vrp: ${PAYMENTS} payments, obflow run / plain newman -n ${PAYMENTS}`,
        results.obflow.ms,
        results.newman.ms,
        's',
        { ratioAtMost: 1.2 },
        note,
      ),
      row(`vrp: ${PAYMENTS} payments, plain newman / raw undici`, results.newman.ms, results.raw.ms, 's', {
        ratioAtMost: NEWMAN_RAW_BOUND,
      }),
      row(`vrp: ${PAYMENTS} payments, obflow run / raw undici`, results.obflow.ms, results.raw.ms, 's'),
    ];
  } catch (error) {
    return [
      invalid(
        `vrp: ${PAYMENTS} payments`,
        String(error?.message ?? error)
          .split('\n')
          .slice(0, 3)
          .join(' | '),
      ),
    ];
  } finally {
    await fixture.close();
    await rm(own, { recursive: true, force: true });
  }
}

/** The raw client (this file run with a job): PAYMENTS POSTs one after another, each with fresh ids, signed. */
async function rawPayments(jobFile) {
  const job = JSON.parse(await readFile(jobFile, 'utf8'));
  const [cert, key, ...ca] = await Promise.all([job.cert, job.key, ...job.ca].map((path) => readFile(path, 'utf8')));
  const dispatcher = new Agent({ connect: { cert, key, ca, rejectUnauthorized: true } });
  const signer = {
    signingKey: JSON.parse(job.values.signing_key),
    kid: job.values.signing_kid,
    iss: `${job.values.orgId}/${job.values.softwareId}`,
    tan: job.values.jws_tan,
  };
  for (let index = 0; index < job.count; index += 1) {
    const values = {
      ...job.values,
      vrp_instruction_id: randomUUID().replace(/-/g, '').slice(0, 35),
      vrp_end_to_end_id: randomUUID().replace(/-/g, '').slice(0, 35),
    };
    const body = job.body.replace(/\{\{([^}]+)\}\}/g, (_, name) => values[name]);
    const answer = await request(job.url, {
      method: 'POST',
      dispatcher,
      body,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${values.access_token}`,
        'x-fapi-interaction-id': randomUUID(),
        'content-type': 'application/json; charset=utf-8',
        'x-idempotency-key': randomUUID(),
        'x-jws-signature': detachedJws(body, signer),
      },
    });
    await answer.body.dump();
    if (answer.statusCode !== 201) throw new Error(`bench vrp raw: payment ${index + 1} answered ${answer.statusCode}`);
  }
  await dispatcher.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] !== undefined) await rawPayments(process.argv[2]);
  else {
    const { printTable } = await import('./lib.js');
    printTable(await vrpMandateRows());
  }
}
