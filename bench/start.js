// `npm start` as a user runs it (identity present: one untimed run first issues it), median of 5, against `obflow demo`
// run directly by node (what npm and the start-up build check add); `obflow --help` against `node -e 0`; the demo's
// run step as the demo prints it (`run … (N ms)`: a cold process, newman's loading included); and jo through newman
// (`obflow demo --psu-user jo`, the case of issue 21) against the default user's demo, wall and peak RSS; and the heap
// policy's CPU (src/cli/heap.ts) beside V8's own sizing (OBFLOW_HEAP=v8), both demos, same rounds.
// State and collections go to a temporary folder (OBFLOW_STATE_DIR, OBFLOW_OUTPUT__COLLECTIONS), not the checkout's.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, median, newmanBin, obflowBin, repo, row, timed } from './lib.js';

const wholeFlowCollection = join(repo, 'collections', 'obflow-ais.postman_collection.json');

/** The run step's time as `obflow demo` prints it (`run          newman, 14 steps, … (1987 ms)`), or undefined. */
export function printedRunStep(stdout) {
  const match = /^run\s.*\((\d+) ms\)\s*$/m.exec(stdout);
  return match ? Number(match[1]) : undefined;
}

export async function startRows() {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-start-'));
  const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await timed(npm, ['start'], { env, tmp });
  const { start, demo, help, node } = await interleaved(5, {
    start: () => timed(npm, ['start'], { env, tmp }),
    demo: () => timed(process.execPath, [obflowBin, 'demo'], { env, tmp, cwd: repo, usage: true }),
    help: () => timed(process.execPath, [obflowBin, '--help'], { tmp }),
    node: () => timed(process.execPath, ['-e', '0'], { tmp }),
  }).finally(() => rm(tmp, { recursive: true, force: true }));
  const runSteps = demo.rounds.map((round) => printedRunStep(round.stdout));
  const rows = [
    row(
      'npm start (median of 5) / obflow demo',
      start.ms,
      demo.ms,
      's',
      // Issue 34: ≤ 1.8 s (issue 21 set 2.0 s).
      { figureAtMost: 1800 },
      `rounds (ms): npm start ${start.all.map(Math.round).join(', ')}; demo ${demo.all.map(Math.round).join(', ')}`,
    ),
    // Issue 34: "the demo's own CPU down by the same share" (as npm start's 2.0 → 1.8 s): information beside the wall,
    // to compare between two benches (CPU survives load where walls do not).
    row(
      "obflow demo's own CPU (median of 5)",
      median(demo.rounds.map((round) => round.cpuMs)),
      undefined,
      'ms',
      undefined,
      `user + system of the demo's process; rounds (ms): ${demo.rounds.map((round) => Math.round(round.cpuMs)).join(', ')}`,
    ),
    row(
      'obflow --help (median of 5) / node -e 0',
      help.ms,
      node.ms,
      'ms',
      { figureAtMost: 200 },
      `rounds (ms): --help ${help.all.map(Math.round).join(', ')}; node -e 0 ${node.all.map(Math.round).join(', ')}`,
    ),
  ];
  // Issue 21: "the demo's run step ≤ 1.5 s", as the demo prints it; beside the demo's whole wall of the same rounds.
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
        "demo's run step as printed (median of 5) / the demo's wall",
        median(runSteps),
        demo.ms,
        'ms',
        { figureAtMost: 1500 },
        `obflow demo's own \`run … (N ms)\` line, a cold process (newman loaded inside it); rounds (ms): ${runSteps.join(', ')}`,
      ),
    );
  }
  return rows;
}

/**
 * Issue 21: "jo through newman: ≤ 5.0 s wall", and issue 34: "≤ 200 MiB peak RSS, measured side by side with plain
 * newman" — `obflow demo --psu-user jo` (the issues' measurement: the whole demo, 10,250 transactions paged through
 * newman, the embedded emulator in the same process) against `obflow demo` for the default user (wall) and against
 * plain `newman run` of the same whole-flow collection as jo on the bench's bank (peak RSS; the emulator is another
 * process there), 3 rounds interleaved, process start included.
 */
export async function joRows(fixture) {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-jo-'));
  const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
  const demo =
    (args, heap = {}) =>
    () =>
      timed(process.execPath, [obflowBin, 'demo', ...args], { env: { ...env, ...heap }, tmp, cwd: repo, usage: true });
  await demo([])();
  const newmanJo = await plainNewmanAsJo(fixture);
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
      'jo through newman: obflow demo --psu-user jo / obflow demo',
      jo.ms,
      alex.ms,
      's',
      { figureAtMost: 5000 },
      `median of 3 interleaved; rounds (ms): jo ${list(jo.all)}, default user ${list(alex.all)}; CPU (ms): jo ${list(jo.rounds.map((r) => r.cpuMs))}, default user ${list(alex.rounds.map((r) => r.cpuMs))}`,
    ),
    row(
      'jo: peak RSS, obflow demo --psu-user jo / plain newman (whole flow as jo)',
      rss(jo),
      rss(newman),
      'MiB',
      { figureAtMost: 200 },
      `peak RSS of the demo's process (emulator included) and of newman's (emulator in another process), median of 3 interleaved; rounds (MiB): demo jo ${list(jo.rounds.map((r) => r.peakRssMiB))}, newman jo ${list(newman.rounds.map((r) => r.peakRssMiB))}, demo default user ${list(alex.rounds.map((r) => r.peakRssMiB))}; CPU (ms): newman jo ${list(newman.rounds.map((r) => r.cpuMs))}`,
    ),
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

/** A round of plain `newman run` of the whole-flow collection as jo (psu_login_hint) on the bench's bank. */
async function plainNewmanAsJo(fixture) {
  const environment = JSON.parse(await readFile(fixture.environment, 'utf8'));
  const file = join(fixture.tmp, 'environment-jo-whole-flow.json');
  const values = environment.values.filter((entry) => entry.key !== 'psu_login_hint');
  values.push({ key: 'psu_login_hint', value: 'jo', type: 'default', enabled: true });
  await writeFile(file, JSON.stringify({ ...environment, values }));
  return () =>
    timed(
      process.execPath,
      [
        newmanBin,
        'run',
        wholeFlowCollection,
        '--environment',
        file,
        '--ssl-client-cert-list',
        fixture.certList,
        '--ssl-extra-ca-certs',
        fixture.caBundle,
      ],
      { tmp: fixture.tmp, cwd: fixture.tmp, usage: true },
    );
}
