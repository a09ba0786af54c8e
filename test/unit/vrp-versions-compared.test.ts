// The VRP mandate walked on v3.1 beside v4.0 (src/run/reporters/compare-outcomes.ts, its vrp row; compare-mandates.ts):
// the same walk on both versions is "same" once v4.0's codes are read as v3.1's names; a walk that went otherwise on one
// version (a payment refused at another amount, made past a limit, another count, another code) is named, fails the
// run's verdict with ERR_VERSIONS_DIFFER and the later leg's page.

import { describe, expect, it } from 'vitest';

import { API_FAMILIES } from '../../src/api-families.js';
import { legsVerdict, type LegOutcome } from '../../src/pipeline/verdict.js';
import {
  compareOutcomes,
  comparisonKindOf,
  formatOutcomeComparison,
  type OutcomeComparison,
} from '../../src/run/reporters/compare-outcomes.js';
import { renderHtmlReport } from '../../src/run/reporters/page.js';
import { buildRunSummary } from '../../src/run/summary.js';
import { outcomesFromValues, type VrpMandateRow } from '../../src/runner-rules.js';

const control = {
  VRPType: ['UK.OBIE.VRPType.Sweeping'],
  MaximumIndividualAmount: { Amount: '10.00', Currency: 'GBP' },
  PeriodicLimits: [{ PeriodType: 'Day', PeriodAlignment: 'Consent', Amount: '25.00', Currency: 'GBP' }],
};
const made = (amount: string) => ({ Amount: amount, Outcome: 'made' });
const refused = (amount: string, limit: string, code: string) => ({ Amount: amount, Outcome: 'refused', Limit: limit, ErrorCode: code });

/** The walk obflow plans for the default mandate (src/generate/vrp-plan.ts), each refusal with the version's code. */
const walkOf = (code: string) => [
  made('10.00'),
  refused('10.01', 'MaximumIndividualAmount', code),
  made('10.00'),
  refused('10.00', 'PeriodicLimits[0]', code),
  made('5.00'),
  refused('0.01', 'PeriodicLimits[0]', code),
];

const V31_CODE = 'UK.OBIE.Rules.FailsControlParameters';
const V40_CODE = 'U014';

function mandateOf(walk: object[], status: string): VrpMandateRow {
  const values = [
    { key: 'consent_id', value: `vrc-${status}` },
    { key: 'vrp_consent_status', value: status },
    { key: 'vrp_control_parameters', value: JSON.stringify(control) },
    { key: 'vrp_walk', value: JSON.stringify(walk) },
  ];
  const mandate = outcomesFromValues(values).vrp;
  if (mandate === undefined) throw new TypeError('a mandate');
  return mandate;
}

function compared(v31: VrpMandateRow, v40: VrpMandateRow): OutcomeComparison {
  const comparison = compareOutcomes('vrp', { vrp: v31 }, { vrp: v40 });
  if (comparison === undefined) throw new TypeError('the vrp family has no comparison row');
  return comparison;
}

const v31 = mandateOf(walkOf(V31_CODE), 'Authorised');
const v40 = mandateOf(walkOf(V40_CODE), 'AUTH');

describe('the VRP mandate on v3.1 beside v4.0', () => {
  it('the same walk: every row same, the consent status and the refusals’ code explained by the mapping; ids not compared', () => {
    const comparison = compared(v31, v40);
    expect(comparison.differences).toEqual([]);
    expect(comparison.rows.map((row) => [row.field, row.verdict])).toEqual([
      ['VRPType', 'same'],
      ['consent Status', 'explained'],
      ['payments made', 'same'],
      ['refused at a limit', 'same'],
      ['made past a limit', 'same'],
      ['MaximumIndividualAmount', 'same'],
      ['PeriodicLimits[0]', 'same'],
      ['refusal ErrorCode', 'explained'],
    ]);
    expect(comparison.rows.find((row) => row.field === 'PeriodicLimits[0]')?.v31).toBe(
      '25.00 GBP a Day (Consent): 25.00 used; 10.00 refused after 20.00; 0.01 refused after 25.00',
    );
    expect(comparison.rows.some((row) => row.v31.includes('vrc-') || row.v40.includes('vrc-'))).toBe(false);
    const lines = formatOutcomeComparison(comparison);
    expect(lines[0]).toBe('VRP mandate v3.1 beside v4.0:');
    expect(lines).toContain(`  refusal ErrorCode: ${V31_CODE} | ${V40_CODE} (the v4.0 code of the v3.1 name)`);
    expect(lines.at(-1)).toBe('✓ no unexplained difference');
  });

  it.each([
    [
      'a limit refused at another amount',
      walkOf(V40_CODE).map((entry) => (entry.Amount === '10.01' ? { ...entry, Amount: '10.02' } : entry)),
      ['MaximumIndividualAmount'],
    ],
    [
      'a payment made past a limit',
      walkOf(V40_CODE).map((entry) => (entry.Amount === '0.01' ? { ...entry, Outcome: 'made' } : entry)),
      ['payments made', 'refused at a limit', 'made past a limit', 'PeriodicLimits[0]'],
    ],
    ['a payment fewer', walkOf(V40_CODE).slice(0, 4), ['payments made', 'refused at a limit', 'PeriodicLimits[0]']],
    [
      'another refusal code',
      walkOf(V40_CODE).map((entry) => (entry.Outcome === 'refused' ? { ...entry, ErrorCode: 'U011' } : entry)),
      ['refusal ErrorCode'],
    ],
  ])('%s on v4.0 is a difference named, and fails the run with ERR_VERSIONS_DIFFER', (_case, walk, fields) => {
    const comparison = compared(v31, mandateOf(walk, 'AUTH'));
    expect(comparison.differences.map((row) => row.field)).toEqual(fields);
    const environment = { id: 'e', name: 'e', _postman_variable_scope: 'environment' as const, values: [] };
    const leg = (version: '3.1' | '4.0'): LegOutcome => ({
      version,
      family: API_FAMILIES.vrp,
      label: `VRP v${version}`,
      result: { passed: true, steps: [], environment, executions: [] },
      summary: buildRunSummary({ environment, steps: [] }),
    });
    const verdict = legsVerdict([leg('3.1'), leg('4.0')], { outcomeComparisons: [comparison] });
    expect(verdict.passed).toBe(false);
    expect(verdict.error?.code).toBe('ERR_VERSIONS_DIFFER');
    expect(verdict.error?.message).toMatch(
      /^\d+ difference\(s\) between the VRP mandates walked on v3\.1 and v4\.0 the code mapping does not explain/,
    );
    expect(verdict.error?.message).toContain(`first: ${fields[0]} is `);
    expect(verdict.error?.hint).toMatch(/^The bank held the same mandate differently on its two versions/);
    expect(formatOutcomeComparison(comparison)).toContain(
      `✗ VRP mandate ${fields[0]}: v3.1 ${comparison.differences[0]?.v31}, v4.0 ${comparison.differences[0]?.v40} (not explained by the code mapping)`,
    );
  });

  it('two legs that both stopped before their outcome compare nothing (no "no unexplained difference"); one leg without it differs', () => {
    for (const family of ['vrp', 'payments'] as const) expect(compareOutcomes(family, {}, {}), family).toBeUndefined();
    const lopsided = compareOutcomes('vrp', { vrp: v31 }, {});
    expect(lopsided?.differences.map((row) => row.field)).toContain('payments made');
  });

  it('the later leg’s page has the section: each row, the explained codes, a difference as a failed check', async () => {
    const other = mandateOf(walkOf(V40_CODE).slice(0, 4), 'AUTH');
    const comparison = compared(v31, other);
    const { title, anchor, note } = comparisonKindOf(comparison);
    const html = await renderHtmlReport({
      bank: 'b',
      profile: 'p',
      obflowVersion: '0',
      ranAt: '2026-01-01T00:00:00.000Z',
      runner: 'obflow',
      passed: false,
      steps: [],
      accounts: [],
      vrp: other,
      outcomeComparisons: [{ ...comparison, title, anchor, note, other: { version: '3.1', href: '../../v3.1/vrp/report.html' } }],
      totals: { steps: 0, requests: 0, assertions: 0, localChecks: 0, failed: 0, skipped: 0 },
    });
    expect(html).toContain('<section id="vrp-versions">');
    expect(html).toContain('<h2>VRP mandate v3.1 beside v4.0</h2>');
    expect(html).toContain('<a href="../../v3.1/vrp/report.html">its report, v3.1</a>');
    expect(html).toMatch(
      /<li class="ok"><code>refusal ErrorCode<\/code>: v3\.1 <code>UK\.OBIE\.Rules\.FailsControlParameters<\/code>, v4\.0 <code>U014<\/code> \(the v4\.0 code/,
    );
    expect(html).toMatch(
      /<li class="bad"><code>payments made<\/code>: v3\.1 <code>3, 25\.00 GBP<\/code>, v4\.0 <code>2, 20\.00 GBP<\/code><span class="message">not explained/,
    );
  });
});
