// Compiled code kept on disk for the command line: V8's code of the modules obflow loads is reused by the next start.
// Node.js ≥ 22.1 offers it for every module (module.enableCompileCache); Node.js 20 has no such API, and obflow patches
// neither its module loader nor node:vm to add one (docs/notes.md, "the start without the loader patches"). On every
// Node.js the HTML pages' Handlebars templates are kept too, compiled again by every run otherwise
// (src/run/reporters/template-cache.ts).
// Only the obflow process itself turns it on (src/cli/main.ts, when run as the command), never a program that imports
// obflow. The cache lives with the installation, in node_modules/.cache/obflow-compile-cache of obflow's folder (where
// tools keep their caches; never the system's temporary folder, which obflow leaves as it found it, nor the user's
// project); NODE_COMPILE_CACHE names another, NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder that cannot be
// written only costs speed. Measured by `npm run bench` (bench/runtimes.js).

import { createHash } from 'node:crypto';
import module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepCompiledTemplates } from '../run/reporters/template-cache.js';

type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };

/** obflow's folder is two up from this module (dist/cli/compile-cache.js). */
export const COMPILE_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/obflow-compile-cache', import.meta.url));

/** Which module cache a start uses: Node.js's own, or none (turned off, or a Node.js without one). */
export type CompileCacheKind = 'module' | 'none';

/**
 * Turns the compile caches on. `heapFlags`: the V8 flags the process's heap policy set (src/cli/heap.ts). V8 rejects
 * code cached under other flags, so each set of them has a cache of its own: a `obflow sandbox` (V8's defaults) beside
 * `obflow run` (lean) must not undo each other's.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env, heapFlags: readonly string[] = []): CompileCacheKind {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return 'none';
  keepCompiledTemplates(env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR);
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return 'none';
  try {
    // A NODE_COMPILE_CACHE folder is the user's: Node.js has turned it on before obflow started.
    enable(env.NODE_COMPILE_CACHE ? undefined : heapFlagsFolder(COMPILE_CACHE_DIR, heapFlags));
    return 'module';
  } catch {
    return 'none';
  }
}

/** The module compile cache's folder for a set of heap flags: the folder itself for none, else a subfolder named by them. */
export function heapFlagsFolder(folder: string, heapFlags: readonly string[]): string {
  return heapFlags.length === 0 ? folder : join(folder, `heap-${flagsKey(heapFlags)}`);
}

/** A short name for a set of flags (8 hex digits of their SHA-1). */
function flagsKey(flags: readonly string[]): string {
  return createHash('sha1').update(flags.join('\0')).digest('hex').slice(0, 8);
}
