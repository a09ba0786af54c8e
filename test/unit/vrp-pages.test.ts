// The VRP mandate on every page the payment is on (src/runner-rules.ts RunOutcomes): report.html's model and page,
// obflow-run.json, the JUnit properties, the merged page. A payment refused at a limit shows the limit's name and the
// payment; a payment the bank made past a limit is shown as made past it, and the page (and the merged leg) fails.

import { describe, expect, it } from 'vitest';
import { mergeLegs } from '../../src/report/merge.js';
import { renderMergedPage } from '../../src/report/merge-render.js';
import { buildJsonReport } from '../../src/run/index.js';
import { withOutcomeProperties } from '../../src/run/reporters/junit.js';
import { loadReportModule, renderHtmlReport } from '../../src/run/reporters/page.js';
import { outcomesBroken, outcomesFromValues } from '../../src/runner-rules.js';

const at = '2026-01-01T00:00:00.000Z';
const control = {
  VRPType: ['UK.OBIE.VRPType.Sweeping'],
  MaximumIndividualAmount: { Amount: '10.00', Currency: 'GBP' },
  PeriodicLimits: [{ PeriodType: 'Day', PeriodAlignment: 'Consent', Amount: '25.00', Currency: 'GBP' }],
};
const made = (amount: string) => ({ Amount: amount, Currency: 'GBP', Outcome: 'made' });
const refused = (amount: string, limit: string) => ({
  Amount: amount,
  Currency: 'GBP',
  Outcome: 'refused',
  Limit: limit,
  ErrorCode: 'U014',
});
/** What the bank did with a payment the plan sent to be refused at `limit`: it made it. */
const madePast = (amount: string, limit: string) => ({ ...refused(amount, limit), Outcome: 'made' });

function environmentOf(walk: object[]) {
  const value = (key: string, text: string) => ({ key, value: text, type: 'default' as const, enabled: true });
  return {
    id: 'e',
    name: 'e',
    _postman_variable_scope: 'environment' as const,
    values: [
      value('consent_id', 'vrc-1'),
      value('vrp_consent_status', 'deleted'),
      value('vrp_control_parameters', JSON.stringify(control)),
      value('vrp_walk', JSON.stringify(walk)),
      { key: 'signing_key', value: '{"d":"SECRET-D"}', type: 'secret' as const, enabled: true },
    ],
  };
}
const heldWalk = [made('10.00'), refused('10.01', 'MaximumIndividualAmount'), made('10.00'), refused('10.00', 'PeriodicLimits[0]')];
const brokenWalk = [made('10.00'), madePast('10.01', 'MaximumIndividualAmount')];

function jsonReportOf(walk: object[], profile = 'strict-headless') {
  return buildJsonReport([
    { type: 'start', startedAt: at, steps: [], origins: [], target: { name: 'sandbox', profile, families: ['vrp'] } },
    { type: 'done', finishedAt: at, result: { passed: true, steps: [], environment: environmentOf(walk), executions: [] } },
  ]);
}

/** The page model as obflow's html reporter and a workspace's run make it (report.mjs's collector). */
async function pageModelOf(walk: object[]) {
  const { createReportCollector } = await loadReportModule();
  const collector = createReportCollector({ secretKeys: [] });
  collector.step({ name: 'vrp-mandate', passed: true });
  const outcomes = outcomesFromValues(environmentOf(walk).values);
  return collector.model(
    { bank: 'b', profile: 'p', obflowVersion: '0', ranAt: at, runner: 'obflow', order: ['vrp-mandate'], ...outcomes },
    [],
  );
}

describe('the VRP mandate in the pages', () => {
  it('report.html: a payment refused at a limit shows the limit by name and the payment; the page passes', async () => {
    const model = await pageModelOf(heldWalk);
    expect(model.passed).toBe(true);
    const html = await renderHtmlReport(model);
    expect(html).toContain('<h2>VRP mandate</h2>');
    expect(html).toContain(
      '<tr><td>at most 10.00 GBP a payment</td><td><code>MaximumIndividualAmount</code></td><td>largest payment 10.00 GBP; 10.01 GBP refused after 10.00 (U014)</td></tr>',
    );
    expect(html).toContain('<code>PeriodicLimits[0]</code></td><td>20.00 of 25.00 GBP used; 10.00 GBP refused after 20.00 (U014)</td>');
    expect(html).not.toContain('The run read no accounts');
    expect(html).not.toContain('made past a limit</b>');
  });

  it('report.html: a payment the bank made past a limit is shown as made past it, and the page fails', async () => {
    const model = await pageModelOf(brokenWalk);
    expect(model.passed).toBe(false);
    const html = await renderHtmlReport(model);
    expect(html).toContain('<b class="bad">1 made past a limit</b>');
    expect(html).toMatch(
      /<tr class="bad"><td>at most 10\.00 GBP a payment<\/td><td><code>MaximumIndividualAmount<\/code><\/td><td>largest payment 10\.01 GBP; 10\.01 GBP MADE PAST THE LIMIT after 10\.00 \(the bank did not refuse it\) <span class="pill bad">failed<\/span>/,
    );
    expect(outcomesBroken(model)).toBe(true);
  });

  it('obflow-run.json carries the mandate, never a key', () => {
    const report = jsonReportOf(heldWalk);
    expect(report.vrp).toMatchObject({ consentId: 'vrc-1', made: 2, refused: 2, madePastLimit: 0 });
    expect(report.vrp?.limits.map((limit) => [limit.member, limit.refused.map((refusal) => refusal.amount)])).toEqual([
      ['MaximumIndividualAmount', ['10.01']],
      ['PeriodicLimits[0]', ['10.00']],
    ]);
    expect(JSON.stringify(report)).not.toContain('SECRET-D');
  });

  it('JUnit: the mandate, each limit with the payment that hit it, and a payment made past one', () => {
    const empty = '<?xml version="1.0"?>\n<testsuites name="x">\n</testsuites>\n';
    const held = withOutcomeProperties(empty, { vrp: jsonReportOf(heldWalk).vrp! });
    expect(held).toContain('<property name="vrp.ConsentId" value="vrc-1"/>');
    expect(held).toContain('<property name="vrp.refusedAtLimit" value="2"/>');
    expect(held).toContain(
      '<property name="vrp.MaximumIndividualAmount" value="at most 10.00 GBP a payment: largest payment 10.00 GBP; 10.01 GBP refused after 10.00 (U014)"/>',
    );
    const broken = withOutcomeProperties(empty, { vrp: jsonReportOf(brokenWalk).vrp! });
    expect(broken).toContain('<property name="vrp.madePastLimit" value="1"/>');
    expect(broken).toContain('10.01 GBP MADE PAST THE LIMIT after 10.00 (the bank did not refuse it)');
  });

  it('the merged page names the mandate of each leg; a leg whose bank made a payment past a limit fails', async () => {
    const merged = mergeLegs([
      { source: 'held', report: jsonReportOf(heldWalk) },
      { source: 'broken', report: jsonReportOf(brokenWalk, 'permissive') },
    ]);
    const leg = (profile: string) => merged.legs.find((candidate) => candidate.profile === profile);
    expect(leg('strict-headless')?.outcomes).toEqual([
      'VRP mandate vrc-1 (UK.OBIE.VRPType.Sweeping), consent deleted: 2 payments made (20.00 GBP), 2 refused at a limit',
      '  MaximumIndividualAmount, at most 10.00 GBP a payment: largest payment 10.00 GBP; 10.01 GBP refused after 10.00 (U014)',
      '  PeriodicLimits[0], 25.00 GBP a Day (Consent): 20.00 of 25.00 GBP used; 10.00 GBP refused after 20.00 (U014)',
    ]);
    expect([leg('strict-headless')?.status, leg('permissive')?.status]).toEqual(['passed', 'failed']);
    const page = await renderMergedPage({ ...merged, changes: undefined } as never);
    expect(page).toContain('PeriodicLimits[0], 25.00 GBP a Day (Consent): 20.00 of 25.00 GBP used');
    expect(page).toContain('10.01 GBP MADE PAST THE LIMIT');
  });
});
