// The compile caches a start turns on (src/cli/compile-cache.ts): Node.js's own module cache where Node.js offers it
// (none on Node.js 20: obflow patches no module loader to add one), the HTML pages' templates on every Node.js, and
// neither with NODE_DISABLE_COMPILE_CACHE=1. Each case is a child process: the caches are turned on once per process.

import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import module from 'node:module';
import { resolve } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { tempDirSync } from '../helpers/temp.js';

const DIST = resolve(import.meta.dirname, '..', '..', 'dist');

let scratch: string | undefined;
afterEach(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** Runs `lines` (an ES module's body, `m` the compile-cache module, enabled before them) in a child; its stdout. */
function started(lines: string[], env: Record<string, string>): string {
  const script = [`const m = await import(${JSON.stringify(`${DIST}/cli/compile-cache.js`)});`, ...lines].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    cwd: resolve(DIST, '..'),
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim();
}

describe('the compile caches of a start', () => {
  const offered = typeof (module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';

  it(`is ${offered ? "Node.js's own (module.enableCompileCache)" : 'no module cache on this Node.js'}, and off with NODE_DISABLE_COMPILE_CACHE=1`, () => {
    scratch = tempDirSync('obflow-compile-cache-');
    const kind = (env: Record<string, string>) => started(['console.log(m.enableCompileCache(process.env));'], env);
    expect(kind({ NODE_COMPILE_CACHE: scratch })).toBe(offered ? 'module' : 'none');
    expect(kind({ NODE_COMPILE_CACHE: scratch, NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('none');
    expect(existsSync(scratch)).toBe(true);
  });

  it("keeps the HTML pages' compiled templates (src/run/reporters/template-cache.ts), and not when turned off", () => {
    scratch = tempDirSync('obflow-compile-cache-');
    const lines = [
      "const Handlebars = (await import('handlebars')).default;",
      `const t = await import(${JSON.stringify(`${DIST}/run/reporters/template-cache.js`)});`,
      'm.enableCompileCache(process.env);',
      "t.compileTemplate(Handlebars.create(), '<p>{{x}}</p>');",
      'console.log(JSON.stringify(t.templateCacheStats()));',
    ];
    const stats = (env: Record<string, string>) => JSON.parse(started(lines, env)) as unknown;
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 0, misses: 1 });
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 1, misses: 0 });
    expect(stats({ NODE_COMPILE_CACHE: scratch, NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ hits: 0, misses: 0 });
  });
});
