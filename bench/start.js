// `npm start` as a user runs it (identity present: one untimed run first issues it), median of 5, against plain
// `newman run` of the whole-flow collection on the bench's bank (the same requests, newman's start included), and as
// information against `obflow demo` run directly by node (what npm and the start-up build check add); `obflow --help`
// against `node -e 0`; the demo's run step as the demo prints it (`run … (N ms)`: a cold process, newman's loading
// included) against plain newman; and jo through newman (`obflow demo --psu-user jo`) against plain newman of the
// whole flow as jo, wall and peak RSS; and the heap policy's CPU (src/cli/heap.ts) beside V8's own sizing
// (OBFLOW_HEAP=v8), both demos, same rounds. Every contender of a section runs interleaved with its baseline.
// State and collections go to a temporary folder (OBFLOW_STATE_DIR, OBFLOW_OUTPUT__COLLECTIONS), not the checkout's.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainNewmanArgs } from './fixture.js';
import { interleaved, median, obflowBin, repo, row, timed } from './lib.js';

const wholeFlowCollection = join(repo, 'collections', 'obflow-ais.postman_collection.json');

/** The run step's time as `obflow demo` prints it (`run          newman, 14 steps, … (1987 ms)`), or undefined. */
export function printedRunStep(stdout) {
  const match = /^run\s.*\((\d+) ms\)\s*$/m.exec(stdout);
  return match ? Number(match[1]) : undefined;
}

export async function startRows(fixture) {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-start-'));
  const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await timed(npm, ['start'], { env, tmp });
  const demoWith = (extra) => () =>
    timed(process.execPath, [obflowBin, 'demo'], { env: { ...env, ...extra }, tmp, cwd: repo, usage: true });
  const { start, demo, uncached, eager, newman, help, node } = await interleaved(5, {
    start: () => timed(npm, ['start'], { env, tmp }),
    demo: demoWith({}),
    // obflow's compile caches (src/cli/compile-cache.ts: Node.js's module cache where it has one, the report's
    // templates) off: what they earn, beside the demo with them.
    uncached: demoWith({ NODE_DISABLE_COMPILE_CACHE: '1' }),
    // The deferred requires (src/cli/deferred-requires.ts, stand-ins in require's cache) off: every package at the start.
    eager: demoWith({ OBFLOW_DEFER_REQUIRES: '0' }),
    newman: plainNewman(fixture, fixture.environment),
    help: () => timed(process.execPath, [obflowBin, '--help'], { tmp }),
    node: () => timed(process.execPath, ['-e', '0'], { tmp }),
  }).finally(() => rm(tmp, { recursive: true, force: true }));
  const runSteps = demo.rounds.map((round) => printedRunStep(round.stdout));
  const list = (values) => values.map(Math.round).join(', ');
  const rows = [
    row(
      'npm start (median of 5) / plain newman (whole flow)',
      start.ms,
      newman.ms,
      's',
      // npm start does what plain newman does (the whole flow's requests, newman's start) and more: the emulator's
      // start in its process, registration, the environment, the collections, the reports. Walls of a CPU-bound and a
      // half-waiting process part under load: one code read 1.03–1.67 at loads 2–12 (docs/notes.md, "the bench in
      // ratios"); the CPU row below is the tighter guard.
      { ratioAtMost: 2 },
      `rounds (ms): npm start ${list(start.all)}; plain newman ${list(newman.all)}; obflow demo ${list(demo.all)}`,
    ),
    // Information: what npm and the start-up build check add to the demo.
    row('npm start (median of 5) / obflow demo', start.ms, demo.ms, 's'),
    // Information: what the compile caches earn (CPU survives load where walls do not).
    row(
      "obflow demo's own CPU: compile caches on / NODE_DISABLE_COMPILE_CACHE=1",
      median(demo.rounds.map((round) => round.cpuMs)),
      median(uncached.rounds.map((round) => round.cpuMs)),
      'ms',
      undefined,
      `rounds (ms of CPU): on ${list(demo.rounds.map((round) => round.cpuMs))}; off ${list(uncached.rounds.map((round) => round.cpuMs))}; walls (ms): on ${list(demo.all)}; off ${list(uncached.all)}`,
    ),
    // What the deferred requires earn, on every Node.js: 0.87–0.91 in paired rounds on Node.js 20 and 24 (docs/notes.md,
    // "Deferred requires through require.cache"); above 1 they cost more than they save.
    row(
      "obflow demo's own CPU: deferred requires on / OBFLOW_DEFER_REQUIRES=0",
      median(demo.rounds.map((round) => round.cpuMs)),
      median(eager.rounds.map((round) => round.cpuMs)),
      'ms',
      { ratioAtMost: 1 },
      `rounds (ms of CPU): on ${list(demo.rounds.map((round) => round.cpuMs))}; off ${list(eager.rounds.map((round) => round.cpuMs))}; peak RSS (MiB): on ${list(demo.rounds.map((round) => round.peakRssMiB))}; off ${list(eager.rounds.map((round) => round.peakRssMiB))}`,
    ),
    // CPU survives load where walls do not: 1.18–1.39 over the benches of one code.
    row(
      "obflow demo's own CPU (median of 5) / plain newman's",
      median(demo.rounds.map((round) => round.cpuMs)),
      median(newman.rounds.map((round) => round.cpuMs)),
      'ms',
      { ratioAtMost: 1.6 },
      `user + system of the process; rounds (ms): demo ${list(demo.rounds.map((round) => round.cpuMs))}; newman ${list(newman.rounds.map((round) => round.cpuMs))}`,
    ),
    row(
      'obflow --help (median of 5) / node -e 0',
      help.ms,
      node.ms,
      'ms',
      { ratioAtMost: 4 },
      `rounds (ms): --help ${list(help.all)}; node -e 0 ${list(node.all)}`,
    ),
  ];
  // The run step as the demo prints it (a cold process: newman loads inside it) beside plain newman's whole process.
  if (runSteps.some((ms) => ms === undefined)) {
    rows.push({
      name: "demo's run step as printed",
      value: 'error',
      baseline: '—',
      ratio: '—',
      target: '—',
      ok: false,
      note: 'obflow demo printed no `run … (N ms)` line',
    });
  } else {
    rows.push(
      row(
        "demo's run step as printed (median of 5) / plain newman (whole flow)",
        median(runSteps),
        newman.ms,
        'ms',
        // 0.66–1.15 over the benches of one code.
        { ratioAtMost: 1.5 },
        `obflow demo's own \`run … (N ms)\` line, a cold process (newman loaded inside it); rounds (ms): ${runSteps.join(', ')}`,
      ),
    );
  }
  return rows;
}

/**
 * jo through newman — `obflow demo --psu-user jo` (the whole demo, 10,250 transactions paged through newman, the
 * embedded emulator in the same process) against plain `newman run` of the same whole-flow collection as jo on the
 * bench's bank (wall and peak RSS; the emulator is another process there), and against `obflow demo` for the default
 * user (information), 3 rounds interleaved, process start included.
 */
export async function joRows(fixture) {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-jo-'));
  const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
  const demo =
    (args, heap = {}) =>
    () =>
      timed(process.execPath, [obflowBin, 'demo', ...args], { env: { ...env, ...heap }, tmp, cwd: repo, usage: true });
  await demo([])();
  const newmanJo = plainNewman(fixture, await environmentAsJo(fixture));
  // The heap policy (src/cli/heap.ts) beside V8's own sizing, same rounds: what its memory costs in CPU.
  const v8Heap = { OBFLOW_HEAP: 'v8' };
  const contenders = {
    jo: demo(['--psu-user', 'jo']),
    alex: demo([]),
    newman: newmanJo,
    joV8: demo(['--psu-user', 'jo'], v8Heap),
    alexV8: demo([], v8Heap),
  };
  const { jo, alex, newman, joV8, alexV8 } = await interleaved(3, contenders).finally(() => rm(tmp, { recursive: true, force: true }));
  const cpu = (measured) => median(measured.rounds.map((round) => round.cpuMs));
  const rss = (measured) => median(measured.rounds.map((round) => round.peakRssMiB));
  const list = (values) => values.map(Math.round).join(', ');
  return [
    row(
      'jo through newman: obflow demo --psu-user jo / plain newman (whole flow as jo)',
      jo.ms,
      newman.ms,
      's',
      // The demo's process also runs the emulator that builds jo's 10,250 transactions; newman's emulator is another
      // process, on the other core.
      { ratioAtMost: 1.8 },
      `median of 3 interleaved; rounds (ms): jo ${list(jo.all)}, plain newman as jo ${list(newman.all)}, default user's demo ${list(alex.all)}; CPU (ms): jo ${list(jo.rounds.map((r) => r.cpuMs))}, default user ${list(alex.rounds.map((r) => r.cpuMs))}`,
    ),
    row(
      'jo: peak RSS, obflow demo --psu-user jo / plain newman (whole flow as jo)',
      rss(jo),
      rss(newman),
      'MiB',
      // The demo's process holds the emulator too (its bank of 10,250 transactions); newman's does not. Under V8's own
      // heap sizing (OBFLOW_HEAP=v8, the row below) it reads 1.2–1.4: the heap policy is what meets this bound.
      { ratioAtMost: 1.15 },
      `peak RSS of the demo's process (emulator included) and of newman's (emulator in another process), median of 3 interleaved; rounds (MiB): demo jo ${list(jo.rounds.map((r) => r.peakRssMiB))}, newman jo ${list(newman.rounds.map((r) => r.peakRssMiB))}, demo default user ${list(alex.rounds.map((r) => r.peakRssMiB))}; CPU (ms): newman jo ${list(newman.rounds.map((r) => r.cpuMs))}`,
    ),
    // Information: what the heap policy does for that row — the same demo under V8's own sizing, beside plain newman.
    row('jo: peak RSS, obflow demo --psu-user jo with OBFLOW_HEAP=v8 / plain newman (whole flow as jo)', rss(joV8), rss(newman), 'MiB'),
    ...[
      ['obflow demo --psu-user jo', jo, joV8],
      ['obflow demo', alex, alexV8],
    ].map(([what, lean, v8]) =>
      row(
        `heap policy's CPU: ${what}, lean heap / OBFLOW_HEAP=v8`,
        cpu(lean),
        cpu(v8),
        'ms',
        undefined,
        `user + system of the process, median of 3 interleaved; rounds (ms): lean ${list(lean.rounds.map((r) => r.cpuMs))}, v8 ${list(v8.rounds.map((r) => r.cpuMs))}; peak RSS (MiB): lean ${list(lean.rounds.map((r) => r.peakRssMiB))}, v8 ${list(v8.rounds.map((r) => r.peakRssMiB))}`,
      ),
    ),
  ];
}

/** The bench's environment with jo as the PSU (psu_login_hint). */
async function environmentAsJo(fixture) {
  const environment = JSON.parse(await readFile(fixture.environment, 'utf8'));
  const file = join(fixture.tmp, 'environment-jo-whole-flow.json');
  const values = environment.values.filter((entry) => entry.key !== 'psu_login_hint');
  values.push({ key: 'psu_login_hint', value: 'jo', type: 'default', enabled: true });
  await writeFile(file, JSON.stringify({ ...environment, values }));
  return file;
}

/** A round of plain `newman run` of the whole-flow collection with `environment` on the bench's bank. */
function plainNewman(fixture, environment) {
  return () =>
    timed(process.execPath, plainNewmanArgs(fixture, wholeFlowCollection, { environment }), {
      tmp: fixture.tmp,
      cwd: fixture.tmp,
      usage: true,
    });
}
