// V8's compiled code of newman's script sandbox, kept on disk (issue 34, item 2). Every newman run makes a sandbox for
// the collection's scripts (postman-sandbox, through uvm): a new V8 context in which it runs its boot code, a 2.4 MB
// bundle (lodash, chai, ajv, the collection SDK, …) compiled from source each time — ~125 ms of each run's start, ~50 ms
// with V8's code of the previous run (compiled after that run, so the functions the scripts called are in it too).
// uvm runs the boot code with `vm.runInContext`, which takes no cached code; this hook runs a script that large as
// Node.js's vm.runInContext does (a vm.Script, then script.runInContext with the same options), with the cached code.
// Any other vm.runInContext call (uvm's dispatches, a few hundred bytes each) goes to Node.js's own, untouched.
//
// Safe by its key: the cache names the SHA-1 of the code it was made from, and code V8 rejects (another V8, other
// flags) is compiled as usual and cached anew; one file per Node.js version, arch and V8 flags, written at exit only when this process compiled the code from source, whole (a temporary beside
// it, renamed); a cache that cannot be read is absent, one that cannot be written is skipped. While V8's flags are not
// those of the start (the heap policy's late flag, src/cli/heap.ts: set once newman's first run has started, so after
// the first sandbox is made) the boot code is compiled as before, and nothing is cached.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { writeCacheFile } from '../fs.js';

/** Code this large is a sandbox's boot code (postman-sandbox's is 2.4 MB); collection scripts and dispatches are small. */
export const BOOT_CODE_MIN_LENGTH = 1024 * 1024;

export interface SandboxCodeCacheStats {
  /** Boot code run with V8's cached code. */
  hits: number;
  /** Boot code compiled from source (no cache, another code, or rejected by V8). */
  misses: number;
  /** Boot code compiled while V8's flags were not those of the start: not cached. */
  bypassed: number;
}

const stats: SandboxCodeCacheStats = { hits: 0, misses: 0, bypassed: 0 };
let installed = false;

/** What this process's sandbox code cache did so far (for tests and the bench). */
export function sandboxCodeCacheStats(): SandboxCodeCacheStats {
  return { ...stats };
}

/**
 * Runs boot code given to vm.runInContext with V8's code cached in `dir` (the file named by the heap policy's start
 * flags, `heapFlags`); while `cacheable()` is false it is compiled as before. Installing twice is a no-op.
 */
export function installSandboxCodeCache(dir: string, heapFlags: readonly string[] = [], cacheable: () => boolean = () => true): void {
  if (installed) return;
  installed = true;
  const file = join(dir, sandboxCacheFileName(process.execArgv, process.env.NODE_OPTIONS ?? '', heapFlags));
  const original = vm.runInContext;
  let toWrite: { script: vm.Script; hash: string } | undefined;

  vm.runInContext = function runInContext(code: string, contextifiedObject: vm.Context, options?: vm.RunningScriptOptions | string) {
    if (typeof code !== 'string' || code.length < BOOT_CODE_MIN_LENGTH) return original.call(vm, code, contextifiedObject, options);
    if (!cacheable()) {
      stats.bypassed += 1;
      return original.call(vm, code, contextifiedObject, options);
    }
    // What Node.js's vm.runInContext does, with the cached code (a string is the filename).
    const scriptOptions: vm.ScriptOptions = typeof options === 'string' ? { filename: options } : { ...options };
    const hash = createHash('sha1').update(code).digest('base64');
    const cachedData = readCache(file, hash);
    const script = new vm.Script(code, { ...scriptOptions, ...(cachedData !== undefined ? { cachedData } : {}) });
    if (cachedData !== undefined && script.cachedDataRejected !== true) stats.hits += 1;
    else {
      stats.misses += 1;
      toWrite = { script, hash };
    }
    return script.runInContext(contextifiedObject, scriptOptions);
  } as typeof vm.runInContext;

  // At exit the code holds what the run compiled too. Never a throw here (the exit code is the command's).
  process.on('exit', () => {
    if (toWrite === undefined) return;
    let code: Buffer;
    try {
      code = toWrite.script.createCachedData();
    } catch {
      return; // The cache only costs speed: the next run compiles from source.
    }
    writeCacheFile(file, Buffer.concat([Buffer.from(toWrite.hash, 'latin1'), code]));
  });
}

/** One cache per Node.js version, arch and V8 flags (V8 rejects code compiled under other flags: a `--cpu-prof` start, a
 *  heap policy's flags): `sandbox-<Node.js version>-<arch>[-<flagsKey>].cache`, no suffix for none. */
export function sandboxCacheFileName(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  heapFlags: readonly string[] = [],
): string {
  const flags = [...execArgv, nodeOptions, ...heapFlags];
  return `sandbox-${process.version}-${process.arch}${flags.join('') === '' ? '' : `-${flagsKey(flags)}`}.cache`;
}

/** A short name for a set of flags, for the caches kept per set (8 hex digits of their SHA-1). */
export function flagsKey(flags: readonly string[]): string {
  return createHash('sha1').update(flags.join('\0')).digest('hex').slice(0, 8);
}

/** The file: the SHA-1 of the code (base64, 28 bytes), then V8's cached data. Undefined: absent, unreadable, other code. */
function readCache(file: string, hash: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  const named = Buffer.from(hash, 'latin1');
  return data.length > named.length && data.subarray(0, named.length).equals(named) ? data.subarray(named.length) : undefined;
}
