// obflow on the Node.js that runs it (issue 24): `obflow demo` (what `npm start` runs) in its own process completes
// the whole flow with nothing on stderr from the runtime (no native abort, no deprecation warning) — .ci/run runs this
// file on the machine's Node.js and on the pinned 24 and 26; and the built CLI started by a Node.js whose
// NODE_MODULE_VERSION differs from the one its native modules were built for says so in one coded line
// (ERR_NATIVE_MODULE naming better-sqlite3 and `npm rebuild`), never that the sandbox's data is damaged.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { describeWith } from '../helpers/prerequisites.js';
import { OTHER_NODE, otherRuntime } from '../helpers/runtimes.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = mkdtempSync(join(tmpdir(), 'obflow-runtimes-'));

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
    expect(result.stdout).toMatch(/^steps passed: (\d+)\/\1, 0 skipped$/m);
  }, 120_000);
});

describe('the module compile cache (module.enableCompileCache, Node.js ≥ 22.1)', () => {
  const offered = typeof (module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'obflow-compile-cache');
  it(
    offered ? 'is on: a start leaves compiled code in node_modules/.cache' : 'is not offered by Node.js 20: nothing is written',
    async () => {
      rmSync(CACHE, { recursive: true, force: true });
      const result = await obflow(process.execPath, ['--help'], { NODE_COMPILE_CACHE: undefined });
      expect(result.code, result.stderr).toBe(0);
      const files = existsSync(CACHE) ? readdirSync(CACHE, { recursive: true }).length : 0;
      if (offered) expect(files).toBeGreaterThan(0);
      else expect(files).toBe(0);
    },
  );
});

describeWith(otherRuntime, 'native modules built for another Node.js', () => {
  it('ERR_NATIVE_MODULE names better-sqlite3, both runtimes and `npm rebuild`: exit 2, no stack, not "remove the data"', async () => {
    const result = await obflow(OTHER_NODE, ['demo']);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^error: ERR_NATIVE_MODULE the native module better-sqlite3 cannot be loaded: it was built for /);
    expect(lines[0]).toContain('NODE_MODULE_VERSION');
    expect(lines[1]).toMatch(/^hint: .*`npm rebuild better-sqlite3`/);
    expect(lines).toHaveLength(2);
    expect(result.stderr).not.toMatch(/sandbox\.db|Repair or remove|ERR_SANDBOX_DATA/);
  }, 60_000);
});
