// What a money family's legs did on v3.1 and on v4.0, side by side (a run of `--apis <family> --api-version 3.1,4.0`):
// the same payment or mandate was asked on both versions, so what the bank did must agree once v4.0's codes are read as
// v3.1's names; a difference is a version-specific bug (the bank's or obflow's). One row per family compared
// (OUTCOME_COMPARISONS): the payment (compare-payments.ts), the VRP mandate's walk (compare-mandates.ts). Pure.

import type { ApiFamilyName } from '../../api-families.js';
import type { RunOutcomes } from '../../runner-rules.js';
import { compareMandates } from './compare-mandates.js';
import { comparePayments } from './compare-payments.js';
import type { OutcomeRows } from './compare-rows.js';

/** How a family's outcome is compared and named on every surface (the terminal, the verdict's error, report.html). */
export interface OutcomeComparisonKind {
  /** The thing compared, as lines name it (`payment v3.1 beside v4.0:`). */
  what: string;
  /** The page's heading before "v3.1 beside v4.0". */
  title: string;
  /** The page's section id (`#payment-versions`). */
  anchor: string;
  /** What the verdict's error says differs: `the payments made` on v3.1 and v4.0. */
  between: string;
  /** The page's note after the link to the other version's page: what was asked and what is not compared. */
  note: string;
  /** The verdict's hint when a row differs. */
  hint: string;
  /** Whether a leg's run has the family's outcome at all (this run wrote it: src/run/summary.ts). */
  has(outcomes: RunOutcomes): boolean;
  compare(v31: RunOutcomes, v40: RunOutcomes): OutcomeRows;
}

/** One row per family whose two versions' outcomes are compared; a family without a row is not (accounts has its own
 *  comparison of the data read: compare-versions.ts). */
export const OUTCOME_COMPARISONS: Readonly<Partial<Record<ApiFamilyName, OutcomeComparisonKind>>> = {
  payments: {
    what: 'payment',
    title: 'Payment',
    anchor: 'payment-versions',
    between: 'the payments made',
    note:
      "the same payment asked on both. v4.0's ISO 20022 status codes are read as v3.1's names (AcceptedSettlementCompleted ↔ " +
      'ACSC, Consumed ↔ COND, …); any other difference is a failed check. The ids differ (two payments).',
    hint: 'The bank made the same payment differently on its two versions: look at the field named in both runs\' reports (docs/collections.md, "Versions").',
    has: (outcomes) => outcomes.payment !== undefined,
    compare: (v31, v40) => comparePayments(v31.payment, v40.payment),
  },
  vrp: {
    what: 'VRP mandate',
    title: 'VRP mandate',
    anchor: 'vrp-versions',
    between: 'the VRP mandates walked',
    note:
      "the same mandate walked on both: each limit's payments made and refused, with their amounts. v4.0's codes are read " +
      "as v3.1's names (Authorised ↔ AUTH; a limit's refusal UK.OBIE.Rules.FailsControlParameters ↔ U014); any other " +
      'difference is a failed check. Ids and times differ (two mandates).',
    hint: 'The bank held the same mandate differently on its two versions: look at the limit named in both runs\' reports (docs/collections.md, "Versions").',
    has: (outcomes) => outcomes.vrp !== undefined,
    compare: (v31, v40) => compareMandates(v31.vrp, v40.vrp),
  },
};

export interface OutcomeComparison {
  family: ApiFamilyName;
  rows: OutcomeRows;
  /** The rows that differ where nothing explains it: each a failed check. */
  differences: OutcomeRows;
}

/** The family's two outcomes compared; undefined for a family without a row, and when neither leg has the outcome (two
 *  legs that stopped before their payment compare nothing: "no unexplained difference" would be a pass not earned; one
 *  leg without it is a difference, row by row). */
export function compareOutcomes(family: ApiFamilyName, v31: RunOutcomes, v40: RunOutcomes): OutcomeComparison | undefined {
  const kind = OUTCOME_COMPARISONS[family];
  if (kind === undefined || (!kind.has(v31) && !kind.has(v40))) return undefined;
  const rows = kind.compare(v31, v40);
  return { family, rows, differences: rows.filter((row) => row.verdict === 'different') };
}

/** The family's row (a comparison is only made for a family that has one). */
export function comparisonKindOf(comparison: Pick<OutcomeComparison, 'family'>): OutcomeComparisonKind {
  const kind = OUTCOME_COMPARISONS[comparison.family];
  if (kind === undefined) throw new TypeError(`no outcome comparison for the ${comparison.family} family`);
  return kind;
}

/** The terminal's lines: `payment v3.1 beside v4.0:` and a row each, then the verdict. */
export function formatOutcomeComparison(comparison: OutcomeComparison): string[] {
  const { what } = comparisonKindOf(comparison);
  const lines = [`${what} v3.1 beside v4.0:`];
  for (const row of comparison.rows)
    lines.push(`  ${row.field}: ${row.v31} | ${row.v40}${row.verdict === 'explained' ? ' (the v4.0 code of the v3.1 name)' : ''}`);
  for (const row of comparison.differences)
    lines.push(`✗ ${what} ${row.field}: v3.1 ${row.v31}, v4.0 ${row.v40} (not explained by the code mapping)`);
  if (comparison.differences.length === 0) lines.push('✓ no unexplained difference');
  return lines;
}
