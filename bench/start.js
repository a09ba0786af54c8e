// `npm start` as a user runs it (identity present: one untimed run first issues it), median of 5, against `obflow demo`
// run directly by node (what npm and the start-up build check add); and `obflow --help` against `node -e 0`.
// State and collections go to a temporary folder (OBFLOW_STATE_DIR, OBFLOW_OUTPUT__COLLECTIONS), not the checkout's.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, obflowBin, repo, row, timed } from './lib.js';

export async function startRows() {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-start-'));
  const env = { OBFLOW_STATE_DIR: join(tmp, 'state'), OBFLOW_OUTPUT__COLLECTIONS: join(tmp, 'collections') };
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await timed(npm, ['start'], { env, tmp });
  const { start, demo, help, node } = await interleaved(5, {
    start: () => timed(npm, ['start'], { env, tmp }),
    demo: () => timed(process.execPath, [obflowBin, 'demo'], { env, tmp, cwd: repo }),
    help: () => timed(process.execPath, [obflowBin, '--help'], { tmp }),
    node: () => timed(process.execPath, ['-e', '0'], { tmp }),
  }).finally(() => rm(tmp, { recursive: true, force: true }));
  return [
    row(
      'npm start (median of 5) / obflow demo',
      start.ms,
      demo.ms,
      's',
      { figureAtMost: 2000 },
      `rounds (ms): npm start ${start.all.map(Math.round).join(', ')}; demo ${demo.all.map(Math.round).join(', ')}`,
    ),
    row('obflow --help / node -e 0', help.ms, node.ms, 'ms'),
  ];
}
