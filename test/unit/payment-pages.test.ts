// The payment and the funds checks in every page: obflow-run.json, report.html, the merged page, the terminal summary;
// and v3.1's payment beside v4.0's (status names ↔ codes), where a difference the mapping does not explain fails.

import { describe, expect, it } from 'vitest';
import { legsVerdict, type LegOutcome } from '../../src/pipeline/verdict.js';
import { API_FAMILIES } from '../../src/api-families.js';
import { mergeLegs } from '../../src/report/merge.js';
import { renderMergedPage } from '../../src/report/merge-render.js';
import { STATUS_CODES } from '../../src/run/reporters/compare-payments.js';
import {
  compareOutcomes,
  comparisonKindOf,
  formatOutcomeComparison,
  type OutcomeComparison,
} from '../../src/run/reporters/compare-outcomes.js';
import { buildJsonReport } from '../../src/run/index.js';
import { withOutcomeProperties } from '../../src/run/reporters/junit.js';
import { renderHtmlReport, type ReportModel } from '../../src/run/reporters/page.js';
import { buildRunSummary, formatRunSummary } from '../../src/run/summary.js';
import type { PaymentRow } from '../../src/runner-rules.js';

const at = '2026-01-01T00:00:00.000Z';
const value = (key: string, text: string) => ({ key, value: text, type: 'default' as const, enabled: true });
const environment = {
  id: 'e',
  name: 'e',
  _postman_variable_scope: 'environment' as const,
  values: [
    value('consent_id', 'pdc-1'),
    value('payment_consent_status', 'Consumed'),
    value('payment_id', 'dp-1'),
    value('payment_status', 'AcceptedSettlementCompleted'),
    value('payment_amount', '10.00'),
    value('payment_currency', 'GBP'),
    value('payment_creditor_name', 'ACME Inc'),
    value('payment_funds_available', 'true'),
    value('signatures_checked', JSON.stringify({ signed: 7, verified: 13 })),
    { key: 'signing_key', value: '{"d":"SECRET-D"}', type: 'secret' as const, enabled: true },
  ],
};
const payment: PaymentRow = {
  consentId: 'pdc-1',
  consentStatus: 'Consumed',
  paymentId: 'dp-1',
  status: 'AcceptedSettlementCompleted',
  amount: '10.00',
  currency: 'GBP',
  creditor: 'ACME Inc',
  fundsAvailable: true,
  signatures: { signed: 7, verified: 13 },
};

describe('the payment in the pages', () => {
  it('the terminal summary and obflow-run.json carry amount, statuses, ids and signature counts, never the key', () => {
    const summary = buildRunSummary({ environment, steps: [] });
    expect(summary.payment).toMatchObject(payment);
    expect(formatRunSummary(summary)[0]).toBe(
      'payment dp-1: 10.00 GBP to ACME Inc, AcceptedSettlementCompleted; consent pdc-1 Consumed; 7 requests signed, 13 bank signatures verified',
    );
    const report = buildJsonReport([
      { type: 'start', startedAt: at, steps: [], origins: [] },
      { type: 'done', finishedAt: at, result: { passed: true, steps: [], environment, executions: [] } },
    ]);
    expect(report.payment).toEqual(payment);
    expect(JSON.stringify(report)).not.toContain('SECRET-D');
  });

  it('report.html has a payment section and a funds section; no "no accounts" note on a payments run', async () => {
    const model: ReportModel = {
      bank: 'obflow sandbox (emulator)',
      profile: 'strict-headless',
      obflowVersion: '0',
      ranAt: at,
      runner: 'obflow',
      passed: true,
      steps: [],
      accounts: [],
      payment,
      funds: { consentId: 'fcc-1', consentStatus: 'deleted', checks: [{ amount: '1.00', currency: 'GBP', available: true }] },
      totals: { steps: 0, requests: 0, assertions: 0, localChecks: 0, failed: 0, skipped: 0 },
    };
    const html = await renderHtmlReport(model);
    expect(html).toContain('<h2>Payment made</h2>');
    expect(html).toMatch(/<td>dp-1<\/td><td class="num">10\.00 GBP<\/td><td>ACME Inc<\/td><td>AcceptedSettlementCompleted<\/td>/);
    expect(html).toContain('7 requests signed by obflow, 13 bank signatures verified');
    expect(html).toContain('<h2>Funds checks</h2>');
    expect(html).not.toContain('The run read no accounts');
    const { payment: _p, funds: _f, ...accountsOnly } = model;
    expect(await renderHtmlReport(accountsOnly)).toContain('The run read no accounts');
  });

  it('the merged page names what each leg paid', async () => {
    const report = buildJsonReport([
      {
        type: 'start',
        startedAt: at,
        steps: [],
        origins: [],
        target: { name: 'sandbox', profile: 'strict-headless', families: ['payments'] },
      },
      { type: 'done', finishedAt: at, result: { passed: true, steps: [], environment, executions: [] } },
    ]);
    const merged = mergeLegs([{ source: 'p', report }]);
    expect(merged.legs[0]?.outcomes).toEqual([
      'payment dp-1: 10.00 GBP to ACME Inc, AcceptedSettlementCompleted; consent pdc-1 Consumed; 7 requests signed, 13 bank signatures verified',
    ]);
    expect(await renderMergedPage({ ...merged, changes: undefined } as never)).toContain('payment dp-1: 10.00 GBP to ACME Inc');
  });
});

/** The payments family's comparison of two payments (src/run/reporters/compare-outcomes.ts, its payments row). */
const comparePayments = (v31: PaymentRow, v40: PaymentRow): OutcomeComparison => {
  const comparison = compareOutcomes('payments', { payment: v31 }, { payment: v40 });
  if (comparison === undefined) throw new TypeError('payments has a comparison row');
  return comparison;
};

describe('the payment on v3.1 beside v4.0', () => {
  const v40: PaymentRow = { ...payment, paymentId: 'dp-2', status: 'ACSC', consentStatus: 'COND', consentId: 'pdc-2' };

  it('the same payment: v4.0 codes explain v3.1 names; ids are not compared', () => {
    const comparison = comparePayments(payment, v40);
    expect(comparison.differences).toEqual([]);
    expect(comparison.rows.filter((row) => row.verdict === 'explained').map((row) => row.field)).toEqual([
      'payment Status',
      'consent Status',
    ]);
    expect(formatOutcomeComparison(comparison).at(-1)).toBe('✓ no unexplained difference');
    // Every code is its own: no two names share one.
    for (const codes of Object.values(STATUS_CODES)) expect(new Set(Object.values(codes)).size).toBe(Object.keys(codes).length);
  });

  it.each([
    ['another amount', { amount: '11.00' }, 'InstructedAmount'],
    ['another payee', { creditor: 'Other' }, 'CreditorAccount.Name'],
    ['a status the mapping does not make of the other', { status: 'ACSP' }, 'payment Status'],
    ['a consent not consumed', { consentStatus: 'AUTH' }, 'consent Status'],
    ['funds said otherwise', { fundsAvailable: false }, 'funds available'],
  ])('%s is a difference, and fails the run with ERR_VERSIONS_DIFFER', (_case, over, field) => {
    const comparison = comparePayments(payment, { ...v40, ...over });
    expect(comparison.differences.map((row) => row.field)).toEqual([field]);
    const leg = (version: '3.1' | '4.0'): LegOutcome => ({
      version,
      family: API_FAMILIES.payments,
      label: `PIS v${version}`,
      result: { passed: true, steps: [], environment, executions: [] },
      summary: buildRunSummary({ environment, steps: [] }),
    });
    const verdict = legsVerdict([leg('3.1'), leg('4.0')], { outcomeComparisons: [comparison] });
    expect(verdict.passed).toBe(false);
    expect(verdict.error?.code).toBe('ERR_VERSIONS_DIFFER');
    expect(verdict.error?.message).toContain(field);
  });
});

describe('the payment in JUnit', () => {
  it('a suite of properties after the run: ids, amount, statuses, signature counts', () => {
    const xml = withOutcomeProperties('<?xml version="1.0"?>\n<testsuites name="x">\n</testsuites>\n', {
      payment,
      funds: { checks: [{ amount: '1.00', currency: 'GBP', available: true }] },
    });
    expect(xml).toContain('<testsuite name="obflow: what the run paid and checked" tests="0"');
    expect(xml).toContain('<property name="payment.DomesticPaymentId" value="dp-1"/>');
    expect(xml).toContain('<property name="payment.Status" value="AcceptedSettlementCompleted"/>');
    expect(xml).toContain('<property name="payment.bankSignaturesVerified" value="13"/>');
    expect(xml).toContain('<property name="funds.check1" value="1.00 GBP FundsAvailable true"/>');
    expect(xml.trimEnd().endsWith('</testsuites>')).toBe(true);
    expect(withOutcomeProperties('<testsuites/>\n', {})).toBe('<testsuites/>\n');
  });
});

describe('the payment on v3.1 beside v4.0 in report.html', () => {
  it('the later leg’s page lists each field, marks the explained codes and a difference as a failed check', async () => {
    const v40: PaymentRow = { ...payment, status: 'ACSC', consentStatus: 'COND', amount: '11.00' };
    const compared = comparePayments(payment, v40);
    const { title, anchor, note } = comparisonKindOf(compared);
    const comparison = { ...compared, title, anchor, note, other: { version: '3.1', href: '../v3.1/report.html' } };
    const html = await renderHtmlReport({
      bank: 'b',
      profile: 'p',
      obflowVersion: '0',
      ranAt: at,
      runner: 'obflow',
      passed: false,
      steps: [],
      accounts: [],
      payment: v40,
      outcomeComparisons: [comparison],
      totals: { steps: 0, requests: 0, assertions: 0, localChecks: 0, failed: 0, skipped: 0 },
    });
    expect(html).toContain('<h2>Payment v3.1 beside v4.0</h2>');
    expect(html).toContain('<a href="../v3.1/report.html">its report, v3.1</a>');
    expect(html).toMatch(
      /<li class="ok"><code>payment Status<\/code>: v3\.1 <code>AcceptedSettlementCompleted<\/code>, v4\.0 <code>ACSC<\/code> \(the v4\.0 code/,
    );
    expect(html).toMatch(
      /<li class="bad"><code>InstructedAmount<\/code>: v3\.1 <code>10\.00 GBP<\/code>, v4\.0 <code>11\.00 GBP<\/code><span class="message">not explained/,
    );
  });
});
