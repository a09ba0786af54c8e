// The reporters a run can be asked for by name (`obflow run --reporters cli,junit,json`): one row each, a factory
// building a run subscriber (src/run/events.ts). A new reporter is a new file and one row here.

import { ObflowError } from '../../errors.js';
import type { ReporterFactory } from '../events.js';
import { createCliReporter } from './cli.js';
import { createJsonReporter } from './json.js';
import { htmlReporter } from '../../report/subscriber.js';
import { createJunitReporter } from './junit.js';

export const REPORTERS = {
  /** Progress lines for people (src/run/reporters/cli.ts). */
  cli: createCliReporter,
  /** newman's JUnit XML per batch of steps, redacted (src/run/reporters/junit.ts). */
  junit: createJunitReporter,
  /** One JSON file per run: steps, requests with status and timing, assertions (src/run/reporters/json.ts). */
  json: createJsonReporter,
  /** One self-contained HTML page for people: steps, requests, checks, accounts read (src/report/subscriber.ts). */
  html: htmlReporter,
} as const satisfies Record<string, ReporterFactory>;

export type ReporterName = keyof typeof REPORTERS;

export const REPORTER_NAMES = Object.keys(REPORTERS) as ReporterName[];

export const DEFAULT_REPORTERS: readonly ReporterName[] = ['cli', 'junit'];

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name);
}

/** `cli,junit,json` (a flag's value; given twice, both lists) → reporter names, in order, each once. Throws ERR_USAGE
 *  naming an unknown one. */
export function parseReporterNames(value: string | readonly string[]): ReporterName[] {
  const names = (typeof value === 'string' ? [value] : value).flatMap((part) => part.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !isReporterName(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new ObflowError('ERR_USAGE', `--reporters ${unknown.length > 0 ? `names no reporter ${unknown.join(', ')}` : 'needs at least one name'}`, {
      hint: `Choose from ${REPORTER_NAMES.join(', ')}, comma-separated (e.g. --reporters ${DEFAULT_REPORTERS.join(',')},json).`,
    });
  }
  return [...new Set(names.filter(isReporterName))];
}
