// Whether an error opening the store is the native module failing to load, not the data: better-sqlite3's addon
// built for another Node.js (Node.js's ERR_DLOPEN_FAILED naming NODE_MODULE_VERSION), for another platform (an ELF
// it cannot load), or never built (the `bindings` package finds no .node file). The data file is fine then, and
// repairing or removing it (ERR_SANDBOX_DATA's hint) would be the wrong advice: the module is rebuilt with `npm rebuild`.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** A native module that cannot be loaded by this Node.js: which one, and why, in one line. */
export interface NativeModuleFailure {
  /** The npm package (from the addon's path under node_modules/, else the one the caller loads). */
  module: string;
  problem: string;
}

/** Node.js majors by NODE_MODULE_VERSION (process.versions.modules; node/doc/abi_version_registry.json). */
const NODE_BY_ABI: Readonly<Record<string, string>> = { '108': '18', '115': '20', '127': '22', '137': '24', '147': '26' };

const nodeOf = (abi: string): string => (NODE_BY_ABI[abi] === undefined ? `NODE_MODULE_VERSION ${abi}` : `Node.js ${NODE_BY_ABI[abi]}`);

/** The module's package name from an addon path in `message` (the last node_modules/<name>/ segment). */
function moduleIn(message: string): string | undefined {
  const names = [...message.matchAll(/node_modules[\\/]((?:@[^\\/\s'"]+[\\/])?[^\\/\s'"]+)[\\/]/g)].map((match) => match[1] ?? '');
  return names.at(-1)?.replace(/\\/g, '/');
}

/**
 * The native-module failure `error` is, or undefined when it is something else (a damaged file, a SQLite error).
 * `module` names the package the caller was loading, for messages that carry no path. `runtime` is this Node.js
 * (process.version, process.versions.modules) — a parameter so the classifier stays pure.
 */
export function nativeModuleFailure(
  error: unknown,
  module: string,
  runtime: { version: string; modules: string } = { version: process.version, modules: process.versions.modules },
): NativeModuleFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const message = error.message;
  const name = moduleIn(message) ?? module;
  const built = /NODE_MODULE_VERSION (\d+)\.[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (built) {
    const [, was, needed] = built as unknown as [string, string, string];
    return {
      module: name,
      problem: `it was built for ${nodeOf(was)} (NODE_MODULE_VERSION ${was}); this is Node.js ${runtime.version} (NODE_MODULE_VERSION ${needed})`,
    };
  }
  if (code === 'ERR_DLOPEN_FAILED') {
    const line = message.split('\n')[0]?.trim() ?? '';
    return { module: name, problem: `Node.js ${runtime.version} cannot load its compiled addon: ${line}` };
  }
  if (message.startsWith('Could not locate the bindings file')) {
    return { module, problem: `its compiled addon was never built for Node.js ${runtime.version} (no .node file)` };
  }
  return undefined;
}

// ---- builds kept per runtime (docs/ci.md) -------------------------------------------------------------------------------------
// One build of better-sqlite3 per Node.js ABI, outside any clone's node_modules, so switching Node.js needs no rebuild
// after the first: `node tools/native.js 24` builds the one for a pinned runtime (tools/native.js computes the same
// folder; test/unit/native-module.test.ts holds the two together). The store loads the build for the running Node.js
// from here (better-sqlite3's `nativeBinding`), and the package's own build (what npm ci made) when none is kept.

/** The environment variable naming the cache folder (instead of $XDG_CACHE_HOME/obflow/native). */
export const NATIVE_CACHE_ENV = 'OBFLOW_NATIVE_CACHE';

/** The root of the native builds: OBFLOW_NATIVE_CACHE, else $XDG_CACHE_HOME/obflow/native, else ~/.cache/obflow/native. */
export function nativeCacheRoot(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const named = env[NATIVE_CACHE_ENV];
  if (named !== undefined && named !== '') return resolve(named);
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'obflow', 'native');
}

/** The folder of one package version's build for one runtime: <root>/<name>@<version>/node-v<ABI>-<platform>-<arch>. */
export function nativeBuildDir(
  root: string,
  pkg: { name: string; version: string },
  runtime: { modules: string; platform: string; arch: string } = {
    modules: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
  },
): string {
  return join(root, `${pkg.name}@${pkg.version}`, `node-v${runtime.modules}-${runtime.platform}-${runtime.arch}`);
}

/** The addon file better-sqlite3 builds (build/Release/better_sqlite3.node), as kept in its cache folder. */
export const SQLITE_ADDON = 'better_sqlite3.node';

let kept: { addon: string | undefined } | undefined;

/**
 * The kept build of better-sqlite3 for this Node.js (a path for its `nativeBinding` option), or undefined when none is
 * kept: the package's own build is loaded then. Looked up once per process.
 */
export function keptSqliteAddon(): string | undefined {
  if (kept === undefined) {
    let addon: string | undefined;
    try {
      const { version } = createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string };
      const file = join(nativeBuildDir(nativeCacheRoot(), { name: 'better-sqlite3', version }), SQLITE_ADDON);
      addon = existsSync(file) ? file : undefined;
    } catch {
      addon = undefined; // no package to read the version of: the open itself reports it
    }
    kept = { addon };
  }
  return kept.addon;
}
