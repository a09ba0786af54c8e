// The reporters a run can be asked for by name (`obflow run --reporters cli,junit,json`): one row each, a factory
// building a run subscriber (src/run/events.ts). A new reporter is a new file and one row here.

import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReporterFactory } from '../events.js';
import { createCliReporter } from './cli.js';
import { createJsonReporter, JSON_REPORT_FILE } from './json.js';
import { HTML_REPORT_FILE, htmlReporter } from './html.js';
import { createJunitReporter, junitFileName } from './junit.js';
import type { ReporterName } from './names.js';

export * from './names.js';

export const REPORTERS = {
  /** Progress lines for people (src/run/reporters/cli.ts). */
  cli: createCliReporter,
  /** newman's JUnit XML per batch of steps, redacted (src/run/reporters/junit.ts). */
  junit: createJunitReporter,
  /** One JSON file per run: steps, requests with status and timing, assertions (src/run/reporters/json.ts). */
  json: createJsonReporter,
  /** One self-contained HTML page for people: steps, requests, checks, accounts read (src/run/reporters/html.ts). */
  html: htmlReporter,
} as const satisfies Record<ReporterName, ReporterFactory>;

/** The reports an earlier run of these steps may have left in `reportDir` (the page, the JSON file, the JUnit file of
 *  any batch of consecutive steps), removed before a run begins: a run that is interrupted, or fails before it writes,
 *  never leaves an earlier run's passing report.html as if it were its own. Only obflow's own file names. */
export async function removePreviousReports(reportDir: string, steps: readonly string[]): Promise<void> {
  const names = new Set([HTML_REPORT_FILE, JSON_REPORT_FILE]);
  for (let first = 0; first < steps.length; first += 1)
    for (let last = first; last < steps.length; last += 1) names.add(junitFileName(steps[first] ?? '', steps[last] ?? ''));
  // The folder's names once, then only those present removed: not a removal tried for each of the 100-odd possible names.
  let present: string[];
  try {
    present = await readdir(reportDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await Promise.all(present.filter((name) => names.has(name)).map((name) => rm(join(reportDir, name), { force: true })));
}
