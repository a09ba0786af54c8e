// The rows of a comparison of two versions' outcomes (compare-outcomes.ts): each field with its two values and a
// verdict, and the two ways a family's comparison makes one (equal; equal once v4.0's code is read as v3.1's name).
// Pure; imports nothing.

export interface OutcomeComparisonRow {
  field: string;
  v31: string;
  v40: string;
  /** same; explained (v4.0's code is v3.1's name); different (a failed check); shown (not judged). */
  verdict: 'same' | 'explained' | 'different' | 'shown';
}

/** The rows a family's comparison makes (its row's `compare`). */
export type OutcomeRows = OutcomeComparisonRow[];

/** A value absent on one side. */
export const ABSENT = '(absent)';

/** The row makers every family's comparison uses: equal or different; equal once v4.0's code is read as v3.1's name. */
export function outcomeRows(): {
  rows: OutcomeRows;
  same(field: string, a: string | undefined, b: string | undefined): void;
  mapped(field: string, codes: Readonly<Record<string, string>>, a: string | undefined, b: string | undefined): void;
} {
  const rows: OutcomeRows = [];
  return {
    rows,
    same(field, a, b) {
      rows.push({ field, v31: a ?? ABSENT, v40: b ?? ABSENT, verdict: a === b ? 'same' : 'different' });
    },
    mapped(field, codes, a, b) {
      const verdict = a === b ? 'same' : a !== undefined && b !== undefined && codes[a] === b ? 'explained' : 'different';
      rows.push({ field, v31: a ?? ABSENT, v40: b ?? ABSENT, verdict });
    },
  };
}
