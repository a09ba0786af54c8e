// `obflow report merge`, its pure parts: legs from JSON run reports and leg-status files, the grid's columns,
// the rule a check names, what changed since a previous summary (newly failing/passing, slower than a threshold), the
// merged JUnit and Markdown, the timing picture's geometry, and the page's HTML from the template — deterministic.

import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import type { JsonReport } from '../../src/run/reporters/json.js';
import {
  compareSummaries,
  exitReason,
  isSlower,
  legOf,
  mergeLegs,
  parseSlowerThreshold,
  ruleOf,
  stepColumns,
  type LegInput,
  type MergedSummary,
} from '../../src/report/merge.js';
import { mergedJunit, mergedMarkdown, renderMergedPage, timingRows } from '../../src/report/merge-render.js';
import { loadTiming } from '../../src/report/timing.js';

const at = (seconds: number): string => new Date(Date.UTC(2026, 10, 25, 6, 17, 0) + seconds * 1000).toISOString();

type StepSpec = [name: string, outcome: 'passed' | 'failed' | 'skipped' | 'not-reached', seconds: number, kind?: 'collection' | 'local'];

let clock = 0;
function report(target: { name: string; profile: string; consent: string }, steps: StepSpec[]): JsonReport {
  clock = 0;
  const passed = steps.every(([, outcome]) => outcome === 'passed' || outcome === 'skipped');
  return {
    version: 1,
    startedAt: at(0),
    finishedAt: at(100),
    target,
    origins: ['https://127.0.0.1:1'],
    passed,
    steps: steps.map(([name, outcome, seconds, kind = 'collection']) => {
      // A report of obflow before `status`: no verdict meant not reached.
      if (outcome === 'not-reached') return { name, kind, requests: [], preRequestAssertions: [], scriptErrors: [] };
      if (outcome === 'skipped') {
        const skipped = [{ item: `${name} request`, reason: 'the bank issued no refresh token' }];
        const time = at(clock);
        return {
          name,
          kind,
          status: 'skipped',
          skipReason: skipped[0]?.reason ?? '',
          startedAt: time,
          finishedAt: time,
          requests: [],
          preRequestAssertions: [],
          scriptErrors: [],
          skipped,
        };
      }
      const startedAt = at(clock);
      clock += seconds;
      const failed = outcome === 'failed';
      return {
        name,
        kind,
        startedAt,
        finishedAt: at(clock),
        passed: !failed,
        assertions: { total: 2, failed: failed ? 1 : 0 },
        requests:
          kind === 'local'
            ? []
            : [
                {
                  item: `${name} request`,
                  method: 'GET',
                  url: 'https://127.0.0.1:1/x?request=[redacted]',
                  at: at(clock),
                  status: 200,
                  assertions: [
                    { name: 'status is 200', status: 'passed' },
                    ...(failed
                      ? [
                          {
                            name: 'id_token openbanking_intent_id is the consent id',
                            status: 'failed' as const,
                            message: 'expected x to equal y',
                          },
                        ]
                      : []),
                  ],
                },
              ],
        preRequestAssertions:
          kind === 'local' && failed
            ? [
                {
                  item: name,
                  name: 'id_token alg is PS256 (FAPI 1 Advanced §8.6, registered alg)',
                  status: 'failed',
                  message: 'alg is none',
                },
              ]
            : [],
        scriptErrors: [],
      };
    }),
  };
}

const sandbox = (profile: string, consent = 'headless') => ({ name: 'sandbox', profile, consent });
const FLOW: StepSpec[] = [
  ['discovery', 'passed', 1],
  ['psu-consent', 'passed', 2],
  ['code-exchange', 'passed', 1],
  ['accounts', 'passed', 3],
];
const passing = (profile: string): LegInput => ({
  source: profile,
  report: report(sandbox(profile), FLOW),
  link: `legs/${profile}/report.html`,
});
const failing: LegInput = {
  source: 'faulty',
  report: report({ name: 'examplebank', profile: 'strict-headless', consent: 'headless' }, [
    ['discovery', 'passed', 1],
    ['psu-consent', 'failed', 2],
    ['code-exchange', 'not-reached', 0],
    ['accounts', 'not-reached', 0],
  ]),
  link: 'legs/examplebank/report.html',
};
const crashed: LegInput = {
  source: 'down',
  status: { bank: 'otherbank', profile: 'strict-headless', consent: 'headless', exit: 3, stage: 'register' },
};

describe("a leg's id: what tells it from another leg of the same bank, profile and consent mode", () => {
  const withTarget = (extra: Record<string, unknown>): LegInput => {
    const input = passing('strict-headless');
    return { ...input, report: { ...input.report!, target: { ...input.report!.target!, ...extra } } as JsonReport };
  };

  it('the defaults add nothing (a leg that ran as before keeps its id); another family, version or FAPI profile is named', () => {
    expect(legOf(withTarget({ apiVersion: '3.1', families: ['accounts'], fapi: '1-advanced' })).id).toBe(
      'sandbox / strict-headless / headless',
    );
    expect(legOf(withTarget({ apiVersion: '4.0', families: ['accounts'] })).id).toBe('sandbox / strict-headless / headless / AIS v4.0');
    expect(legOf(withTarget({ apiVersion: '3.1', families: ['payments'] })).id).toBe('sandbox / strict-headless / headless / PIS v3.1');
    expect(legOf(withTarget({ apiVersion: '3.1', families: ['accounts'], fapi: '2.0' })).id).toBe(
      'sandbox / strict-headless / headless / FAPI 2.0',
    );
  });

  it('so legs that differ only in family or FAPI profile are not merged into one', () => {
    const ids = [
      withTarget({ families: ['accounts'] }),
      withTarget({ families: ['payments'] }),
      withTarget({ families: ['funds'] }),
      withTarget({ families: ['accounts'], fapi: '2.0' }),
    ].map((input) => legOf(input).id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('a leg from its report and its status file', () => {
  it('cells are passed, failed (with the checks that failed and the item) or not reached, with their times', () => {
    const leg = legOf(failing);
    expect(leg).toMatchObject({ id: 'examplebank / strict-headless / headless', status: 'failed', report: 'legs/examplebank/report.html' });
    expect(leg.steps.map((step) => [step.name, step.status, step.ms])).toEqual([
      ['discovery', 'passed', 1000],
      ['psu-consent', 'failed', 2000],
      ['code-exchange', 'not-reached', undefined],
      ['accounts', 'not-reached', undefined],
    ]);
    expect(leg.steps[1]?.failures).toEqual([
      { item: 'psu-consent request', check: 'id_token openbanking_intent_id is the consent id', message: 'expected x to equal y' },
    ]);
  });

  it('a skipped step is a cell of its own, with its reason: never passed, never "not reached"', () => {
    const leg = legOf({
      source: 's',
      report: report(sandbox('strict-headless'), [
        ['discovery', 'passed', 1],
        ['refresh', 'skipped', 0],
      ]),
    });
    expect(leg.status).toBe('passed');
    expect(leg.steps[1]).toMatchObject({ name: 'refresh', status: 'skipped', reason: 'the bank issued no refresh token' });
    const merged = mergeLegs([{ source: 's', report: report(sandbox('strict-headless'), [['refresh', 'skipped', 0]]) }]);
    expect(mergedJunit(merged)).toContain('<skipped message="skipped: the bank issued no refresh token"/>');
    expect(mergedMarkdown(merged)).toContain('| ⏭️ |');
  });

  it('a local check (pre-request assertion) and a request with no answer are failures too', () => {
    const local = legOf({ source: 'l', report: report(sandbox('strict-headless'), [['id-token', 'failed', 1, 'local']]) });
    expect(local.steps[0]?.failures).toEqual([
      {
        item: 'id-token',
        check: 'id_token alg is PS256 (FAPI 1 Advanced §8.6, registered alg)',
        rule: 'FAPI 1 Advanced §8.6, registered alg',
        message: 'alg is none',
      },
    ]);
    const unreachable = report(sandbox('strict-headless'), [['discovery', 'failed', 1]]);
    const request = unreachable.steps[0]?.requests[0];
    if (request === undefined) throw new TypeError('a request');
    request.assertions = [];
    request.failure = { kind: 'unreachable', item: request.item, origin: 'https://127.0.0.1:1', message: 'connect ECONNREFUSED' };
    expect(legOf({ source: 'u', report: unreachable }).steps[0]?.failures).toEqual([
      { item: 'discovery request', check: 'no answer to GET', message: 'connect ECONNREFUSED' },
    ]);
  });

  it('a leg with only a status file is a row of its own, with the reason from its exit code and command', () => {
    expect(legOf(crashed)).toEqual({
      id: 'otherbank / strict-headless / headless',
      label: 'otherbank / strict-headless / headless · AIS v3.1',
      marks: ['AIS v3.1'],
      bank: 'otherbank',
      profile: 'strict-headless',
      consent: 'headless',
      status: 'no-report',
      reason:
        'exit 3 at obflow register: the bank refused or could not be reached (registration rejected, bank down at discovery, TLS refused)',
      exit: 3,
      stage: 'register',
      steps: [],
    });
    expect(exitReason({ exit: 2 })).toMatch(/^exit 2: usage or configuration error/);
    expect(exitReason({ exit: 137 })).toBe('exit 137: the job crashed');
  });

  it("the status file names the leg (the CI matrix's labels); its non-zero exit fails a leg whose report passed", () => {
    const leg = legOf({
      source: 'x',
      report: report(sandbox('strict-headless'), FLOW),
      status: { bank: 'sandbox-eu', profile: 'strict-headless', consent: 'headless', exit: 1, stage: 'run' },
    });
    expect(leg).toMatchObject({
      id: 'sandbox-eu / strict-headless / headless',
      status: 'failed',
      reason: expect.stringMatching(/^exit 1 at obflow run/),
    });
    const clean = legOf({
      source: 'y',
      report: report(sandbox('strict-headless'), FLOW),
      status: { bank: 'b', profile: 'p', consent: 'c', exit: 0 },
    });
    expect(clean.status).toBe('passed');
    expect(clean.reason).toBeUndefined();
  });

  it('the rule is the section or RFC a check cites in its closing parentheses', () => {
    expect(ruleOf('id_token iss is the discovery issuer (OIDC Core §3.1.3.7 item 2)')).toBe('OIDC Core §3.1.3.7 item 2');
    expect(ruleOf('token_type is Bearer (RFC 6750)')).toBe('RFC 6750');
    expect(ruleOf('status is 201')).toBeUndefined();
    expect(ruleOf('balances (any) are listed')).toBeUndefined();
  });
});

describe('the merged summary', () => {
  it('sorts the legs, counts them, and says whether all passed; columns keep flow order with steps only some legs have', () => {
    const summary = mergeLegs([failing, crashed, passing('strict-headless'), passing('permissive-headless')]);
    expect(summary.legs.map((leg) => leg.id)).toEqual([
      'examplebank / strict-headless / headless',
      'otherbank / strict-headless / headless',
      'sandbox / permissive-headless / headless',
      'sandbox / strict-headless / headless',
    ]);
    expect(summary.counts).toEqual({ legs: 4, passed: 2, failed: 1, noReport: 1 });
    expect(summary.passed).toBe(false);
    expect(mergeLegs([passing('strict-headless')]).passed).toBe(true);
    const browser = legOf({
      source: 'b',
      report: report(sandbox('strict-interactive', 'browser'), [
        ['discovery', 'passed', 1],
        ['psu-consent', 'passed', 1],
        ['psu-consent-browser', 'passed', 5, 'local'],
        ['id-token', 'passed', 1, 'local'],
        ['code-exchange', 'passed', 1],
      ]),
    });
    expect(stepColumns([legOf(passing('strict-headless')), browser])).toEqual([
      'discovery',
      'psu-consent',
      'psu-consent-browser',
      'id-token',
      'code-exchange',
      'accounts',
    ]);
  });

  it('two inputs for one leg: ERR_REPORT_INVALID naming both', () => {
    const twice = () => mergeLegs([passing('strict-headless'), { ...passing('strict-headless'), source: 'again' }]);
    expect(twice).toThrow(
      expect.objectContaining({ code: 'ERR_REPORT_INVALID', message: expect.stringContaining('strict-headless, again') }),
    );
    expect(ERROR_CODES.ERR_REPORT_INVALID).toBe('usage');
  });
});

describe('what changed since the previous summary', () => {
  const slowFlow: StepSpec[] = [
    ['discovery', 'passed', 1],
    ['psu-consent', 'passed', 2],
    ['code-exchange', 'passed', 1],
    ['accounts', 'passed', 9],
  ];
  const yesterday = mergeLegs([
    { source: 'a', report: report({ name: 'examplebank', profile: 'strict-headless', consent: 'headless' }, FLOW) },
    { source: 'b', report: report(sandbox('strict-headless'), [['discovery', 'failed', 1]]) },
    {
      source: 'c',
      status: { bank: 'otherbank', profile: 'strict-headless', consent: 'headless', exit: 0 },
      report: report(sandbox('x'), FLOW),
    },
    { source: 'd', status: { bank: 'gone', profile: 'p', consent: 'c', exit: 3 } },
  ]);
  const tonight = mergeLegs([
    failing,
    { source: 'b', report: report(sandbox('strict-headless'), slowFlow) },
    crashed,
    passing('permissive-headless'),
  ]);

  it('newly failing and passing cells, a leg that lost its report, slower steps, new and gone legs', () => {
    const changes = compareSummaries(yesterday, tonight, parseSlowerThreshold('50%,500ms'));
    expect(changes).toEqual({
      newlyFailing: [
        { leg: 'examplebank / strict-headless / headless', step: 'psu-consent' },
        { leg: 'otherbank / strict-headless / headless' },
      ],
      newlyPassing: [{ leg: 'sandbox / strict-headless / headless', step: 'discovery' }],
      slower: [],
      newLegs: ['sandbox / permissive-headless / headless'],
      goneLegs: ['gone / p / c'],
      threshold: { percent: 50, ms: 500 },
    });
    const sameLegSlower = compareSummaries(
      mergeLegs([passing('strict-headless')]),
      mergeLegs([{ source: 's', report: report(sandbox('strict-headless'), slowFlow) }]),
      {
        percent: 50,
        ms: 500,
      },
    );
    expect(sameLegSlower.slower).toEqual([{ leg: 'sandbox / strict-headless / headless', step: 'accounts', previousMs: 3000, ms: 9000 }]);
  });

  it('slower means more than every bound given; thresholds parse as shares and times', () => {
    expect(isSlower(1000, 1600, { percent: 50 })).toBe(true);
    expect(isSlower(1000, 1400, { percent: 50 })).toBe(false);
    expect(isSlower(100, 400, { percent: 50, ms: 500 })).toBe(false);
    expect(isSlower(100, 700, { percent: 50, ms: 500 })).toBe(true);
    expect(isSlower(1000, 900, {})).toBe(false);
    expect(parseSlowerThreshold('2s')).toEqual({ ms: 2000 });
    expect(parseSlowerThreshold('100%, 250ms')).toEqual({ percent: 100, ms: 250 });
    for (const bad of ['fast', '50', '50%,60%', ''])
      expect(() => parseSlowerThreshold(bad), bad).toThrow(expect.objectContaining({ code: 'ERR_USAGE' }));
  });
});

describe('the merged outputs', () => {
  const summary: MergedSummary = {
    ...mergeLegs([failing, crashed, passing('strict-headless')]),
    changes: compareSummaries(mergeLegs([passing('strict-headless')]), mergeLegs([failing, crashed, passing('strict-headless')]), {
      percent: 50,
    }),
  };

  it('JUnit: one suite per leg, one case per step; failures with the check and rule, skipped not reached, a missing report an error', () => {
    const xml = mergedJunit(summary);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="obflow report merge" tests="9" failures="1" errors="1" skipped="2">/,
    );
    expect(xml).toContain(
      '<testsuite name="examplebank / strict-headless / headless" tests="4" failures="1" errors="0" skipped="2" time="3.000">',
    );
    expect(xml).toContain('<failure message="id_token openbanking_intent_id is the consent id" type="check">psu-consent request: id_token');
    expect(xml).toContain('<skipped message="not reached: an earlier step failed"/>');
    expect(xml).toContain('<error message="exit 3 at obflow register: the bank refused');
    expect(mergedJunit(summary)).toBe(xml);
  });

  it('Markdown for a job summary: the grid, the failed checks, what changed', () => {
    const text = mergedMarkdown(summary);
    expect(text).toContain('## obflow: 1 of 3 legs passed — 1 failed, 1 without a report');
    expect(text).toContain('| examplebank / strict-headless / headless · AIS v3.1 | ✅ | ❌ | ⏸️ | ⏸️ |');
    expect(text).toContain('| otherbank / strict-headless / headless · AIS v3.1 — exit 3 at obflow register');
    expect(text).toContain(
      '- **examplebank / strict-headless / headless · AIS v3.1** · psu-consent: id\\_token openbanking\\_intent\\_id is the consent id — expected x to equal y',
    );
    expect(text).toContain('- new legs: examplebank / strict-headless / headless; otherbank / strict-headless / headless');
  });

  it('the timing picture: one bar per leg with a report, segments as long as the steps took, failed ones red', async () => {
    const { timingPicture } = await loadTiming();
    const picture = timingPicture(timingRows(summary), { steps: summary.steps, labelWidth: 300 });
    expect(picture.rows.map((row) => [row.label, row.total])).toEqual([
      ['examplebank / strict-headless / headless · AIS v3.1', '3 s'],
      ['sandbox / strict-headless / headless · AIS v3.1', '7 s'],
    ]);
    const [discovery, consent] = picture.rows[0]?.segments ?? [];
    // The longest leg (7 s) fills the bar: 1 s of it is a seventh.
    const longest = (picture.rows[1]?.segments ?? []).reduce((sum, segment) => sum + segment.width, 0);
    expect(discovery?.width).toBeCloseTo(longest / 7, 0);
    expect(consent?.width).toBeCloseTo((2 * longest) / 7, 0);
    expect(consent).toMatchObject({
      status: 'failed',
      fill: '#d93025',
      title: 'examplebank / strict-headless / headless · AIS v3.1 — 2. psu-consent: 2 s (failed)',
    });
    expect(discovery?.fill).not.toBe('#d93025');
  });

  it('the page: the grid with the failing cell linking to its step in the leg report, the rule under it, the reason of a missing report; no script, no URL', async () => {
    const html = await renderMergedPage(summary);
    expect(html).toBe(await renderMergedPage(summary));
    expect(html).toContain(
      '<td class="cell failed" data-step="psu-consent" title="examplebank / strict-headless / headless · AIS v3.1: psu-consent failed (2 s)"><a href="legs/examplebank/report.html#step-psu-consent">✗</a></td>',
    );
    expect(html).toContain('<span class="check">id_token openbanking_intent_id is the consent id</span>');
    expect(html).toMatch(/<td class="reason" colspan="4">exit 3 at obflow register: the bank refused/);
    expect(html).toContain('<li class="new-leg"><span class="pill">new leg</span> examplebank / strict-headless / headless</li>');
    expect(html).toMatch(/<svg [^>]*role="img"/);
    expect(html).not.toMatch(/<script|<link|src=|url\(|https?:\/\//);
  });
});

describe('a version axis', () => {
  const target = { name: 'examplebank', profile: 'strict-headless', consent: 'headless' };
  it("a leg of AIS v4.0 says so in its name; v3.1's keeps the name it always had", () => {
    const steps: StepSpec[] = [['accounts', 'passed', 1]];
    expect(legOf({ source: 'a', report: report(target, steps) }).id).toBe('examplebank / strict-headless / headless');
    expect(legOf({ source: 'b', report: report({ ...target, apiVersion: '3.1' } as typeof target, steps) }).id).toBe(
      'examplebank / strict-headless / headless',
    );
    const v4 = legOf({ source: 'c', report: report({ ...target, apiVersion: '4.0' } as typeof target, steps) });
    expect([v4.id, v4.apiVersion]).toEqual(['examplebank / strict-headless / headless / AIS v4.0', '4.0']);
    const statusOnly = legOf({ source: 'd', status: { ...target, bank: 'examplebank', apiVersion: '4.0', exit: 3, stage: 'register' } });
    expect(statusOnly.id).toBe('examplebank / strict-headless / headless / AIS v4.0');
  });
});
