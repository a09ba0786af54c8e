// One temporary folder per test run: every mkdtemp(tmpdir()) of the tests, helpers and the processes they spawn lands
// in it (TMPDIR is set before the workers fork; they inherit the environment), and teardown removes it whole.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { processAlive as alive } from '../src/state/addresses.js';

const PREFIX = 'obflow-tests-';

/** A run ended by a signal (Ctrl-C) skips teardown: remove the folders of runs whose vitest process is gone. */
async function removeStaleRuns(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^obflow-tests-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid)) {
      await rm(join(base, name), { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const previous = process.env.TMPDIR;
  const base = tmpdir();
  // vitest runs a global setup once for the root config and again for each project (vitest.config.ts has two): the
  // first one's folder serves them all (nested ones would push Chromium's socket paths past the 108-byte limit).
  if (basename(base).startsWith(`${PREFIX}${process.pid}-`)) return async () => undefined;
  await removeStaleRuns(base);
  const dir = await mkdtemp(join(base, `${PREFIX}${process.pid}-`));
  // os.tmpdir() reads TMPDIR on every call; vitest builds the workers' environment from process.env after this setup.
  process.env.TMPDIR = dir;
  return async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(dir, { recursive: true, force: true });
  };
}
