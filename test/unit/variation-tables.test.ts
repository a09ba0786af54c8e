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
  /** How the table itself writes the values, where that is not `pattern` (the version table keys rows by them). */
  values?: RegExp;
  /** The part of src/ the row holds (default: all of it): a room with its own table has its own row. */
  within?: (path: string) => boolean;
}

const VARIATIONS: readonly Variation[] = [
  {
    // obflow's profiles (flow.fapi) and the emulator's modes (sandbox.fapi): each room has its own table.
    name: 'FAPI profile',
    pattern: /'1-advanced'|'2\.0'/,
    allowedFiles: ['src/fapi-profile.ts', 'src/sandbox/auth/fapi.ts'],
  },
  {
    // The API version (src/generate/api-versions.ts API_VERSION_ROWS): every per-version difference is a field of the
    // row, so a version is only ever compared there. A comparison, not any mention: a version is also a key of tables.
    name: 'API version (TPP side)',
    pattern: /[!=]==?\s*'(?:3\.1|4\.0)'|'(?:3\.1|4\.0)'\s*[!=]==?/,
    allowedFiles: ['src/generate/api-versions.ts'],
    values: /'(?:3\.1|4\.0)'/,
    within: (path) => !path.startsWith('src/sandbox/'),
  },
  {
    // The emulator's own room: AIS's per-version request headers and shapes are tables in resource/index.ts, which
    // alone compares a version (the v4.0 error envelope and consent data around them); the payment, funds and VRP
    // families read theirs from resource/versions.ts and vrp-tables.ts rows and compare none.
    name: 'API version (emulator)',
    pattern: /[!=]==?\s*'(?:3\.1|4\.0)'|'(?:3\.1|4\.0)'\s*[!=]==?/,
    allowedFiles: ['src/sandbox/resource/index.ts'],
    values: /'(?:3\.1|4\.0)'/,
    within: (path) => path.startsWith('src/sandbox/'),
  },
  {
    // Which APIs a run covers (src/api-families.ts on obflow's side, src/sandbox/families.ts in the emulator): a family
    // is a row, never a name compared; the emulator's resource server tells AIS's own path from the operation path
    // (resource/index.ts) and that is the one comparison.
    name: 'API family',
    pattern: /[!=]==?\s*'(?:accounts|payments|funds|vrp)'|'(?:accounts|payments|funds|vrp)'\s*[!=]==?/,
    allowedFiles: ['src/api-families.ts', 'src/sandbox/families.ts', 'src/sandbox/resource/index.ts'],
    values: /'(?:accounts|payments|funds|vrp)'/,
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
    .filter(({ path }) => (variation.within?.(path) ?? true) && !variation.allowedFiles.includes(path))
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
      expect((variation.values ?? variation.pattern).test(table?.text ?? ''), path).toBe(true);
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

  it('catches an API family compared outside its tables, on either side (the check can fail)', () => {
    const family = VARIATIONS.find((row) => row.name === 'API family') as Variation;
    const offender = "if (family.name === 'payments') sign();\nconst row = API_FAMILIES['vrp'];\nif ('funds' !== name) x();";
    expect(
      outsideTables(family, [
        { path: 'src/run/x.ts', text: offender },
        { path: 'src/sandbox/resource/y.ts', text: offender },
      ]),
    ).toEqual([
      "src/run/x.ts:1: if (family.name === 'payments') sign();",
      "src/run/x.ts:3: if ('funds' !== name) x();",
      "src/sandbox/resource/y.ts:1: if (family.name === 'payments') sign();",
      "src/sandbox/resource/y.ts:3: if ('funds' !== name) x();",
    ]);
  });

  it('catches an API version compared outside its table on the TPP side (the check can fail)', () => {
    const version = VARIATIONS.find((row) => row.name.startsWith('API version')) as Variation;
    const offender = "if (version === '4.0') return 'ITAV';\nconst ok = rows[version].balanceType;\nif ('3.1' !== apiVersion) x();";
    expect(outsideTables(version, [{ path: 'src/run/x.ts', text: offender }])).toEqual([
      "src/run/x.ts:1: if (version === '4.0') return 'ITAV';",
      "src/run/x.ts:3: if ('3.1' !== apiVersion) x();",
    ]);
    expect(outsideTables(version, [{ path: 'src/generate/api-versions.ts', text: offender }])).toEqual([]);
  });
});
