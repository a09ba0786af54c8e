// Where `require` found each dependency file last time, kept on disk (issue 34, item 2). A run loads ~1,200 CommonJS
// files of newman's tree; Node.js finds each one again at every start — stat calls over the node_modules folders, the
// package.json files read for "main" and "exports", realpath — ~110 ms of `npm start`. This hook answers a `require`
// of the same request from the same folder with the file it resolved to before (~10 ms for all of them).
//
// Safe by its key: the answers hold for one installation — the cache names the installation's lockfile
// (node_modules/.package-lock.json, which npm rewrites whenever it changes node_modules: its path, size and time),
// and one that names another is dropped whole; NODE_PATH, NODE_PRESERVE_SYMLINKS and the command-line flags name the
// file. Only a request from the installation's folder that resolves into its node_modules is kept: a request with
// options (`require.resolve(id, { paths })`), the main module, built-ins, native addons (.node: a kept build per
// runtime, tools/native.js) and a file found elsewhere (a parent folder's node_modules, NODE_PATH) go to Node.js every
// time; a request that fails is never kept, and a kept file that is gone is resolved by Node.js again. A cache that
// cannot be read is empty, one that cannot be written is skipped; written at exit when something was added or
// dropped, whole (a temporary beside it, renamed).

import { existsSync, readFileSync, statSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, sep } from 'node:path';
import { writeCacheFile } from '../fs.js';
import { flagsFileName } from './cjs-code-cache.js';

interface ResolvingModule {
  filename?: string | null;
}

type ResolveFilename = (request: string, parent: ResolvingModule | undefined, isMain: boolean, options?: unknown) => string;

interface CacheFile {
  /** The installation the answers hold for (installationKey). */
  installation: string;
  /** `<requiring folder>\0<request>` → the file it resolved to. */
  resolved: Record<string, string>;
}

export interface ResolveCacheStats {
  /** Requests answered from the cache. */
  hits: number;
  /** Requests resolved by Node.js and kept. */
  added: number;
}

const stats: ResolveCacheStats = { hits: 0, added: 0 };
let installed = false;

/** What this process's resolve cache did so far (for tests and the bench). */
export function resolveCacheStats(): ResolveCacheStats {
  return { ...stats };
}

/**
 * Answers `require` from the resolutions kept in `dir` while `lockfile` (the installation's node_modules/
 * .package-lock.json) is the one they were kept under; without a lockfile nothing is cached. Installing twice is a no-op.
 */
export function installResolveCache(dir: string, lockfile: string): void {
  if (installed) return;
  installed = true;
  const installation = installationKey(lockfile);
  if (installation === undefined) return;
  const file = join(dir, resolveCacheFileName());
  // Read at the first `require` from a package: a start that requires none (`obflow --help`) never reads it.
  let kept: Map<string, string> | undefined;
  const resolvedNow = (): Map<string, string> => (kept ??= readResolved(file, installation));
  let changed = false;
  const modules = Module as unknown as { _resolveFilename: ResolveFilename; _cache: Record<string, unknown> };
  const loaded = modules._cache;
  const original = modules._resolveFilename;
  // The lockfile's node_modules, and the installation's folder: what the lockfile's key answers for.
  const packages = `${dirname(lockfile)}${sep}`;
  const installationFolder = `${dirname(dirname(lockfile))}${sep}`;

  modules._resolveFilename = function resolveFilename(request, parent, isMain, options) {
    const from = parent?.filename;
    if (!withoutOptions(options) || isMain || typeof from !== 'string' || from === '') {
      return original.call(this, request, parent, isMain, options);
    }
    const key = `${dirname(from)}\0${request}`;
    const resolved = resolvedNow();
    const known = resolved.get(key);
    // A kept file that is gone (a tree changed by hand, not by npm) is Node.js's to resolve again, and kept anew; one
    // this process loaded already is Node.js's module cache's (it is not read again), and not looked for.
    if (known !== undefined && (Object.hasOwn(loaded, known) || existsSync(known))) {
      stats.hits += 1;
      return known;
    }
    if (known !== undefined) {
      resolved.delete(key);
      changed = true;
    }
    const found = original.call(this, request, parent, isMain, options);
    if (from.startsWith(installationFolder) && found.startsWith(packages) && !found.endsWith('.node')) {
      resolved.set(key, found);
      stats.added += 1;
      changed = true;
    }
    return found;
  };

  // Never a throw at exit (the exit code is the command's).
  process.on('exit', () => {
    if (!changed || kept === undefined) return;
    const content: CacheFile = { installation, resolved: Object.fromEntries(kept) };
    writeCacheFile(file, JSON.stringify(content));
  });
}

/** No options, or none set (Node.js 24's `require.resolve(id)` passes `{}`): the plain resolution of a request. */
function withoutOptions(options: unknown): boolean {
  return options === undefined || (typeof options === 'object' && options !== null && Object.keys(options).length === 0);
}

/** One cache per Node.js version, arch and command-line flags (`--conditions` or `--preserve-symlinks` resolve
 *  differently), named as the CommonJS code cache is (cacheFileName). */
export function resolveCacheFileName(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  env: NodeJS.ProcessEnv = process.env,
): string {
  // NODE_PATH adds folders to look in; NODE_PRESERVE_SYMLINKS=1 is --preserve-symlinks.
  const resolving =
    [env.NODE_PATH ?? '', env.NODE_PRESERVE_SYMLINKS ?? ''].join('') === ''
      ? []
      : [`NODE_PATH=${env.NODE_PATH ?? ''}`, `NODE_PRESERVE_SYMLINKS=${env.NODE_PRESERVE_SYMLINKS ?? ''}`];
  return flagsFileName('resolve', 'json', [...execArgv, nodeOptions, ...resolving]);
}

/** The installation's name: its lockfile's path, size and modification time; undefined without one. */
export function installationKey(lockfile: string): string | undefined {
  try {
    const { size, mtimeMs } = statSync(lockfile);
    return `${lockfile}\0${size}\0${mtimeMs}`;
  } catch {
    return undefined;
  }
}

function readResolved(file: string, installation: string): Map<string, string> {
  try {
    const content = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile>;
    if (content.installation !== installation || typeof content.resolved !== 'object' || content.resolved === null) return new Map();
    return new Map(Object.entries(content.resolved).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return new Map();
  }
}
