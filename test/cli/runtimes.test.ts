// obflow on the Node.js that runs it (README "Supported Node.js"): `obflow demo` (what `npm start` runs) in its own process completes
// the whole flow with nothing on stderr from the runtime (no native abort, no deprecation warning) — .ci/run runs this
// file on the machine's Node.js and on the pinned 24 and 26; and the built CLI started by a Node.js whose
// NODE_MODULE_VERSION differs from the one its native modules were built for says so in one coded line
// (ERR_NATIVE_MODULE naming better-sqlite3 and `npm rebuild`), never that the sandbox's data is damaged — unless a build
// is kept for that runtime (tools/native.js): then it runs the demo with no rebuild.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { describeWith, type Prerequisite } from '../helpers/prerequisites.js';
import { OTHER_NODE, otherRuntime } from '../helpers/runtimes.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-runtimes-');

function obflow(
  node: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(node, [MAIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

beforeAll(async () => {
  const init = await runCli(['init', '--quiet'], { cwd });
  expect(init.code, init.stderr).toBe(0);
});

describe(`obflow demo on this Node.js (${process.version})`, () => {
  it('completes the whole flow: exit 0, every step passed, no abort and no warning from the runtime', async () => {
    const result = await obflow(process.execPath, ['demo']);
    expect(result.stderr).not.toMatch(/Assertion failed|DeprecationWarning|ExperimentalWarning|Native stack trace/);
    expect({ code: result.code, signal: result.signal }, result.stderr).toEqual({ code: 0, signal: null });
    expect(result.stdout).toMatch(/^steps passed: (\d+)\/\1 \([^)]*\), 0 skipped$/m);
  }, 120_000);
});

describe('the module compile cache (module.enableCompileCache, Node.js ≥ 22.1)', () => {
  const offered = typeof (module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'obflow-compile-cache');
  it(
    offered ? 'is on: a start leaves compiled code in node_modules/.cache' : 'is not offered by Node.js 20: nothing is written',
    async () => {
      // Node.js 20: a folder of its own, as other test files' obflow processes (run at the same time by other vitest
      // workers) write their CommonJS code cache into the shared one.
      const folder = offered ? CACHE : join(cwd, 'compile-cache');
      rmSync(folder, { recursive: true, force: true });
      const result = await obflow(process.execPath, ['--help'], { NODE_COMPILE_CACHE: offered ? undefined : folder });
      expect(result.code, result.stderr).toBe(0);
      const files = existsSync(folder) ? readdirSync(folder, { recursive: true }).length : 0;
      if (offered) expect(files).toBeGreaterThan(0);
      else expect(files).toBe(0);
    },
  );
});

describeWith(otherRuntime, 'native modules built for another Node.js', () => {
  it('ERR_NATIVE_MODULE names better-sqlite3, both runtimes and `npm rebuild`: exit 2, no stack, not "remove the data"', async () => {
    // No build kept for that runtime (an empty native cache): only the package's own, built for this Node.js.
    const result = await obflow(OTHER_NODE, ['demo'], { OBFLOW_NATIVE_CACHE: join(cwd, 'no-native-builds') });
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^error: ERR_NATIVE_MODULE the native module better-sqlite3 cannot be loaded: it was built for /);
    expect(lines[0]).toContain('NODE_MODULE_VERSION');
    expect(lines[1]).toMatch(/^hint: .*`npm rebuild better-sqlite3`/);
    expect(lines).toHaveLength(2);
    expect(result.stderr).not.toMatch(/sandbox\.db|Repair or remove|ERR_SANDBOX_DATA/);
  }, 60_000);
});

/** The build of better-sqlite3 kept for OTHER_NODE's runtime (tools/native.js; .ci/run keeps one per pinned line before
 *  its first pass), as `tools/native.js <line> --cached` finds it. */
function keptForOther(): string | undefined {
  if (OTHER_NODE === '') return undefined;
  const found = spawnSync(OTHER_NODE, [join(import.meta.dirname, '..', '..', 'tools', 'native.js'), '--where'], { encoding: 'utf8' });
  const addon = join(found.stdout.trim(), 'better_sqlite3.node');
  return found.status === 0 && existsSync(addon) ? addon : undefined;
}
const kept = keptForOther();
const keptBuild: Prerequisite = {
  id: 'runtime',
  what: `a build of better-sqlite3 kept for ${OTHER_NODE || 'another Node.js'} (tools/native.js)`,
  missing:
    otherRuntime.missing ?? (kept === undefined ? 'none kept: run `node tools/native.js 24` (or the line of that runtime)' : undefined),
};

describeWith(keptBuild, 'switching Node.js with a build kept for each runtime (README "Supported Node.js")', () => {
  it('obflow demo on the other Node.js completes with no rebuild: the kept build is loaded, node_modules untouched', async () => {
    const own = join(import.meta.dirname, '..', '..', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    const before = statSync(own).mtimeMs;
    const result = await obflow(OTHER_NODE, ['demo']);
    expect(result.stderr).not.toMatch(/ERR_NATIVE_MODULE|Assertion failed|Native stack trace/);
    expect({ code: result.code, signal: result.signal }, result.stderr).toEqual({ code: 0, signal: null });
    expect(result.stdout).toMatch(/^steps passed: (\d+)\/\1 \([^)]*\), 0 skipped$/m);
    expect(statSync(own).mtimeMs).toBe(before);
  }, 120_000);
});
