// Node.js's module compile cache for the command line (issue 24): V8's compiled code of the modules obflow loads is kept
// on disk and reused by the next start, where the runtime offers it (module.enableCompileCache, Node.js ≥ 22.1; on
// Node.js 20 nothing happens). Only the obflow process itself turns it on (src/cli/main.ts, when run as the command),
// never a program that imports obflow. The cache lives in Node.js's default place (a node-compile-cache folder under the
// system's temporary directory); NODE_COMPILE_CACHE names another, NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// Measured by `npm run bench` (bench/runtimes.js).

import module from 'node:module';

type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };

/** Turns the compile cache on where this Node.js has it; returns whether it did (false on Node.js 20). */
export function enableCompileCache(): boolean {
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return false;
  try {
    enable();
    return true;
  } catch {
    // A cache that cannot be set up (read-only temporary directory) only costs speed.
    return false;
  }
}
