// newman's loading: the lazy import, once per process.

import { createRequire } from 'node:module';
import { withoutWarning } from '../runner-rules.js';
import type { NewmanFileResolver, NewmanRun } from './newman-types.js';

let newmanRun: Promise<NewmanRun> | undefined;

/** newman costs ~0.3–0.45 s to import; only `run` pays it (STYLE.md: heavy dependencies lazily). newman 6.2.2 (the
 *  newest) reads every property of node:fs as it loads, fs.F_OK included, which Node.js 24 deprecates at run time: a
 *  DEP0176 line the user cannot act on, silenced for this import only (obflow itself uses fs.constants). */
export function loadNewman(): Promise<NewmanRun> {
  newmanRun ??= withoutWarning('DEP0176', () => import('newman')).then((module) => (module.default as unknown as { run: NewmanRun }).run);
  return newmanRun;
}

/** newman's file resolver class (lib/run/secure-fs.js, whose readFile postman-runtime calls for a request's certificate
 *  files), for src/run/certificate-files.ts; undefined where a newman keeps it elsewhere. Loaded as newman is. */
export function loadNewmanFileResolver(): Promise<NewmanFileResolver | undefined> {
  return withoutWarning('DEP0176', async () => {
    try {
      const resolver = createRequire(import.meta.url)('newman/lib/run/secure-fs.js') as Partial<NewmanFileResolver> | undefined;
      return typeof resolver?.prototype?.readFile === 'function' ? (resolver as NewmanFileResolver) : undefined;
    } catch {
      return undefined;
    }
  });
}
