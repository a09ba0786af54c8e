// Compiled code kept on disk for the command line (issues 21, 24): V8's code of the modules obflow loads is reused by
// the next start. Node.js ≥ 22.1 offers it (module.enableCompileCache, every module); on an older Node.js (20) obflow's
// own hook caches the CommonJS dependencies (src/cli/cjs-code-cache.ts: newman's tree, most of a run's loading). On
// every Node.js, newman's script sandbox's boot code is cached too (src/cli/sandbox-code-cache.ts): neither cache above
// sees code run with vm.runInContext; so is where `require` found each dependency's file (src/cli/resolve-cache.ts),
// which Node.js's loader looks up again at every start; and so are the HTML pages' Handlebars templates, compiled again
// by every run (src/run/reporters/template-cache.ts).
// Only the obflow process itself turns it on (src/cli/main.ts, when run as the command), never a program that imports
// obflow. The cache lives with the installation, in node_modules/.cache/obflow-compile-cache of obflow's folder (where
// tools keep their caches; never the system's temporary folder, which obflow leaves as it found it, nor the user's
// project); NODE_COMPILE_CACHE names another, NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder that cannot be
// written only costs speed. Measured by `npm run bench` (bench/runtimes.js).

import module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagsKey, installCjsCodeCache } from './cjs-code-cache.js';
import { installResolveCache } from './resolve-cache.js';
import { installSandboxCodeCache } from './sandbox-code-cache.js';
import { keepCompiledTemplates } from '../run/reporters/template-cache.js';

type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };

/** obflow's folder is two up from this module (dist/cli/compile-cache.js). */
export const COMPILE_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/obflow-compile-cache', import.meta.url));

/** The lockfile npm keeps in obflow's node_modules: the installation whose resolutions the resolve cache keeps. */
const INSTALLATION_LOCKFILE = fileURLToPath(new URL('../../node_modules/.package-lock.json', import.meta.url));

/** Which cache a start uses: Node.js's own, obflow's CommonJS one (Node.js < 22.1), or none (turned off). */
export type CompileCacheKind = 'module' | 'commonjs' | 'none';

/**
 * Turns the compile cache on: Node.js's where this Node.js has it, else obflow's CommonJS one. `heapFlags`: the V8
 * flags the process's heap policy set (src/cli/heap.ts). V8 rejects code cached under other flags, so each set of
 * them has a cache of its own: a `obflow sandbox` (V8's defaults) beside `obflow run` (lean) must not undo each other's.
 */
export function enableCompileCache(
  env: NodeJS.ProcessEnv = process.env,
  heapFlags: readonly string[] = [],
  cacheable: () => boolean = () => true,
): CompileCacheKind {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return 'none';
  installSandboxCodeCache(env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR, heapFlags, cacheable);
  installResolveCache(env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR, INSTALLATION_LOCKFILE);
  keepCompiledTemplates(env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR);
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function')
    return installCjsCodeCache(env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR, heapFlags, cacheable) ? 'commonjs' : 'none';
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
