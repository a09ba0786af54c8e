// The default demo beside the same demo before AIS v4.0 support (the default demo must be no slower than before it,
// measured in the same run), run by bench/run.js after its other rows; also runnable alone: `node bench/versions.js`
// prints its table (build dist/ first: `node tools/build.js`).
//
//  obflow demo     `obflow demo` (v3.1, the default) of this checkout  vs  the same of the commit before AIS v4.0's
//                  first (BEFORE below, or OBFLOW_BENCH_BEFORE=<rev>), built from `git archive` in a temporary folder
//                  with this checkout's node_modules; median of 5, interleaved, one untimed demo of each first (it issues
//                  the identity), each in its own folder. Target: ratio ≤ 1.10 (the machine is shared: a few % of noise
//                  either way; the v4.0 work adds one table lookup per step build and one list check per run).
//
// The figure covers everything merged since BEFORE, not only AIS v4.0: a miss says "look", not "v4.0 did it".

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, obflowBin, printTable, repo, row, skipped, timed } from './lib.js';

/** The parent of AIS v4.0's first commit (2bb1ad1, "Version choice"): obflow before AIS v4.0. */
export const BEFORE = '232b4b5';

const NAME = 'obflow demo (default, AIS v3.1) / before AIS v4.0';

/** `rev` of this repository built in `dir` (git archive + this checkout's node_modules + tools/build.js); the path of
 *  its CLI, or throws naming the step that failed. */
function buildBefore(rev, dir) {
  const run = (command, args, options = {}) => {
    const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...options });
    if (result.status !== 0)
      throw new Error(`${[command, ...args].join(' ')}: ${(result.stderr || `exit ${result.status}`).trim().split('\n')[0]}`);
    return result.stdout;
  };
  const tar = join(dir, 'before.tar');
  run('git', ['-C', repo, 'archive', '--format=tar', '-o', tar, rev]);
  const checkout = join(dir, 'before');
  run('mkdir', ['-p', checkout]);
  run('tar', ['-xf', tar, '-C', checkout]);
  symlinkSync(join(repo, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  run(process.execPath, [join(checkout, 'tools', 'build.js')], { cwd: checkout });
  return join(checkout, 'dist', 'cli', 'main.js');
}

export async function versionRows() {
  const rev = process.env.OBFLOW_BENCH_BEFORE ?? BEFORE;
  const tmp = mkdtempSync(join(tmpdir(), 'obflow-bench-versions-'));
  try {
    let beforeBin;
    try {
      beforeBin = buildBefore(rev, tmp);
    } catch (error) {
      return [skipped(NAME, `obflow at ${rev} could not be built: ${String(error.message ?? error)}`)];
    }
    // Each its own folder: state (identity, registrations), collections and reports apart.
    const demo = (bin, name) => () =>
      timed(process.execPath, [bin, 'demo'], {
        tmp,
        cwd: tmp,
        env: { OBFLOW_STATE_DIR: join(tmp, name, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, name, 'collections') },
      });
    await demo(obflowBin, 'now')();
    await demo(beforeBin, 'before')();
    const runs = await interleaved(5, { now: demo(obflowBin, 'now'), before: demo(beforeBin, 'before') });
    return [
      row(
        NAME,
        runs.now.ms,
        runs.before.ms,
        's',
        { ratioAtMost: 1.1 },
        `same run, interleaved; before = ${rev}; rounds (ms): now ${runs.now.all.map(Math.round).join(', ')}; before ${runs.before.all.map(Math.round).join(', ')}`,
      ),
    ];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) printTable(await versionRows());
