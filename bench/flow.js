// The whole flow and paging beside their peers, every one a process of its own (start included), against the same
// emulator (bench/fixture.js), each checked against the emulator's request log to have made the same requests:
//
//  whole flow   `obflow run all`  vs  the raw undici client (bench/raw-client.js), and plain `newman run` of the
//               whole-flow collection (collections/obflow-ais.postman_collection.json) vs the same raw client;
//               `obflow run all` vs that plain newman run (≤ 1.1×), and its CPU per request (user + system of the
//               obflow process / requests) vs plain newman's
//  scripts      plain newman with the whole-flow collection  vs  newman with the same requests and no scripts
//  paging       `obflow run transactions` for jo (103 pages, 10,250 transactions)  vs  plain newman of the
//               transactions collection (wall and peak RSS), and vs the raw client paging the same (information);
//               the jo demo rows, `obflow demo --psu-user jo`, are in bench/start.js

import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { plainNewmanArgs } from './fixture.js';
import { interleaved, invalid, repo, row, timed } from './lib.js';

const ROUNDS = 3;
/** The scripts' CPU bound: 1.82–1.88 in the rounds of one code (docs/notes.md, "the bench in ratios"). */
const SCRIPTS_CPU_BOUND = 2.2;
const wholeFlowCollection = join(repo, 'collections', 'obflow-ais.postman_collection.json');
const transactionsCollection = join(repo, 'collections', 'transactions.postman_collection.json');
const rawClient = join(import.meta.dirname, 'raw-client.js');

export async function flowRows(fixture) {
  const rows = [];
  const { tmp } = fixture;
  const raw = async (job) => {
    const jobFile = join(tmp, `raw-${job.mode}.json`);
    await writeFile(
      jobFile,
      JSON.stringify({ cert: fixture.cert, key: fixture.key, ca: fixture.ca, collection: wholeFlowCollection, ...job }),
    );
    return timed(process.execPath, [rawClient, jobFile], { tmp, peakRss: true });
  };
  /** Runs `fn` and returns its result with the requests the emulator logged meanwhile. */
  const observed = async (fn) => {
    const mark = fixture.sandbox.mark();
    const result = await fn();
    return { ...result, requests: await fixture.sandbox.requestsSince(mark) };
  };

  // ---- whole flow, and the same requests without scripts (rounds interleaved) --------------------------------------
  // As a newman user runs it, with the JUnit report obflow writes too; a failed check exits 1 (the bench stops).
  const newman = (collection, environment = fixture.environment) =>
    timed(process.execPath, plainNewmanArgs(fixture, collection, { environment, junit: join(tmp, 'newman.xml') }), {
      tmp,
      cwd: tmp,
      usage: true,
    });
  const { rawFlow, obflowAll, newmanFlow, bare } = await interleaved(ROUNDS, {
    rawFlow: () => observed(() => raw({ mode: 'flow', environment: fixture.environment })),
    obflowAll: async () => {
      await copyFile(fixture.environment, fixture.savedEnvironment);
      return observed(() => fixture.obflow(['run', 'all', '--json'], { usage: true }));
    },
    newmanFlow: () => observed(() => newman(wholeFlowCollection)),
    bare: async (round) => {
      const collection = join(tmp, `scriptless-${round}.json`);
      await raw({ mode: 'plan', environment: fixture.environment, out: collection });
      return observed(() => newman(collection));
    },
  });
  const count = rawFlow.requests.length;
  const same = (other, name) => sameRequests(rawFlow.requests, other, name);
  const flowNote = `${count} requests; times of ${ROUNDS} rounds (ms): obflow ${ms(obflowAll.all)}, newman ${ms(newmanFlow.all)}, raw ${ms(rawFlow.all)}`;
  const obflowDiff = same(obflowAll, 'obflow run all');
  // newman's own start and scripts are most of it (newman / raw reads 5.8–6.6): 5.0–7.3 over the benches of one code
  // (docs/notes.md), where a bound of 6 split them; obflow beside newman itself is the row below.
  rows.push(obflowDiff ?? row('whole flow: obflow run all / raw undici', obflowAll.ms, rawFlow.ms, 's', { ratioAtMost: 8 }, flowNote));
  const newmanDiff = same(newmanFlow, 'newman run');
  rows.push(newmanDiff ?? row('whole flow: newman run / raw undici', newmanFlow.ms, rawFlow.ms, 's'));
  // obflow's runner beside plain newman running the same whole-flow collection, same requests, same run.
  rows.push(
    obflowDiff ??
      newmanDiff ??
      // 0.89–1.06 over the benches of one code; the CPU row below holds the same to its own bound.
      row('whole flow: obflow run all / newman run (same collection)', obflowAll.ms, newmanFlow.ms, 's', { ratioAtMost: 1.2 }),
  );
  // CPU per request: user + system CPU of the obflow (or newman) process over the requests the emulator logged, the
  // median of the rounds (CPU survives load where walls do not), beside plain newman in the same run.
  if (obflowDiff === undefined && newmanDiff === undefined) {
    const perRequest = (measured) => medianOfValues(measured.rounds.map((round) => round.cpuMs / count));
    const obflowCpu = perRequest(obflowAll);
    const newmanCpu = perRequest(newmanFlow);
    const cpuNote = `CPU (user + system) of the process per request, ${count} requests; rounds (ms of CPU): obflow ${ms(obflowAll.rounds.map((r) => r.cpuMs))}, newman ${ms(newmanFlow.rounds.map((r) => r.cpuMs))}`;
    // 1.04–1.11 over the benches of one code.
    rows.push(row('whole flow: CPU per request, obflow run all / newman run', obflowCpu, newmanCpu, 'ms', { ratioAtMost: 1.3 }, cpuNote));
  }

  // The scripts' cost in CPU: the walls of a run that computes (scripts) and one that mostly waits (none) part under load
  // (1.48–1.82 over the benches of one code, docs/notes.md), their CPU does not.
  const scriptless = sameRequests(rawFlow.requests, bare, 'newman without scripts');
  const cpuOf = (measured) => medianOfValues(measured.rounds.map((round) => round.cpuMs));
  rows.push(
    scriptless ??
      row(
        'scripts: newman whole flow / same requests without scripts, CPU',
        cpuOf(newmanFlow),
        cpuOf(bare),
        'ms',
        { ratioAtMost: SCRIPTS_CPU_BOUND },
        `CPU (ms): with scripts ${ms(newmanFlow.rounds.map((r) => r.cpuMs))}; without ${ms(bare.rounds.map((r) => r.cpuMs))}`,
      ),
  );
  rows.push(
    scriptless ??
      row(
        'scripts: newman whole flow / same requests without scripts',
        newmanFlow.ms,
        bare.ms,
        's',
        undefined,
        `without scripts (ms): ${ms(bare.all)}`,
      ),
  );

  // ---- paging: jo --------------------------------------------------------------------------------------------------
  const joEnvironment = join(tmp, 'environment-jo.json');
  await writeFile(
    joEnvironment,
    JSON.stringify(withValues(JSON.parse(await readFile(fixture.environment, 'utf8')), { psu_login_hint: 'jo' })),
  );
  const joGrant = join(tmp, 'jo-grant.json');
  await raw({ mode: 'flow', environment: joEnvironment, out: joGrant });
  const { values } = JSON.parse(await readFile(joGrant, 'utf8'));
  const joReady = withValues(JSON.parse(await readFile(joEnvironment, 'utf8')), {
    access_token: values.access_token,
    account_ids: values.account_ids,
  });
  await writeFile(joEnvironment, JSON.stringify(joReady));
  const { rawPages, obflowPages, newmanPages } = await interleaved(ROUNDS, {
    rawPages: () => observed(() => raw({ mode: 'transactions', environment: joEnvironment })),
    obflowPages: async () => {
      await writeFile(fixture.savedEnvironment, JSON.stringify(joReady), { mode: 0o600 });
      return observed(() => fixture.obflow(['run', 'transactions', '--psu-user', 'jo', '--json'], { peakRss: true }));
    },
    // The same step's collection through plain newman, same environment, same requests.
    newmanPages: () => observed(() => newman(transactionsCollection, joEnvironment)),
  });
  const pages = rawPages.requests.length;
  const pagesDiff = sameRequests(rawPages.requests, obflowPages, 'obflow run transactions');
  const newmanPagesDiff = sameRequests(rawPages.requests, newmanPages, 'newman run (transactions)');
  const pagesNote = `${values.transactions} transactions; rounds (ms): obflow ${ms(obflowPages.all)}, newman ${ms(newmanPages.all)}, raw ${ms(rawPages.all)}`;
  rows.push(
    pagesDiff ??
      newmanPagesDiff ??
      row(
        `paging jo (${pages} pages): obflow run transactions / plain newman (same collection)`,
        obflowPages.ms,
        newmanPages.ms,
        's',
        { ratioAtMost: 1.2 },
        pagesNote,
      ),
  );
  // Information: both beside the raw client (no newman, no scripts).
  rows.push(pagesDiff ?? row(`paging jo (${pages} pages): obflow run transactions / raw undici`, obflowPages.ms, rawPages.ms, 's'));
  rows.push(row('paging jo: peak RSS, obflow run transactions / raw undici', obflowPages.peakRssMiB, rawPages.peakRssMiB, 'MiB'));
  // Beside plain newman paging the same (median of the interleaved rounds each).
  const rss = (measured) => medianOfValues(measured.rounds.map((round) => round.peakRssMiB));
  rows.push(
    newmanPagesDiff ??
      row(
        'paging jo: peak RSS, obflow run transactions / plain newman (same collection)',
        rss(obflowPages),
        rss(newmanPages),
        'MiB',
        { ratioAtMost: 1.1 },
        `median of ${ROUNDS} interleaved; rounds (MiB): obflow ${ms(obflowPages.rounds.map((r) => r.peakRssMiB))}, newman ${ms(newmanPages.rounds.map((r) => r.peakRssMiB))}; CPU (ms): newman ${ms(newmanPages.rounds.map((r) => r.cpuMs))}`,
      ),
  );
  return rows;
}

const ms = (values) => values.map((value) => value.toFixed(0)).join(', ');
const medianOfValues = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function withValues(environment, values) {
  const rest = environment.values.filter((entry) => !(entry.key in values));
  const secret = new Set(['access_token']);
  return {
    ...environment,
    values: [
      ...rest,
      ...Object.entries(values).map(([key, value]) => ({ key, value, type: secret.has(key) ? 'secret' : 'default', enabled: true })),
    ],
  };
}

/** undefined when every round made the raw client's requests in the same order, else an `invalid` row naming the
 *  first difference. */
function sameRequests(expected, measured, name) {
  for (const round of measured.rounds) {
    const difference = firstDifference(expected, round.requests, name);
    if (difference !== undefined) return difference;
  }
  return undefined;
}

function firstDifference(expected, actual, name) {
  for (let i = 0; i < Math.max(expected.length, actual.length); i += 1) {
    if (expected[i] !== actual[i]) {
      return invalid(
        name,
        `request ${i + 1} differs from the raw client's: ${actual[i] ?? '(none)'} vs ${expected[i] ?? '(none)'} (${actual.length} vs ${expected.length} requests)`,
      );
    }
  }
  return undefined;
}
