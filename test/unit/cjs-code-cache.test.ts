// The CommonJS code cache of a Node.js without module.enableCompileCache (src/cli/cjs-code-cache.ts, issue 21): a
// second start takes the code V8 compiled in the first, a changed file is compiled anew (even at the same length,
// which V8's own check would not see), and a cache folder that cannot be written or a damaged cache only costs
// speed. Each case is a child process: the hook patches the CommonJS loader of the process that installs it.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { join, resolve } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { cacheFileName } from '../../src/cli/cjs-code-cache.js';
import { tempDirSync } from '../helpers/temp.js';

const DIST = resolve(import.meta.dirname, '..', '..', 'dist');

let scratch: string | undefined;
afterEach(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A project with one CommonJS package (two files, one requiring the other) and a script that loads it. */
function project(): string {
  scratch = tempDirSync('obflow-cjs-cache-');
  const pkg = join(scratch, 'node_modules', 'fixture');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{ "name": "fixture", "main": "index.js" }\n');
  writeFileSync(
    join(pkg, 'index.js'),
    "const other = require('./other.js');\nmodule.exports = { value: 1, other, resolved: require.resolve('./other.js'), self: __filename };\n",
  );
  writeFileSync(join(pkg, 'other.js'), "module.exports = 'other';\n");
  writeFileSync(
    join(scratch, 'load.mjs'),
    [
      "import { createRequire } from 'node:module';",
      'const [dist, cacheDir, cacheable] = process.argv.slice(2);',
      "const { installCjsCodeCache, cjsCodeCacheStats } = await import(dist + '/cli/cjs-code-cache.js');",
      "const installed = installCjsCodeCache(cacheDir, [], () => cacheable !== 'not-cacheable');",
      "const loaded = createRequire(import.meta.url)('fixture');",
      'console.log(JSON.stringify({ installed, loaded, stats: cjsCodeCacheStats() }));',
      '',
    ].join('\n'),
  );
  return scratch;
}

function load(dir: string, cacheDir: string, ...more: string[]) {
  const run = spawnSync(process.execPath, [join(dir, 'load.mjs'), DIST, cacheDir, ...more], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    installed: boolean;
    loaded: { value: number; other: string; resolved: string; self: string };
    stats: { hits: number; misses: number };
  };
}

describe('the CommonJS code cache', () => {
  it('compiles from source once, then takes the cached code; a file changed at the same length is compiled anew', () => {
    const dir = project();
    const cacheDir = join(dir, 'cache');
    const first = load(dir, cacheDir);
    expect(first.installed).toBe(true);
    expect(first.stats).toEqual({ hits: 0, misses: 2 });
    expect(first.loaded).toEqual({
      value: 1,
      other: 'other',
      resolved: join(dir, 'node_modules', 'fixture', 'other.js'),
      self: join(dir, 'node_modules', 'fixture', 'index.js'),
    });
    expect(readdirSync(cacheDir)).toEqual([
      expect.stringMatching(new RegExp(`^cjs-${process.version}-${process.arch}(-[0-9a-f]{8})?\\.cache$`)),
    ]);

    expect(load(dir, cacheDir)).toEqual({ ...first, stats: { hits: 2, misses: 0 } });

    const index = join(dir, 'node_modules', 'fixture', 'index.js');
    writeFileSync(index, readFileSync(index, 'utf8').replace('value: 1', 'value: 2'));
    const changed = load(dir, cacheDir);
    expect(changed.loaded.value).toBe(2);
    expect(changed.stats).toEqual({ hits: 1, misses: 1 });
    expect(load(dir, cacheDir).stats).toEqual({ hits: 2, misses: 0 });
  });

  // While the heap policy's late flag is set (src/cli/heap.ts), code cached then would be rejected at the next start.
  it('leaves a file loaded while not cacheable to Node.js: nothing read, nothing written', () => {
    const dir = project();
    const cacheDir = join(dir, 'cache');
    expect(load(dir, cacheDir, 'not-cacheable')).toMatchObject({ loaded: { value: 1 }, stats: { hits: 0, misses: 0 } });
    expect(existsSync(cacheDir)).toBe(false);
    expect(load(dir, cacheDir).stats).toEqual({ hits: 0, misses: 2 });
    expect(load(dir, cacheDir, 'not-cacheable').stats).toEqual({ hits: 0, misses: 0 });
  });

  it('leaves files outside node_modules to Node.js: nothing cached for a project file', () => {
    const dir = project();
    writeFileSync(join(dir, 'own.cjs'), "module.exports = require('fixture').value;\n");
    writeFileSync(join(dir, 'load-own.mjs'), readFileSync(join(dir, 'load.mjs'), 'utf8').replace("('fixture')", "('./own.cjs')"));
    const run = spawnSync(process.execPath, [join(dir, 'load-own.mjs'), DIST, join(dir, 'cache')], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ loaded: 1, stats: { hits: 0, misses: 2 } });
  });

  it('keeps one file per set of command-line flags (V8 rejects code compiled under other flags)', () => {
    const dir = project();
    const cacheDir = join(dir, 'cache');
    const withFlags = (flags: string[]) => {
      const run = spawnSync(process.execPath, [...flags, join(dir, 'load.mjs'), DIST, cacheDir], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { stats: { hits: number; misses: number } }).stats;
    };
    expect(withFlags([])).toEqual({ hits: 0, misses: 2 });
    expect(withFlags(['--max-semi-space-size=8'])).toEqual({ hits: 0, misses: 2 });
    expect(withFlags([])).toEqual({ hits: 2, misses: 0 });
    expect(withFlags(['--max-semi-space-size=8'])).toEqual({ hits: 2, misses: 0 });
    expect(readdirSync(cacheDir)).toHaveLength(2);
  });

  it('only costs speed when its folder cannot be written or its file is damaged', () => {
    const dir = project();
    writeFileSync(join(dir, 'a-file'), '');
    const unwritable = join(dir, 'a-file', 'cache');
    expect(load(dir, unwritable)).toMatchObject({ loaded: { value: 1 }, stats: { hits: 0, misses: 2 } });
    expect(load(dir, unwritable).stats).toEqual({ hits: 0, misses: 2 });

    const damaged = join(dir, 'damaged');
    mkdirSync(damaged);
    writeFileSync(join(damaged, cacheFileName([], process.env.NODE_OPTIONS ?? '')), Buffer.from([0, 0, 0, 40, 1, 2, 3]));
    expect(load(dir, damaged)).toMatchObject({ loaded: { value: 1 }, stats: { hits: 0, misses: 2 } });
    expect(load(dir, damaged).stats).toEqual({ hits: 2, misses: 0 });
    expect(readdirSync(damaged)).toEqual([cacheFileName([], process.env.NODE_OPTIONS ?? '')]);
  });
});

describe('the compile cache of a start (src/cli/compile-cache.ts)', () => {
  const offered = typeof (module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  const enable = (env: Record<string, string>) => {
    const script = `const m = await import(${JSON.stringify(`${DIST}/cli/compile-cache.js`)}); console.log(m.enableCompileCache(process.env));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, ...env } });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.trim();
  };

  it(`is ${offered ? "Node.js's own (module.enableCompileCache)" : "obflow's CommonJS cache on this Node.js"}, and off with NODE_DISABLE_COMPILE_CACHE=1`, () => {
    scratch = tempDirSync('obflow-compile-cache-');
    expect(enable({ NODE_COMPILE_CACHE: scratch })).toBe(offered ? 'module' : 'commonjs');
    expect(enable({ NODE_COMPILE_CACHE: scratch, NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('none');
    expect(existsSync(scratch)).toBe(true);
  });

  it("takes newman's sandbox boot code on every Node.js (src/cli/sandbox-code-cache.ts), and not when turned off", () => {
    scratch = tempDirSync('obflow-compile-cache-');
    const script = [
      "import vm from 'node:vm';",
      `const m = await import(${JSON.stringify(`${DIST}/cli/compile-cache.js`)});`,
      `const { sandboxCodeCacheStats } = await import(${JSON.stringify(`${DIST}/cli/sandbox-code-cache.js`)});`,
      'm.enableCompileCache(process.env);',
      "vm.runInContext('var x = 1;' + ' '.repeat(1024 * 1024), vm.createContext({}));",
      'console.log(JSON.stringify(sandboxCodeCacheStats()));',
    ].join('\n');
    const stats = (env: Record<string, string>) => {
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, ...env } });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as unknown;
    };
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 0, misses: 1, bypassed: 0 });
    expect(stats({ NODE_COMPILE_CACHE: scratch, NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ hits: 0, misses: 0, bypassed: 0 });
  });

  it('keeps where `require` found the dependencies (src/cli/resolve-cache.ts), and not when turned off', () => {
    scratch = tempDirSync('obflow-compile-cache-');
    const script = [
      "import { createRequire } from 'node:module';",
      `const m = await import(${JSON.stringify(`${DIST}/cli/compile-cache.js`)});`,
      `const { resolveCacheStats } = await import(${JSON.stringify(`${DIST}/cli/resolve-cache.js`)});`,
      'm.enableCompileCache(process.env);',
      `createRequire(${JSON.stringify(`${DIST}/cli/compile-cache.js`)})('flatted');`,
      'console.log(JSON.stringify(resolveCacheStats()));',
    ].join('\n');
    const stats = (env: Record<string, string>) => {
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, ...env } });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as unknown;
    };
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 0, added: 1 });
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 1, added: 0 });
    expect(stats({ NODE_COMPILE_CACHE: scratch, NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ hits: 0, added: 0 });
  });

  it("keeps the HTML pages' compiled templates (src/run/reporters/template-cache.ts), and not when turned off", () => {
    scratch = tempDirSync('obflow-compile-cache-');
    const script = [
      "import Handlebars from 'handlebars';",
      `const m = await import(${JSON.stringify(`${DIST}/cli/compile-cache.js`)});`,
      `const t = await import(${JSON.stringify(`${DIST}/run/reporters/template-cache.js`)});`,
      'm.enableCompileCache(process.env);',
      "t.compileTemplate(Handlebars.create(), '<p>{{x}}</p>');",
      'console.log(JSON.stringify(t.templateCacheStats()));',
    ].join('\n');
    const stats = (env: Record<string, string>) => {
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
        cwd: resolve(DIST, '..'),
      });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as unknown;
    };
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 0, misses: 1 });
    expect(stats({ NODE_COMPILE_CACHE: scratch })).toEqual({ hits: 1, misses: 0 });
    expect(stats({ NODE_COMPILE_CACHE: scratch, NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ hits: 0, misses: 0 });
  });
});
