// Start-up on each runtime (README "Supported Node.js"), run by bench/run.js after its other rows; also runnable alone:
// `node bench/runtimes.js` prints its table, `node bench/runtimes.js --prepare` first builds what the rows need.
//
//  obflow --help   on Node.js 24 (tools/runtimes.json)  vs  on this machine's Node.js, side by side (median of 5,
//                  interleaved; one untimed start first, so the module compile cache is warm where it is on)
//  compile cache   obflow --help on Node.js 24 with the cache  vs  the same with NODE_DISABLE_COMPILE_CACHE=1
//  obflow demo     what `npm start` runs once dist/ is current, on Node.js 24  vs  on this Node.js (median of 3)
//
// `npm run bench` fetches the runtime on first use (tools/runtime.js: the pinned build, checked against its integrity,
// into .cache/runtimes/) and has better-sqlite3 built for it once (tools/native.js: kept per runtime ABI outside the
// clone, ~/.cache/obflow/native, as .ci/run and a switch of Node.js use it; one to a few minutes the first time), as it
// installs the generate peers on first use: so a clean clone measures every row. The demo rows run this checkout's
// dist/ on both runtimes: each loads the build kept for it. When the fetch or the build fails (registry unreachable,
// no compiler), the rows say "not measured" and why (never a silent pass). `node bench/runtimes.js --prepare` does the
// same ahead of time.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, obflowBin, printTable, repo, row, skipped, timed } from './lib.js';

const LINE = '24';
const cached = (line) => spawnSync(process.execPath, [join(repo, 'tools', 'runtime.js'), line, '--cached'], { encoding: 'utf8' });
const versionOf = (node) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

/** Whether a build of better-sqlite3 is kept for pinned line `line` (tools/native.js --cached; never builds). */
const nativeBuilt = (line) =>
  spawnSync(process.execPath, [join(repo, 'tools', 'native.js'), line, '--cached'], { encoding: 'utf8' }).status === 0;

/** The folder holding the pinned runtime's `node`, fetching it first when needed; { bin } or { why }. */
export function fetchRuntime(line = LINE) {
  const found = cached(line);
  if (found.status === 0) return { bin: found.stdout.trim() };
  console.error(`bench: fetching Node.js ${line} (tools/runtime.js, pinned with its integrity; first use)…`);
  const fetched = spawnSync(process.execPath, [join(repo, 'tools', 'runtime.js'), line], { encoding: 'utf8' });
  if (fetched.status === 0) return { bin: fetched.stdout.trim() };
  return { why: `Node.js ${line} could not be fetched: ${(fetched.stderr || `exit ${fetched.status}`).trim().split('\n')[0]}` };
}

/** Has better-sqlite3 built for pinned line `line` and kept (tools/native.js: compiled against that runtime's headers,
 *  checked to load there); throws with the tool's reason when it cannot. */
export function prepareNative(line = LINE, stdio = 'inherit') {
  if (nativeBuilt(line)) return;
  const result = spawnSync(process.execPath, [join(repo, 'tools', 'native.js'), line], { stdio, encoding: 'utf8' });
  if (result.status !== 0) {
    const why = String(result.stderr ?? '')
      .trim()
      .split('\n')
      .find((text) => text.startsWith('native:'));
    throw new Error(why ?? `tools/native.js ${line} exited ${result.status}`);
  }
}

export async function runtimeRows({ fetch = true } = {}) {
  const here = process.version;
  const found = fetch ? fetchRuntime() : cached(LINE).status === 0 ? { bin: cached(LINE).stdout.trim() } : { why: 'not fetched' };
  if (found.bin === undefined) {
    return [
      skipped(`obflow --help on Node.js ${LINE} / on ${here}`, found.why),
      skipped(`obflow demo on Node.js ${LINE} / on ${here}`, found.why),
    ];
  }
  const bin = found.bin;
  const other = join(bin, 'node');
  const version = versionOf(other);
  let nativeWhy;
  if (fetch && !nativeBuilt(LINE)) {
    console.error(`bench: building better-sqlite3 for ${version} (tools/native.js; first use on this machine, a few minutes)…`);
    try {
      prepareNative(LINE, ['ignore', 'ignore', 'pipe']);
    } catch (error) {
      nativeWhy = String(error.message ?? error);
    }
  }
  const tmp = mkdtempSync(join(tmpdir(), 'obflow-bench-runtimes-'));
  const rows = [];
  try {
    const help =
      (node, env = {}) =>
      () =>
        timed(node, [obflowBin, '--help'], { tmp, env });
    await help(other)();
    await help(process.execPath)();
    const startUp = await interleaved(5, {
      other: help(other),
      here: help(process.execPath),
      uncached: help(other, { NODE_DISABLE_COMPILE_CACHE: '1' }),
    });
    rows.push(row(`obflow --help on ${version} / on ${here}`, startUp.other.ms, startUp.here.ms, 'ms'));
    rows.push(row(`obflow --help on ${version}: compile cache / without`, startUp.other.ms, startUp.uncached.ms, 'ms'));

    if (!nativeBuilt(LINE)) {
      rows.push(
        skipped(
          `obflow demo on ${version} / on ${here}`,
          nativeWhy ?? `no better-sqlite3 build is kept for ${version}; \`node tools/native.js ${LINE}\` builds it once`,
        ),
      );
    } else {
      const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
      const demo = (node) => () => timed(node, [obflowBin, 'demo'], { tmp, env, cwd: tmp });
      await demo(other)();
      const runs = await interleaved(3, { other: demo(other), here: demo(process.execPath) });
      rows.push(
        row(
          `obflow demo (npm start) on ${version} / on ${here}`,
          runs.other.ms,
          runs.here.ms,
          's',
          undefined,
          `rounds (ms): ${version} ${runs.other.all.map(Math.round).join(', ')}; ${here} ${runs.here.all.map(Math.round).join(', ')}`,
        ),
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === import.meta.filename) {
  if (process.argv.includes('--prepare')) {
    const found = fetchRuntime();
    if (found.bin === undefined) throw new Error(found.why);
    prepareNative();
  }
  printTable(await runtimeRows());
}
