// `npm start` in one process (no second node process for the start): the start script is the build check with `--then demo`, which runs
// obflow in the build check's own process once dist/ is current — no prestart, no second node process — and obflow's
// arguments and exit code pass through unchanged. (The demo itself is runtimes.test.ts's.)

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const build = join(root, 'tools', 'build.js');
const run = (args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync(process.execPath, [build, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

describe('npm start: the build check, then obflow in the same process', () => {
  it('is `node tools/build.js --then demo`, with no prestart', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe('node tools/build.js --then demo');
    expect(scripts.prestart).toBeUndefined();
  });

  it('runs obflow with the arguments after --then, exit code 0', () => {
    const help = run(['--then', 'demo', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('obflow demo');
  });

  it("passes obflow's exit code and coded error through (a usage error: 2)", () => {
    const bad = run(['--then', 'demo', '--no-such-flag']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: ERR_USAGE/m);
  });

  it('without --then it only checks the build (exit 0, nothing on stdout)', () => {
    const check = run([]);
    expect(check.status).toBe(0);
    expect(check.stdout).toBe('');
  });
});
