// The reporters a run can be asked for by name (`obflow run --reporters cli,junit,json`): one row each, a factory
// building a run subscriber (src/run/events.ts). A new reporter is a new file and one row here.

import type { ReporterFactory } from '../events.js';
import { createCliReporter } from './cli.js';
import { createJsonReporter } from './json.js';
import { createJunitReporter } from './junit.js';

export const REPORTERS = {
  /** Progress lines for people (src/run/reporters/cli.ts). */
  cli: createCliReporter,
  /** newman's JUnit XML per batch of steps, redacted (src/run/reporters/junit.ts). */
  junit: createJunitReporter,
  /** One JSON file per run: steps, requests with status and timing, assertions (src/run/reporters/json.ts). */
  json: createJsonReporter,
} as const satisfies Record<string, ReporterFactory>;

export type ReporterName = keyof typeof REPORTERS;

export const REPORTER_NAMES = Object.keys(REPORTERS) as ReporterName[];

export const DEFAULT_REPORTERS: readonly ReporterName[] = ['cli', 'junit'];

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name);
}
