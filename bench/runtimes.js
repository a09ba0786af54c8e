// Start-up on each runtime (issue 24), run by bench/run.js after its other rows; also runnable alone:
// `node bench/runtimes.js` prints its table, `node bench/runtimes.js --prepare` first builds what the rows need.
//
//  obflow --help   on Node.js 24 (tools/runtimes.json)  vs  on this machine's Node.js, side by side (median of 5,
//                  interleaved; one untimed start first, so the module compile cache is warm where it is on)
//  compile cache   obflow --help on Node.js 24 with the cache  vs  the same with NODE_DISABLE_COMPILE_CACHE=1
//  obflow demo     what `npm start` runs once dist/ is current, on Node.js 24  vs  on this Node.js (median of 3)
//
// `npm run bench` fetches the runtime on first use (tools/runtime.js: the pinned build, checked against its integrity,
// into .cache/runtimes/) and builds better-sqlite3 for it once (npm's node-gyp against the runtime's headers, into
// .cache/native/node-<version>/; one to a few minutes), as it installs the generate peers on first use: so a clean
// clone measures every row. The rows run a copy of dist/ whose node_modules points at that build (every other package
// is this checkout's). When the fetch or the build fails (registry unreachable, no compiler), the rows say
// "not measured" and why (never a silent pass). `node bench/runtimes.js --prepare` does the same ahead of time.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { interleaved, obflowBin, printTable, repo, row, skipped, timed } from './lib.js';

const LINE = '24';
const cached = (line) => spawnSync(process.execPath, [join(repo, 'tools', 'runtime.js'), line, '--cached'], { encoding: 'utf8' });
const versionOf = (node) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

/** The folder of this runtime's better-sqlite3 build (a copy of the package with build/ made for it). */
const nativeDir = (version) => join(repo, '.cache', 'native', `node-${version}`, 'better-sqlite3');
const nativeBuilt = (version) => existsSync(join(nativeDir(version), 'build', 'Release', 'better_sqlite3.node'));

/** The folder holding the pinned runtime's `node`, fetching it first when needed; { bin } or { why }. */
export function fetchRuntime(line = LINE) {
  const found = cached(line);
  if (found.status === 0) return { bin: found.stdout.trim() };
  console.error(`bench: fetching Node.js ${line} (tools/runtime.js, pinned with its integrity; first use)…`);
  const fetched = spawnSync(process.execPath, [join(repo, 'tools', 'runtime.js'), line], { encoding: 'utf8' });
  if (fetched.status === 0) return { bin: fetched.stdout.trim() };
  return { why: `Node.js ${line} could not be fetched: ${(fetched.stderr || `exit ${fetched.status}`).trim().split('\n')[0]}` };
}

/** Builds better-sqlite3 for the runtime in `bin` (npm's node-gyp, the runtime's headers). */
export function prepareNative(bin, stdio = 'inherit') {
  const node = join(bin, 'node');
  const version = versionOf(node);
  if (nativeBuilt(version)) return;
  const target = nativeDir(version);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(repo, 'node_modules', 'better-sqlite3'), target, {
    recursive: true,
    filter: (path) => !path.includes(`${join('better-sqlite3', 'build')}`),
  });
  const npm = realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim());
  const nodeGyp = join(dirname(npm), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const home = dirname(bin);
  // Without npm's own environment: under `npm run bench`, node-gyp took npm's npm_config_* settings (and built for the
  // Node.js running npm, ABI 115, whatever --nodedir said); seen 2026-11-25.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const result = spawnSync(node, [nodeGyp, 'rebuild', '--release', `--nodedir=${home}`], { cwd: target, stdio, env });
  if (result.status !== 0) {
    const tail =
      String(result.stderr ?? '')
        .trim()
        .split('\n')
        .at(-1) ?? '';
    throw new Error(`building better-sqlite3 for ${version} failed${tail ? `: ${tail}` : ''}`);
  }
  // The build must load in the runtime it is for (an addon built for another ABI would fail every demo round).
  const check = spawnSync(node, ['-e', `new (require(${JSON.stringify(target)}))(':memory:').close()`], { encoding: 'utf8' });
  if (check.status !== 0) {
    rmSync(target, { recursive: true, force: true });
    throw new Error(`better-sqlite3 built for ${version} does not load there: ${check.stderr.trim().split('\n')[0]}`);
  }
}

/** A copy of dist/ beside a node_modules that is this checkout's, except better-sqlite3 built for `version`. */
function shadowFor(version) {
  const shadow = mkdtempSync(join(tmpdir(), 'obflow-bench-runtime-'));
  cpSync(join(repo, 'dist'), join(shadow, 'dist'), { recursive: true });
  cpSync(join(repo, 'package.json'), join(shadow, 'package.json'));
  for (const name of ['templates', 'collections', 'obflow.config.schema.json']) {
    if (existsSync(join(repo, name))) symlinkSync(join(repo, name), join(shadow, name));
  }
  mkdirSync(join(shadow, 'node_modules'));
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === 'better-sqlite3' || name === '.cache') continue;
    symlinkSync(join(repo, 'node_modules', name), join(shadow, 'node_modules', name));
  }
  symlinkSync(nativeDir(version), join(shadow, 'node_modules', 'better-sqlite3'));
  return shadow;
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
  if (fetch && !nativeBuilt(version)) {
    console.error(`bench: building better-sqlite3 for ${version} into .cache/native (first use; a few minutes)…`);
    try {
      prepareNative(bin, ['ignore', 'ignore', 'pipe']);
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

    if (!nativeBuilt(version)) {
      rows.push(
        skipped(
          `obflow demo on ${version} / on ${here}`,
          nativeWhy ?? `better-sqlite3 is built for ${here} here; \`node bench/runtimes.js --prepare\` builds it for ${version} once`,
        ),
      );
    } else {
      const shadow = shadowFor(version);
      try {
        const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
        const demo = (node, main) => () => timed(node, [main, 'demo'], { tmp, env, cwd: tmp });
        const shadowMain = join(shadow, 'dist', 'cli', 'main.js');
        await demo(other, shadowMain)();
        const runs = await interleaved(3, { other: demo(other, shadowMain), here: demo(process.execPath, obflowBin) });
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
      } finally {
        rmSync(shadow, { recursive: true, force: true });
      }
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
    prepareNative(found.bin);
  }
  printTable(await runtimeRows());
}
