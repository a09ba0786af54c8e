// The reporters' names, apart from their factories (src/run/reporters/index.ts): the command line offers and checks
// them without loading a reporter (src/cli/context.ts: one lazy boundary into the core).

import { ObflowError } from '../../errors.js';

export const REPORTER_NAMES = ['cli', 'junit', 'json', 'html'] as const;

export type ReporterName = (typeof REPORTER_NAMES)[number];

export const DEFAULT_REPORTERS: readonly ReporterName[] = ['cli', 'junit'];

export function isReporterName(name: string): name is ReporterName {
  return (REPORTER_NAMES as readonly string[]).includes(name);
}

/** `cli,junit,json` (a flag's value; given twice, both lists) → reporter names, in order, each once. Throws ERR_USAGE
 *  naming an unknown one. */
export function parseReporterNames(value: string | readonly string[]): ReporterName[] {
  const names = (typeof value === 'string' ? [value] : value)
    .flatMap((part) => part.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isReporterName(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new ObflowError(
      'ERR_USAGE',
      `--reporters ${unknown.length > 0 ? `names no reporter ${unknown.join(', ')}` : 'needs at least one name'}`,
      {
        hint: `Choose from ${REPORTER_NAMES.join(', ')}, comma-separated (e.g. --reporters ${DEFAULT_REPORTERS.join(',')},json).`,
      },
    );
  }
  return [...new Set(names.filter(isReporterName))];
}
