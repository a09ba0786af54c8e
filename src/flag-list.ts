// A flag whose value is a comma-separated list of known names (`--api-version 3.1,4.0`, `--token-auth a,b`): one
// parser, on the `--help` path (it imports only errors.ts), so each flag says only its names and its words.

import { ObflowError } from './errors.js';

/** Each item known, each once, at least one; else ERR_USAGE `--<flag> <unknownLabel>: x, y` (or `is empty`). */
export function parseFlagList<Name extends string>(
  text: string,
  flag: string,
  known: readonly Name[],
  words: { unknownLabel: string; hint: string },
): Name[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const names: readonly string[] = known;
  const unknown = items.filter((item) => !names.includes(item));
  if (items.length === 0 || unknown.length > 0) {
    throw new ObflowError('ERR_USAGE', `--${flag} ${unknown.length > 0 ? `${words.unknownLabel}: ${unknown.join(', ')}` : 'is empty'}`, {
      hint: words.hint,
    });
  }
  return [...new Set(items)] as Name[];
}
