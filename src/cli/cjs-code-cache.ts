// V8's compiled code of the CommonJS dependencies, kept on disk, for a Node.js without module.enableCompileCache
// (Node.js 20 – 22.0; src/cli/compile-cache.ts turns on one or the other). newman's tree (postman-runtime,
// postman-sandbox, postman-collection, faker, lodash, …: ~1,100 CommonJS files) is compiled again by every run; this
// hook compiles each file of a node_modules folder through vm.Script with the code cache V8 produced last time (what
// the v8-compile-cache package does, and Node.js ≥ 22.1 does itself). Measured: newman's import 0.61 → 0.52 s of CPU.
//
// Safe by construction: a file whose text changed (SHA-1 of its source, checked before its code is used) or code V8
// rejects (another V8, other flags) is compiled as usual and cached anew; ES modules, files outside node_modules and
// files with a `#!` line go to Node.js's own loader untouched; a cache that cannot be read is empty, one that cannot
// be written is skipped. The cache is one file per Node.js version and arch (index and code together), written once,
// at exit, only when something new was compiled, atomically (a temporary beside it, renamed): a start never reads half
// a cache, nor an index of another write's code.

import { createHash, hash as digestOf } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, sep } from 'node:path';
import vm from 'node:vm';
import { writeCacheFile } from '../fs.js';

/** Where a cached file's code is (offset after the index, length), and the SHA-1 of the source it was compiled from. */
type IndexEntry = [offset: number, length: number, sourceHash: string];

/** Past this size the cache starts afresh (it holds every CommonJS file any command loaded: playwright-core too). */
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

interface CompilingModule {
  exports: unknown;
  require(id: string): unknown;
}

type Compile = (this: CompilingModule, content: string, filename: string, format?: string) => unknown;

interface ModuleInternals {
  prototype: { _compile: Compile };
  wrap(content: string): string;
  _resolveFilename(request: string, parent: CompilingModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: CompilingModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
}

export interface CjsCodeCacheStats {
  /** Files whose cached code V8 took. */
  hits: number;
  /** Files compiled from source (new, changed, or rejected by V8). */
  misses: number;
}

const stats: CjsCodeCacheStats = { hits: 0, misses: 0 };
let installed = false;

/** What this process's cache did so far (for tests and the bench). */
export function cjsCodeCacheStats(): CjsCodeCacheStats {
  return { ...stats };
}

/**
 * Compiles the CommonJS files of node_modules folders with a code cache kept in `dir`; `heapFlags` name the cache file
 * with the V8 flags the heap policy set, and a file compiled while `cacheable()` is false bypasses the cache. Returns
 * false where it cannot apply (a runtime without vm's main-context loader for dynamic import(), which a compiled file
 * may use), true once installed. Installing twice is a no-op.
 */
export function installCjsCodeCache(dir: string, heapFlags: readonly string[] = [], cacheable: () => boolean = () => true): boolean {
  const mainContextLoader = (vm.constants as Partial<typeof vm.constants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (mainContextLoader === undefined) return false;
  if (installed) return true;
  installed = true;
  const modules = Module as unknown as ModuleInternals;
  const file = join(dir, cacheFileName(process.execArgv, process.env.NODE_OPTIONS ?? '', heapFlags));
  // Opened at the first CommonJS file: a start that loads none (`obflow --help`) never reads it.
  let cache: OpenCache | undefined;
  const inNodeModules = `${sep}node_modules${sep}`;
  const compiled = new Map<string, { script: vm.Script; hash: string }>();
  const original = modules.prototype._compile;

  modules.prototype._compile = function compile(this: CompilingModule, content, filename, format) {
    // Not cacheable now: V8's flags are not those of a start (src/cli/heap.ts), so code cached now would be rejected.
    if (!cacheable() || (format !== undefined && format !== 'commonjs') || !filename.includes(inNodeModules) || content.startsWith('#!')) {
      return original.call(this, content, filename, format);
    }
    const hash = digestOf('sha1', content, 'base64');
    cache ??= openCache(file);
    const entry = cache.index.get(filename);
    const cachedData = entry !== undefined && entry[2] === hash ? cache.read(entry) : undefined;
    const script = new vm.Script(modules.wrap(content), { filename, cachedData, importModuleDynamically: mainContextLoader });
    if (cachedData !== undefined && script.cachedDataRejected !== true) stats.hits += 1;
    else {
      stats.misses += 1;
      compiled.set(filename, { script, hash });
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireFor(this, modules), this, filename, dirname(filename));
  };

  // At exit V8 has compiled the functions this run called too: the cached code then covers them (not only the top level).
  // Never a throw here: it would replace the exit code the command set (an interrupt's 130/143 included).
  process.on('exit', () => {
    if (cache === undefined) return;
    try {
      if (compiled.size > 0) writeCache(file, cache, compiled);
      cache.close();
    } catch {
      // The cache only costs speed: the next start compiles from source.
    }
  });
  return true;
}

/** One cache per Node.js version, arch and V8 flags: V8 rejects code compiled under other flags (a `--cpu-prof` or
 *  `--max-semi-space-size` start, a heap policy's flags), so one shared file would be rewritten by every alternation. */
export function cacheFileName(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  heapFlags: readonly string[] = [],
): string {
  return flagsFileName('cjs', 'cache', [...execArgv, nodeOptions, ...heapFlags]);
}

/** `<stem>-<Node.js version>-<arch>[-<flagsKey>].<extension>`: the name of a cache kept per Node.js and set of flags
 *  (no suffix for none), for each of the start's caches (this one, src/cli/sandbox-code-cache.ts, resolve-cache.ts). */
export function flagsFileName(stem: string, extension: string, flags: readonly string[]): string {
  const suffix = flags.join('') === '' ? '' : `-${flagsKey(flags)}`;
  return `${stem}-${process.version}-${process.arch}${suffix}.${extension}`;
}

/** A short name for a set of flags, for the caches kept per set (8 hex digits of their SHA-1). */
export function flagsKey(flags: readonly string[]): string {
  return createHash('sha1').update(flags.join('\0')).digest('hex').slice(0, 8);
}

/** The `require` a CommonJS file gets (what Node.js's makeRequireFunction builds, without policies). */
function requireFor(module: CompilingModule, modules: ModuleInternals): NodeJS.Require {
  const require = ((id: string) => module.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: unknown) =>
    modules._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => modules._resolveLookupPaths(request, module);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = modules._extensions as NodeJS.Require['extensions'];
  require.cache = modules._cache as NodeJS.Require['cache'];
  return require;
}

interface OpenCache {
  index: Map<string, IndexEntry>;
  /** One file's code, read when it is needed: the code of files this start does not load never takes memory. */
  read(entry: IndexEntry): Buffer | undefined;
  close(): void;
}

/** The file: the index's length (4 bytes, big-endian), the index (JSON: file → offset, length, source hash), the code.
 *  Kept open: a cache another start renames into place meanwhile leaves this one's file as it was. */
function openCache(file: string): OpenCache {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const header = Buffer.alloc(4);
    if (readSync(fd, header, 0, 4, 0) !== 4) throw new RangeError('short cache');
    const indexBytes = Buffer.alloc(header.readUInt32BE(0));
    if (readSync(fd, indexBytes, 0, indexBytes.length, 4) !== indexBytes.length) throw new RangeError('short cache');
    const index = new Map(Object.entries(JSON.parse(indexBytes.toString('utf8')) as Record<string, IndexEntry>));
    const start = 4 + indexBytes.length;
    const open = fd;
    return {
      index,
      read: ([offset, length]) => {
        const data = Buffer.allocUnsafe(length);
        try {
          return readSync(open, data, 0, length, start + offset) === length ? data : undefined;
        } catch {
          return undefined;
        }
      },
      close: () => closeSync(open),
    };
  } catch {
    if (fd !== undefined) closeSync(fd);
    return { index: new Map(), read: () => undefined, close: () => undefined };
  }
}

/** The kept entries this run did not recompile, plus this run's new code, as one file renamed into place. */
function writeCache(file: string, cache: OpenCache, compiled: Map<string, { script: vm.Script; hash: string }>) {
  const parts: Buffer[] = [];
  const next: Record<string, IndexEntry> = {};
  let offset = 0;
  const add = (filename: string, data: Buffer, hash: string) => {
    next[filename] = [offset, data.length, hash];
    parts.push(data);
    offset += data.length;
  };
  for (const [filename, { script, hash }] of compiled) add(filename, script.createCachedData(), hash);
  for (const [filename, entry] of cache.index) {
    if (compiled.has(filename) || offset + entry[1] > MAX_BLOB_BYTES) continue;
    const data = cache.read(entry);
    if (data !== undefined) add(filename, data, entry[2]);
  }
  const indexBytes = Buffer.from(JSON.stringify(next), 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32BE(indexBytes.length, 0);
  writeCacheFile(file, Buffer.concat([header, indexBytes, ...parts]));
}
