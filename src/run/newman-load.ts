// newman's loading: the lazy import, once per process.

import { withoutWarning } from '../runner-rules.js';
import type { NewmanRun } from './newman-types.js';

let newmanRun: Promise<NewmanRun> | undefined;

/** newman costs ~0.3–0.45 s to import; only `run` pays it (STYLE.md: heavy dependencies lazily). newman 6.2.2 (the
 *  newest) reads every property of node:fs as it loads, fs.F_OK included, which Node.js 24 deprecates at run time: a
 *  DEP0176 line the user cannot act on, silenced for this import only (obflow itself uses fs.constants). */
export function loadNewman(): Promise<NewmanRun> {
  newmanRun ??= withoutWarning('DEP0176', () => import('newman')).then((module) => (module.default as unknown as { run: NewmanRun }).run);
  return newmanRun;
}
