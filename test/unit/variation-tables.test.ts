// A variation is a table with one row per case, resolved once and passed down (docs/notes.md, "The FAPI profile as one
// table"): the values that name a case may be written only in the files that hold its table. One row per variation
// below — its name, the pattern of its values as code writes them, the files allowed to hold them — and every row is
// held to every module of src/. Another variation is another row.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';

interface Variation {
  name: string;
  /** The values as code writes them (a quoted literal: compared, typed or listed). */
  pattern: RegExp;
  /** The only modules that may write them: the variation's tables. */
  allowedFiles: readonly string[];
}

const VARIATIONS: readonly Variation[] = [
  {
    // obflow's profiles (flow.fapi) and the emulator's modes (sandbox.fapi): each room has its own table.
    name: 'FAPI profile',
    pattern: /'1-advanced'|'2\.0'/,
    allowedFiles: ['src/fapi-profile.ts', 'src/sandbox/auth/fapi.ts'],
  },
];

interface Source {
  path: string;
  text: string;
}

const SRC = join(REPO_ROOT, 'src');
const sources: readonly Source[] = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ path: `src/${file.split('\\').join('/')}`, text: readFileSync(join(SRC, file), 'utf8') }));

/** Every line outside the variation's tables that writes one of its values, as `path:line: text`. */
function outsideTables(variation: Variation, files: readonly Source[]): string[] {
  return files
    .filter(({ path }) => !variation.allowedFiles.includes(path))
    .flatMap(({ path, text }) =>
      text.split('\n').flatMap((line, index) => (variation.pattern.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [])),
    );
}

describe('each variation is written in its tables only', () => {
  it.each(VARIATIONS)('$name: its values appear in no module but its tables', (variation) => {
    expect(outsideTables(variation, sources)).toEqual([]);
  });

  it.each(VARIATIONS)('$name: each of its tables is where the row says (a moved table is a stale row)', (variation) => {
    for (const path of variation.allowedFiles) {
      const table = sources.find((source) => source.path === path);
      expect(table, path).toBeDefined();
      expect(variation.pattern.test(table?.text ?? ''), path).toBe(true);
    }
  });

  it('catches a value compared, typed or listed outside its table (the check can fail)', () => {
    const [fapi] = VARIATIONS as [Variation];
    const offenders: Source[] = [
      { path: 'src/pipeline/x.ts', text: "const a = 1;\nif (config.flow.fapi === '2.0') return true;" },
      { path: 'src/registration/y.ts', text: "  fapi?: '2.0';" },
      { path: 'src/sandbox/auth/z.ts', text: "if (deps.fapi === '1-advanced') fail();" },
      { path: 'src/fapi-profile.ts', text: "export const FAPI_PROFILE_NAMES = ['1-advanced', '2.0'] as const;" },
    ];
    expect(outsideTables(fapi, offenders)).toEqual([
      "src/pipeline/x.ts:2: if (config.flow.fapi === '2.0') return true;",
      "src/registration/y.ts:1: fapi?: '2.0';",
      "src/sandbox/auth/z.ts:1: if (deps.fapi === '1-advanced') fail();",
    ]);
  });
});
