// Where `require` found each dependency file, kept between starts (src/cli/resolve-cache.ts, issue 34): the next
// process answers the same requests from the cache, with the same modules; an installation whose lockfile changed
// starts afresh; what is not a package's file (a native addon), a request with options and a failed request are never
// kept; without a lockfile nothing is. Each case in processes of their own (the hook is installed once per process)
// over a fixture installation of its own.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirSync } from '../helpers/temp.js';

const CACHE = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'resolve-cache.js')).href;

/** An installation (a folder of its own in a temporary one): a lockfile and two packages, one requiring a file of its
 *  own and the other package; beside it, a package in the parent folder's node_modules, which Node.js also finds. */
function installation(): { root: string; lockfile: string; cache: string } {
  const parent = tempDirSync('obflow-resolve-');
  mkdirSync(join(parent, 'node_modules', 'outer'), { recursive: true });
  writeFileSync(join(parent, 'node_modules', 'outer', 'index.js'), 'module.exports = 7;\n');
  const root = join(parent, 'app');
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('node_modules/.package-lock.json', '{ "lockfileVersion": 3 }\n');
  write('node_modules/pkg/package.json', '{ "name": "pkg", "main": "lib/index.js" }\n');
  write('node_modules/pkg/lib/index.js', "module.exports = require('./part') + require('dep');\n");
  write('node_modules/pkg/lib/part.js', 'module.exports = 40;\n');
  write('node_modules/pkg/lib/addon.node', '');
  write('node_modules/dep/index.js', 'module.exports = 2;\n');
  write('other/node_modules/dep/index.js', 'module.exports = 3;\n');
  return { root, lockfile: join(root, 'node_modules', '.package-lock.json'), cache: join(root, 'cache') };
}

interface Outcome {
  result: unknown;
  stats: { hits: number; added: number };
}

/** One process (a script file: `-e` code would be in execArgv, which names the cache file): install, run `body`. */
function inProcess(at: ReturnType<typeof installation>, body: string): Outcome {
  const script = [
    "import { createRequire } from 'node:module';",
    `const { installResolveCache, resolveCacheStats } = await import(${JSON.stringify(CACHE)});`,
    `installResolveCache(${JSON.stringify(at.cache)}, ${JSON.stringify(at.lockfile)});`,
    `const require = createRequire(${JSON.stringify(join(at.root, 'entry.js'))});`,
    `const result = (() => { ${body} })();`,
    'console.log(JSON.stringify({ result, stats: resolveCacheStats() }));',
  ].join('\n');
  const file = join(tempDirSync('obflow-resolve-script-'), 'child.mjs');
  writeFileSync(file, script);
  const child = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as Outcome;
}

describe('the resolve cache', () => {
  it('answers the next process from the cache, with the same modules', () => {
    const at = installation();
    expect(inProcess(at, "return require('pkg');")).toEqual({ result: 42, stats: { hits: 0, added: 3 } });
    expect(inProcess(at, "return require('pkg');")).toEqual({ result: 42, stats: { hits: 3, added: 0 } });
  });

  it('starts afresh when the installation changed (npm rewrote its lockfile: here only its time)', () => {
    const at = installation();
    inProcess(at, "return require('pkg');");
    const later = new Date(Date.now() + 60_000);
    utimesSync(at.lockfile, later, later);
    expect(inProcess(at, "return require('pkg');")).toEqual({ result: 42, stats: { hits: 0, added: 3 } });
  });

  it('resolves a kept file that is gone again (a tree changed without npm), and keeps the new answer', () => {
    const at = installation();
    inProcess(at, "return require('pkg');");
    rmSync(join(at.root, 'node_modules', 'dep', 'index.js'));
    writeFileSync(join(at.root, 'node_modules', 'dep', 'package.json'), '{ "name": "dep", "main": "main.js" }\n');
    writeFileSync(join(at.root, 'node_modules', 'dep', 'main.js'), 'module.exports = 3;\n');
    expect(inProcess(at, "return require('pkg');")).toEqual({ result: 43, stats: { hits: 2, added: 1 } });
    expect(inProcess(at, "return require('pkg');")).toEqual({ result: 43, stats: { hits: 3, added: 0 } });
  });

  it('answers a kept file this process already loaded without looking for it, as Node.js answers from its module cache', () => {
    const at = installation();
    const dep = join(at.root, 'node_modules', 'dep', 'index.js');
    // dep from the entry's folder and from pkg's: two kept answers naming one file.
    expect(inProcess(at, "return [require('dep'), require('pkg')];")).toEqual({ result: [2, 42], stats: { hits: 0, added: 4 } });
    // Loaded from the entry's folder, then gone from disk: pkg's answer still names the loaded module.
    const body = `const dep = require('dep'); require('node:fs').rmSync(${JSON.stringify(dep)}); return [dep, require('pkg')];`;
    expect(inProcess(at, body)).toEqual({ result: [2, 42], stats: { hits: 4, added: 0 } });
  });

  it("keeps nothing found outside the installation's node_modules (a parent folder's)", () => {
    const at = installation();
    expect(inProcess(at, "return require('outer');")).toEqual({ result: 7, stats: { hits: 0, added: 0 } });
    expect(inProcess(at, "return require('outer');")).toEqual({ result: 7, stats: { hits: 0, added: 0 } });
  });

  it('keeps no native addon, no request with options and no failed request', () => {
    const at = installation();
    const body = [
      "const pkg = require.resolve('pkg');",
      "require.resolve('./addon.node', { paths: [pkg.replace(/index\\.js$/, '')] });",
      "const addon = createRequire(pkg).resolve('./addon.node');",
      "let missing; try { require('missing'); } catch (error) { missing = error.code; }",
      // The same request from the same folder, with paths: another file, which must not answer the plain one.
      `const elsewhere = require.resolve('dep', { paths: [${JSON.stringify(join(at.root, 'other'))}] });`,
      "return [addon.endsWith('addon.node'), missing, elsewhere.includes('other'), require('dep')];",
    ].join('\n');
    // Kept: pkg and the plain dep.
    expect(inProcess(at, body)).toEqual({ result: [true, 'MODULE_NOT_FOUND', true, 2], stats: { hits: 0, added: 2 } });
    expect(inProcess(at, body)).toEqual({ result: [true, 'MODULE_NOT_FOUND', true, 2], stats: { hits: 2, added: 0 } });
  });

  it('keeps nothing for an installation without a lockfile', () => {
    const at = { ...installation(), lockfile: join(tempDirSync('obflow-resolve-none-'), '.package-lock.json') };
    expect(inProcess(at, "return require('pkg');")).toEqual({ result: 42, stats: { hits: 0, added: 0 } });
    expect(existsSync(at.cache) ? readdirSync(at.cache) : []).toEqual([]);
  });
});
