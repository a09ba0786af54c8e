// The profiles' tolerances (src/sandbox/policy.ts) and docs/sandbox.md's "Tolerances" table stay one table: every row
// documented once with its profiles, the clause it relaxes and what it accepts; every row read by some handler and
// given a pair of attempts (test/helpers/policy-pairs.ts, run with the row flipped by the integration test of the
// same name); and no handler telling the profiles apart any other way.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { PROFILE_NAMES } from '../../src/sandbox/contracts.js';
import { tolerates, TOLERANCES } from '../../src/sandbox/policy.js';
import type { ToleranceName } from '../../src/sandbox/policy.js';
import { POLICY_PAIRS } from '../helpers/policy-pairs.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

/** The rows of the table under docs/sandbox.md's "### Tolerances" heading, as cells. */
function documentedRows(): string[][] {
  const markdown = readFileSync(join(REPO_ROOT, 'docs/sandbox.md'), 'utf8');
  const start = markdown.indexOf('\n### Tolerances\n');
  expect(start, 'docs/sandbox.md has a "### Tolerances" section').toBeGreaterThan(0);
  const section = markdown.slice(start + 1).split(/\n#{2,3} /)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

const handlerSources = readdirSync(join(REPO_ROOT, 'src/sandbox'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && file !== 'policy.ts')
  .map((file) => ({ file, text: readFileSync(join(REPO_ROOT, 'src/sandbox', file), 'utf8') }));

describe('the tolerance table', () => {
  it('is documented in docs/sandbox.md row by row: name, profiles, clause, what is accepted', () => {
    const documented = documentedRows();
    expect(documented.map((cells) => cells[0])).toEqual(TOLERANCES.map((row) => `\`${row.name}\``));
    for (const [index, row] of TOLERANCES.entries()) {
      expect(documented[index], row.name).toEqual([
        `\`${row.name}\``,
        row.profiles.map((profile) => `\`${profile}\``).join(', '),
        row.relaxes,
        row.accepts,
      ]);
    }
  });

  it('names each tolerance once, each with a clause of a standard', () => {
    expect(new Set(TOLERANCES.map((row) => row.name)).size).toBe(TOLERANCES.length);
    for (const row of TOLERANCES) {
      expect(row.relaxes, row.name).toMatch(/§|OBIE|OB |AIS v3|DCR v3/);
      expect(row.profiles.length, row.name).toBeGreaterThan(0);
      for (const profile of row.profiles) expect(PROFILE_NAMES, row.name).toContain(profile);
    }
  });

  it('gives strict profiles no tolerance and permissive ones every tolerance (docs/sandbox.md, "The four profiles")', () => {
    for (const row of TOLERANCES) {
      const name: ToleranceName = row.name;
      expect(
        PROFILE_NAMES.filter((profile) => tolerates(profile, name)),
        name,
      ).toEqual(['permissive-headless', 'permissive-interactive']);
    }
  });

  it('has a pair of attempts per row, run both ways and with the row flipped by test/integration/sandbox-policy.test.ts', () => {
    // Finding the name in a handler is not enough (a rule can be read and never decide anything); each row's attempts
    // must be refused by strict, accepted by permissive, and swap when the row is flipped.
    expect(Object.keys(POLICY_PAIRS).sort()).toEqual(TOLERANCES.map((row) => row.name).sort());
    for (const row of TOLERANCES) expect(POLICY_PAIRS[row.name].length, row.name).toBeGreaterThan(0);
  });

  it('is read by the handlers: every row is asked for somewhere in src/sandbox', () => {
    const unread = TOLERANCES.filter((row) => !handlerSources.some(({ text }) => text.includes(`'${row.name}'`)));
    expect(unread.map((row) => row.name)).toEqual([]);
  });

  it('is the only way the handlers tell the profiles apart by their rules', () => {
    // No `strict` flag, no profile name compared by its prefix: src/sandbox/contracts.ts only lists the names.
    const branches = handlerSources.flatMap(({ file, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          /\bstrict\b(?!-)|strictness|startsWith\('(strict|permissive)|'(strict|permissive)'/.test(
            line.replace(/\/\/.*$|^\s*(\/\*\*?|\*).*$/, ''),
          )
            ? [`${file}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(branches).toEqual([]);
  });
});

describe("the README's profile table says what the strict profiles do", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const strictRows = readme.split('\n').filter((line) => /^\| strict-(headless|interactive) \|/.test(line));

  it('claims no more than the table enforces: unsigned request objects are accepted, as the interface says', () => {
    expect(strictRows).toHaveLength(2);
    for (const row of strictRows) {
      // docs/bank-interface.md §5.2: request objects are unsigned (alg none); FAPI 1 Advanced §5.2.2-1 wants them signed.
      expect(row).not.toMatch(/every rule/);
      expect(row).toMatch(/unsigned request objects/);
      expect(row).toMatch(/no tolerance/);
    }
  });
});
