// The reporters a run can be asked for by name (`obflow run --reporters cli,junit,json`): one row each, a factory
// building a run subscriber (src/run/events.ts). A new reporter is a new file and one row here.

import type { ReporterFactory } from '../events.js';
import { createCliReporter } from './cli.js';
import { createJsonReporter } from './json.js';
import { htmlReporter } from './html.js';
import { createJunitReporter } from './junit.js';
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
