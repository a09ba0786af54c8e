// Node.js's module compile cache for the command line (issue 24): V8's compiled code of the modules obflow loads is kept
// on disk and reused by the next start, where the runtime offers it (module.enableCompileCache, Node.js ≥ 22.1; on
// Node.js 20 nothing happens). Only the obflow process itself turns it on (src/cli/main.ts, when run as the command),
// never a program that imports obflow. The cache lives with the installation, in node_modules/.cache/obflow-compile-cache
// of obflow's folder (where tools keep their caches; never the system's temporary folder, which obflow leaves as it
// found it); NODE_COMPILE_CACHE names another, NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder that cannot be
// written only costs speed. Measured by `npm run bench` (bench/runtimes.js).

import module from 'node:module';
import { fileURLToPath } from 'node:url';

type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };

/** obflow's folder is two up from this module (dist/cli/compile-cache.js). */
export const COMPILE_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/obflow-compile-cache', import.meta.url));

/** Turns the compile cache on where this Node.js has it; returns whether it did (false on Node.js 20). */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): boolean {
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return false;
  try {
    enable(env.NODE_COMPILE_CACHE ? undefined : COMPILE_CACHE_DIR);
    return true;
  } catch {
    return false;
  }
}
