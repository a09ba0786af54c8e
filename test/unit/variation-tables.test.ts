// A variation is a table with one row per case, resolved once and passed down (STYLE.md): the literal that names a case
// is compared only in the module that owns the table. One row here per variation: the pattern of a comparison with one
// of its literals, and the files allowed to hold one. The emulator (src/sandbox/) keeps its own tables.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';

interface VariationTable {
  /** What varies. */
  name: string;
  /** A comparison with one of its literals (`=== '4.0'`, `'3.1' !==`). */
  pattern: RegExp;
  /** The modules that own the table and may compare. */
  allowedFiles: readonly string[];
}

const VARIATION_TABLES: readonly VariationTable[] = [
  {
    // The API version (src/generate/api-versions.ts API_VERSION_ROWS): every per-version difference is a field of the row.
    name: 'API version',
    pattern: /[!=]==?\s*'(?:3\.1|4\.0)'|'(?:3\.1|4\.0)'\s*[!=]==?/,
    allowedFiles: ['src/generate/api-versions.ts'],
  },
];

const SRC = join(REPO_ROOT, 'src');
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `src/${file.split('\\').join('/')}`)
  .filter((path) => !path.startsWith('src/sandbox/'))
  .map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }));

/** Each line of `text` that compares one of the table's literals outside the files allowed to. */
function offenders(table: VariationTable, sources: readonly { path: string; text: string }[]): string[] {
  return sources
    .filter(({ path }) => !table.allowedFiles.includes(path))
    .flatMap(({ path, text }) =>
      text.split('\n').flatMap((line, index) => (table.pattern.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [])),
    );
}

describe('each variation table', () => {
  it.each(VARIATION_TABLES)('$name: its literals are compared only where its table lives', (table) => {
    expect(offenders(table, files)).toEqual([]);
  });
});

describe('the API version', () => {
  const table = VARIATION_TABLES.find((row) => row.name === 'API version');

  it('catches a version literal compared elsewhere (the check can fail)', () => {
    if (table === undefined) throw new TypeError('no API version row');
    const offender = "if (version === '4.0') return 'ITAV';\nconst ok = rows[version].balanceType;\nif ('3.1' !== apiVersion) x();";
    expect(offenders(table, [{ path: 'src/run/x.ts', text: offender }])).toEqual([
      "src/run/x.ts:1: if (version === '4.0') return 'ITAV';",
      "src/run/x.ts:3: if ('3.1' !== apiVersion) x();",
    ]);
    expect(offenders(table, [{ path: 'src/generate/api-versions.ts', text: offender }])).toEqual([]);
  });
});
