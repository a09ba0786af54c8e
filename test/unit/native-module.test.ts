// The classifier that tells a native module built for another runtime from damaged data: the error shapes
// are the real ones, as Node.js 24.21 and `bindings` throw them when better-sqlite3 was built for Node.js 20. And the
// builds kept per runtime outside node_modules: where they are kept, that tools/native.js keeps them where
// the store looks, and that the store (and every other opener of a database) loads the kept build for this runtime. And
// that every better-sqlite3 object is held until the process exits (src/sandbox/store/db.ts, RETAINED): one left to the
// garbage collector aborts Node.js >= 24.19, and a test runner that runs many files in one process releases a file's own
// modules after it (a test file's array of kept objects was collected that way, and the worker aborted on 24).

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import * as store from '../../src/sandbox/store/db.js';
import { nativeBuildDir, nativeCacheRoot, nativeModuleFailure, SQLITE_ADDON } from '../../src/sandbox/store/native.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const NODE_24 = { version: 'v24.21.0', modules: '137' };

/** The project's own code, read once for the scans below: src, tests, tools and bench (not this file: its examples of
 *  what the scans catch would be caught). */
const SCANNED_SOURCES = ['src', 'test', 'tools', 'bench']
  .flatMap((folder) =>
    readdirSync(join(REPO_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(?:ts|js|mjs)$/.test(file))
      .map((file) => `${folder}/${file.split('\\').join('/')}`),
  )
  .filter((path) => path !== 'test/unit/native-module.test.ts')
  .map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }));

function coded(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

describe('nativeModuleFailure', () => {
  it('names the module and both runtimes when the addon was built for another Node.js (NODE_MODULE_VERSION)', () => {
    const error = coded(
      "The module '/srv/obflow/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
        'was compiled against a different Node.js version using\n' +
        'NODE_MODULE_VERSION 115. This version of Node.js requires\n' +
        'NODE_MODULE_VERSION 137. Please try re-compiling or re-installing\n' +
        'the module (for instance, using `npm rebuild` or `npm install`).',
      'ERR_DLOPEN_FAILED',
    );
    expect(nativeModuleFailure(error, 'better-sqlite3', NODE_24)).toEqual({
      module: 'better-sqlite3',
      problem: 'it was built for Node.js 20 (NODE_MODULE_VERSION 115); this is Node.js v24.21.0 (NODE_MODULE_VERSION 137)',
    });
  });

  it('takes the module from the addon path (scoped packages too), one line', () => {
    const error = coded('/app/node_modules/@scope/native-thing/build/Release/x.node: invalid ELF header', 'ERR_DLOPEN_FAILED');
    const failure = nativeModuleFailure(error, 'better-sqlite3', NODE_24);
    expect(failure?.module).toBe('@scope/native-thing');
    expect(failure?.problem).not.toContain('\n');
  });

  it('an addon never built (`bindings` finds no .node file) is a native-module failure too', () => {
    const error = coded('Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node');
    expect(nativeModuleFailure(error, 'better-sqlite3', NODE_24)?.problem).toContain('never built');
  });

  it('damaged data and other errors are not (they stay ERR_SANDBOX_DATA)', () => {
    expect(nativeModuleFailure(coded('file is not a database', 'SQLITE_NOTADB'), 'better-sqlite3', NODE_24)).toBeUndefined();
    expect(nativeModuleFailure(coded('database disk image is malformed', 'SQLITE_CORRUPT'), 'better-sqlite3', NODE_24)).toBeUndefined();
    expect(nativeModuleFailure('not an error', 'better-sqlite3', NODE_24)).toBeUndefined();
  });
});

const scratch = tempDirSync('obflow-native-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SQLITE = {
  name: 'better-sqlite3',
  version: (createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string }).version,
};
const OWN_ADDON = join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', SQLITE_ADDON);

/** The NODE_MODULE_VERSION the package's own build is for (its registration symbol, node_register_module_v<ABI>). */
const OWN_ABI = /node_register_module_v(\d+)/.exec(readFileSync(OWN_ADDON, 'latin1'))?.[1] ?? '';

/**
 * The Node.js that npm ci built the package's own addon for: this one, or another on PATH or among the pinned runtimes
 * (.ci/run's passes on Node.js 24 and 26 run this file with the machine's Node.js behind them on PATH). The store and
 * tool processes below run on it, so each test means the same on every runtime and nothing is compiled here.
 */
function nodeForOwnBuild(): string {
  const candidates = [process.execPath];
  const onPath = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' }).stdout.trim().split('\n');
  const pins = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, 'tools', 'runtimes.json'), 'utf8')) as { runtimes: object }).runtimes);
  const pinned = pins.map((line) =>
    spawnSync(process.execPath, [join(REPO_ROOT, 'tools', 'runtime.js'), line, '--cached'], { encoding: 'utf8' }),
  );
  candidates.push(...onPath, ...pinned.filter((found) => found.status === 0).map((found) => join(found.stdout.trim(), 'node')));
  const node = candidates.find(
    (candidate) =>
      candidate !== '' && spawnSync(candidate, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim() === OWN_ABI,
  );
  if (node === undefined) throw new Error(`no Node.js with NODE_MODULE_VERSION ${OWN_ABI} (the one npm ci built better-sqlite3 for) found`);
  return node;
}
const NODE = nodeForOwnBuild();
const RUNTIME = { modules: OWN_ABI, platform: process.platform, arch: process.arch };

/** Opens a store in a fresh data folder in its own process (dist/, as `obflow` runs it) with `cache` as the native
 *  cache; prints the better-sqlite3 addons that process loaded, or the error's name and message. */
function openStore(cache: string): { status: number | null; stdout: string; stderr: string } {
  const script = `
    import { createRequire } from 'node:module';
    import { mkdtempSync } from 'node:fs';
    import { join } from 'node:path';
    import { tmpdir } from 'node:os';
    const { SandboxDb } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'sandbox', 'store', 'db.js'))});
    try {
      SandboxDb.open(mkdtempSync(join(tmpdir(), 'obflow-native-store-')));
    } catch (error) {
      console.log(error.name + ': ' + error.message.split('\\n')[0]);
      process.exit(3);
    }
    console.log(Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith('.node')).join('\\n'));
  `;
  return spawnSync(NODE, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, OBFLOW_NATIVE_CACHE: cache },
  });
}

describe('the builds of better-sqlite3 kept per runtime', () => {
  it('are kept in OBFLOW_NATIVE_CACHE, else $XDG_CACHE_HOME/obflow/native, else ~/.cache/obflow/native', () => {
    expect(nativeCacheRoot({ OBFLOW_NATIVE_CACHE: '/c/native', XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/c/native');
    expect(nativeCacheRoot({ XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/x/obflow/native');
    // The XDG rule: a relative XDG_CACHE_HOME is invalid and ignored; an empty OBFLOW_NATIVE_CACHE is unset.
    expect(nativeCacheRoot({ OBFLOW_NATIVE_CACHE: '', XDG_CACHE_HOME: 'rel' }, '/home/u')).toBe('/home/u/.cache/obflow/native');
  });

  it('one folder per package version and NODE_MODULE_VERSION (and platform, arch)', () => {
    const runtime = { modules: '137', platform: 'linux', arch: 'x64' };
    expect(nativeBuildDir('/c', { name: 'better-sqlite3', version: '12.11.1' }, runtime)).toBe(
      '/c/better-sqlite3@12.11.1/node-v137-linux-x64',
    );
    expect(nativeBuildDir('/c', { name: 'better-sqlite3', version: '12.11.1' }, { ...runtime, modules: '115' })).not.toBe(
      nativeBuildDir('/c', { name: 'better-sqlite3', version: '12.11.1' }, runtime),
    );
  });

  it('tools/native.js keeps them where the store looks (the same folder for the same environment)', () => {
    for (const env of [
      { OBFLOW_NATIVE_CACHE: join(scratch, 'named') },
      { OBFLOW_NATIVE_CACHE: '', XDG_CACHE_HOME: join(scratch, 'xdg') },
    ]) {
      const where = spawnSync(process.execPath, [join(REPO_ROOT, 'tools', 'native.js'), '--where'], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      expect(where.status, where.stderr).toBe(0);
      expect(where.stdout.trim()).toBe(nativeBuildDir(nativeCacheRoot({ ...process.env, ...env }), SQLITE));
    }
  });

  it("tools/native.js keeps this runtime's build (the package's own, when it loads) and prebuild-install's tarball of it", () => {
    const cache = join(scratch, 'kept-by-tool');
    const kept = spawnSync(NODE, [join(REPO_ROOT, 'tools', 'native.js')], {
      encoding: 'utf8',
      env: { ...process.env, OBFLOW_NATIVE_CACHE: cache },
    });
    expect(kept.status, kept.stderr).toBe(0);
    const addon = join(nativeBuildDir(cache, SQLITE, RUNTIME), SQLITE_ADDON);
    expect(kept.stdout.trim()).toBe(addon);
    expect(readFileSync(addon).equals(readFileSync(OWN_ADDON))).toBe(true);
    const tag = `node-v${OWN_ABI}-${process.platform}-${process.arch}`;
    expect(readdirSync(join(cache, `better-sqlite3@${SQLITE.version}`, 'prebuilds'))).toEqual([
      `better-sqlite3-v${SQLITE.version}-${tag}.tar.gz`,
    ]);
    const listing = spawnSync(
      'tar',
      ['-tzf', join(cache, `better-sqlite3@${SQLITE.version}`, 'prebuilds', `better-sqlite3-v${SQLITE.version}-${tag}.tar.gz`)],
      { encoding: 'utf8' },
    );
    expect(listing.stdout.trim()).toBe('build/Release/better_sqlite3.node');
  });

  it("the store loads the build kept for this runtime, not the package's own", () => {
    const cache = join(scratch, 'kept');
    const dir = nativeBuildDir(cache, SQLITE, RUNTIME);
    mkdirSync(dir, { recursive: true });
    copyFileSync(OWN_ADDON, join(dir, SQLITE_ADDON));
    const opened = openStore(cache);
    expect(opened.status, opened.stderr + opened.stdout).toBe(0);
    expect(opened.stdout.trim().split('\n')).toEqual([join(dir, SQLITE_ADDON)]);
  });

  it('a kept build that does not load is a native-module failure naming it (so the kept one was the one loaded)', () => {
    const cache = join(scratch, 'broken');
    const dir = nativeBuildDir(cache, SQLITE, RUNTIME);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, SQLITE_ADDON), 'not an ELF file');
    const opened = openStore(cache);
    expect(opened.status, opened.stderr).toBe(3);
    expect(opened.stdout).toMatch(/^SandboxNativeModuleError: .*better-sqlite3/);
  });

  it("without a kept build, the package's own build (what npm ci made) is loaded", () => {
    const opened = openStore(join(scratch, 'empty'));
    expect(opened.status, opened.stderr + opened.stdout).toBe(0);
    expect(opened.stdout.trim().split('\n')).toEqual([OWN_ADDON]);
  });

  it('every database in src/ and test/ is opened by openSqlite, which passes the kept build (nativeBinding), or a runtime switch would break it', () => {
    const openers = SCANNED_SOURCES.filter(({ path }) => /^(?:src|test)\//.test(path)).flatMap(({ path, text }) =>
      [...text.matchAll(/new Database\(([^;]*?)\)[);]/g)].map((match) => `${path}: ${match[0]}`),
    );
    expect(openers).toEqual(['src/sandbox/store/db.ts: new Database(file, { ...options, nativeBinding: keptSqliteAddon() }))']);
  });
});

describe("better-sqlite3's objects, held until the process exits", () => {
  /** The project's files that use better-sqlite3: that import it (tools/native.js loads it by path) or open a database
   *  through openSqlite. */
  const LOADS_SQLITE = /\bfrom 'better-sqlite3'|Require\([^\n]*\)\('\.\/lib\/index\.js'\)|\bopenSqlite\(/;
  const loaders = SCANNED_SOURCES.filter(({ text }) => LOADS_SQLITE.test(text));

  /**
   * Where a module makes a better-sqlite3 object (database, statement, iterator, backup) without handing it to
   * `retainNative` in the same statement: left to the garbage collector, it aborts Node.js ≥ 24.19
   * (src/sandbox/store/db.ts, RETAINED). `pragma()` and `backup()` make one that cannot be handed over: never used.
   */
  const unretained = (path: string, text: string): string[] => {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|\s)\/\/.*$/gm, '$1');
    const found: string[] = [];
    for (const match of code.matchAll(/new Database\(|\.(prepare|iterate|pragma|backup)\s*(?:<[^()]*?>)?\(/g)) {
      const before = code.slice(0, match.index);
      const statement = before.slice(Math.max(before.lastIndexOf(';'), before.lastIndexOf('{'), before.lastIndexOf('}')) + 1);
      const held = match[1] !== 'pragma' && match[1] !== 'backup' && statement.includes('retainNative(');
      if (!held) found.push(`${path}:${before.split('\n').length}: ${(code.split('\n')[before.split('\n').length - 1] ?? '').trim()}`);
    }
    return found;
  };

  it('are each handed to retainNative as they are made, in src, tests and tools alike', () => {
    expect(loaders.map(({ path }) => path)).toEqual(
      expect.arrayContaining([
        'src/sandbox/store/db.ts',
        'test/integration/sandbox-store.test.ts',
        'test/unit/sandbox-store-damage.test.ts',
        'tools/native.js',
      ]),
    );
    expect(loaders.flatMap(({ path, text }) => unretained(path, text))).toEqual([]);
  });

  it('catches an object left to the garbage collector (the check can fail)', () => {
    const offender = [
      'const db = new Database(file, { readonly: true, nativeBinding: keptSqliteAddon() });',
      "const statement = db.prepare<[string], { key: string }>('SELECT 1');",
      'for (const row of rows.iterate()) check(row);',
      "db.pragma('journal_mode = WAL');",
      'const kept = retainNative(new Database(file, { nativeBinding: keptSqliteAddon() }));',
      "const read = retainNative(kept.prepare('SELECT 1')).pluck();",
      '// db.prepare() in a comment makes nothing',
    ].join('\n');
    expect(unretained('test/x.test.ts', offender)).toEqual([
      'test/x.test.ts:1: const db = new Database(file, { readonly: true, nativeBinding: keptSqliteAddon() });',
      "test/x.test.ts:2: const statement = db.prepare<[string], { key: string }>('SELECT 1');",
      'test/x.test.ts:3: for (const row of rows.iterate()) check(row);',
      "test/x.test.ts:4: db.pragma('journal_mode = WAL');",
    ]);
  });

  it('are held by the process, not by a module: a second instance of src/sandbox/store/db.ts keeps into the same set', async () => {
    // A query makes the module runner evaluate db.ts again: a module instance of its own, as a re-run file would.
    const specifier = '../../src/sandbox/store/db.js?a-second-instance';
    const second = (await import(/* @vite-ignore */ specifier)) as typeof store;
    expect(second.retainNative).not.toBe(store.retainNative);

    const [first, other] = [{ made: 'by the first instance' }, { made: 'by the second instance' }];
    expect(store.retainNative(first)).toBe(first);
    expect(second.retainNative(other)).toBe(other);
    const held = (globalThis as { [key: symbol]: unknown })[store.RETAINED_NATIVE_KEY];
    expect(held).toBeInstanceOf(Set);
    expect([(held as Set<object>).has(first), (held as Set<object>).has(other)]).toEqual([true, true]);
  });
});
