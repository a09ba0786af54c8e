// The merged summary of `obflow report merge` as people and CI systems read it: the self-contained HTML page
// (templates/report/merged.html.hbs: the grid, what changed, the timing picture), a JUnit file (one suite per leg, one
// case per step) and Markdown for a CI job summary ($GITHUB_STEP_SUMMARY). Pure apart from loading the template once;
// every text comes from the legs' reports, which their runs redacted (src/run/redaction.ts), and none is a URL.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TEMPLATES_DIR } from '../generate/files.js';
import { stepsByName, type LegStep, type MergedLeg, type MergedSummary, type SlowerThreshold } from './merge.js';
import type { CompiledTemplate } from '../run/reporters/template-cache.js';
import { compileWithTiming, loadTiming, type TimingPicture } from './timing.js';

const CELL_MARK: Record<LegStep['status'] | 'absent', string> = { passed: '✓', failed: '✗', skipped: '–', 'not-reached': '·', absent: '' };

/** The anchor of a step in a leg's own report (report.html.hbs: `id="step-<name>"`). */
const stepLink = (leg: MergedLeg, step: string): string | undefined =>
  leg.report === undefined ? undefined : leg.report.endsWith('.html') ? `${leg.report}#step-${step}` : leg.report;

function thresholdText(threshold: SlowerThreshold): string {
  return [
    ...(threshold.percent !== undefined ? [`${threshold.percent}%`] : []),
    ...(threshold.ms !== undefined ? [`${threshold.ms} ms`] : []),
  ].join(' and ');
}

/** The timing picture's rows: one per leg that has a report, one segment per step that ran. */
export function timingRows(
  summary: MergedSummary,
): { label: string; segments: { step: string; ms: number; status: LegStep['status'] }[] }[] {
  return summary.legs
    .filter((leg) => leg.status !== 'no-report')
    .map((leg) => ({
      label: leg.label,
      segments: leg.steps
        .filter((step) => step.ms !== undefined)
        .map((step) => ({ step: step.name, ms: step.ms ?? 0, status: step.status })),
    }));
}

/** One value per column of the grid, from the leg's step of that name (undefined: not in this leg); one look-up each. */
function cellsOf<T>(leg: MergedLeg, columns: readonly string[], cell: (name: string, step: LegStep | undefined) => T): T[] {
  const byName = stepsByName(leg);
  return columns.map((name) => cell(name, byName.get(name)));
}

/** What the page template reads (pure). */
export function mergedPageView(summary: MergedSummary, timing: TimingPicture, formatMs: (ms: number) => string): unknown {
  const changes = summary.changes;
  return {
    ...summary,
    columns: summary.steps.map((name, index) => ({ name, number: index + 1 })),
    /** The leg column and every step column: a row under a failing leg spans the grid. */
    span: summary.steps.length + 1,
    rows: summary.legs.map((leg) => ({
      ...leg,
      failed: leg.status !== 'passed',
      noReport: leg.status === 'no-report',
      cells: cellsOf(leg, summary.steps, (name, step) => {
        const status = step?.status ?? 'absent';
        return {
          step: name,
          status,
          mark: CELL_MARK[status],
          link: step === undefined ? undefined : stepLink(leg, name),
          title:
            `${leg.label}: ${name} ${step === undefined ? 'not in this leg' : status === 'not-reached' ? 'not reached' : status}` +
            `${step?.reason !== undefined ? `: ${step.reason}` : ''}${step?.ms !== undefined ? ` (${formatMs(step.ms)})` : ''}`,
          failures: (step?.failures ?? []).slice(0, 3),
          more: Math.max(0, (step?.failures.length ?? 0) - 3),
        };
      }),
    })),
    timing,
    changes:
      changes === undefined
        ? undefined
        : {
            ...changes,
            threshold: thresholdText(changes.threshold),
            slower: changes.slower.map((row) => ({ ...row, previous: formatMs(row.previousMs), now: formatMs(row.ms) })),
            nothing:
              changes.newlyFailing.length +
                changes.newlyPassing.length +
                changes.slower.length +
                changes.newLegs.length +
                changes.goneLegs.length ===
              0,
          },
  };
}

let page: Promise<CompiledTemplate> | undefined;

/** The merged page: one HTML file, inline CSS and SVG, no script, nothing loaded from anywhere. */
export async function renderMergedPage(summary: MergedSummary, templatesDir = DEFAULT_TEMPLATES_DIR): Promise<string> {
  page ??= readFile(join(templatesDir, 'report', 'merged.html.hbs'), 'utf8').then(compileWithTiming);
  const { timingPicture, formatMs } = await loadTiming();
  const picture = timingPicture(timingRows(summary), {
    steps: summary.steps,
    labelWidth: 300,
    title: 'How long each step took, per leg',
  });
  return (await page)(mergedPageView(summary, picture, formatMs));
}

// ---- JUnit

/** XML 1.0 text: the five escapes, and no character XML forbids (a control character in a message). */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number | undefined): string => ((ms ?? 0) / 1000).toFixed(3);

interface Suite {
  lines: string[];
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function legSuite(leg: MergedLeg): Suite {
  const classname = xml(`obflow.${leg.bank}.${leg.profile}.${leg.consent}`);
  const errorCase = (name: string, type: string): string[] => [
    `    <testcase classname="${classname}" name="${name}" time="0.000">`,
    `      <error message="${xml(leg.reason ?? '')}" type="${type}"/>`,
    '    </testcase>',
  ];
  if (leg.status === 'no-report') return { lines: errorCase('run report', 'no-report'), tests: 1, failures: 0, errors: 1, skipped: 0 };
  const cases = leg.steps.flatMap((step) => {
    const open = `    <testcase classname="${classname}" name="${xml(step.name)}" time="${seconds(step.ms)}"`;
    if (step.status === 'passed') return [`${open}/>`];
    if (step.status === 'skipped')
      return [`${open}>`, `      <skipped message="${xml(`skipped: ${step.reason ?? ''}`)}"/>`, '    </testcase>'];
    if (step.status === 'not-reached')
      return [`${open}>`, '      <skipped message="not reached: an earlier step failed"/>', '    </testcase>'];
    const first = step.failures[0];
    const body = step.failures.map((f) => `${f.item}: ${f.check}${f.message !== undefined ? ` — ${f.message}` : ''}`).join('\n');
    return [
      `${open}>`,
      `      <failure message="${xml(first?.check ?? 'the step failed')}" type="${xml(first?.rule ?? 'check')}">${xml(body)}</failure>`,
      '    </testcase>',
    ];
  });
  // A leg whose report passed but whose script failed later (its exit code) says so as an error of its own.
  const errors = leg.reason !== undefined ? 1 : 0;
  return {
    lines: [...cases, ...(errors === 1 ? errorCase('leg exit', 'exit') : [])],
    tests: leg.steps.length + errors,
    failures: leg.steps.filter((step) => step.status === 'failed').length,
    errors,
    skipped: leg.steps.filter((step) => step.status === 'skipped' || step.status === 'not-reached').length,
  };
}

const counts = (suite: Omit<Suite, 'lines'>): string =>
  `tests="${suite.tests}" failures="${suite.failures}" errors="${suite.errors}" skipped="${suite.skipped}"`;

/** One suite per leg, one case per step (failed: its checks; skipped: its reason, or not reached); a leg without a report is one
 *  case with an error saying why. Deterministic: no timestamps, only the legs' own step times. */
export function mergedJunit(summary: MergedSummary): string {
  const suites = summary.legs.map((leg) => ({ leg, suite: legSuite(leg) }));
  const total = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const { suite } of suites) for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += suite[key];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="obflow report merge" ${counts(total)}>`,
    ...suites.flatMap(({ leg, suite }) => [
      `  <testsuite name="${xml(leg.id)}" ${counts(suite)} time="${seconds(leg.steps.reduce((sum, step) => sum + (step.ms ?? 0), 0))}">`,
      ...suite.lines,
      '  </testsuite>',
    ]),
    '</testsuites>',
    '',
  ].join('\n');
}

// ---- Markdown (a CI job summary)

const MD_MARK: Record<LegStep['status'] | 'absent', string> = {
  passed: '✅',
  failed: '❌',
  skipped: '⏭️',
  'not-reached': '⏸️',
  absent: '·',
};

/** Text from a leg's report or status in Markdown: GitHub renders HTML there, so HTML's special characters become
 *  entities (a `<script>` in an error stays text); Markdown's own are escaped with a backslash (CommonMark §2.4), so
 *  no `*`, `_` or `[` formats or links anything and no pipe breaks the table; a newline becomes a space. */
export const md = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~]/g, '\\$&')
    .replace(/\s*\n\s*/g, ' ');

/** The grid, the failures with their rules, and what changed, for a CI job summary (GitHub renders Markdown there, not
 *  the page's inline SVG and CSS). */
export function mergedMarkdown(summary: MergedSummary): string {
  const lines = [
    `## obflow: ${summary.counts.passed} of ${summary.counts.legs} legs passed${summary.passed ? '' : ` — ${summary.counts.failed} failed, ${summary.counts.noReport} without a report`}`,
    '',
    `| leg | ${summary.steps.map((_, index) => String(index + 1)).join(' | ')} |`,
    `|---|${summary.steps.map(() => ':-:').join('|')}|`,
    ...summary.legs.map(
      (leg) =>
        `| ${md(leg.label)}${leg.status === 'no-report' ? ` — ${md(leg.reason ?? '')}` : ''} | ${cellsOf(
          leg,
          summary.steps,
          (_name, step) => MD_MARK[step?.status ?? 'absent'],
        ).join(' | ')} |`,
    ),
    '',
    `Steps: ${summary.steps.map((name, index) => `${index + 1} ${name}`).join(', ')}.`,
  ];
  const failing = summary.legs.flatMap((leg) =>
    leg.steps.flatMap((step) =>
      step.failures.map(
        (f) => `- **${md(leg.label)}** · ${md(step.name)}: ${md(f.check)}${f.message !== undefined ? ` — ${md(f.message)}` : ''}`,
      ),
    ),
  );
  if (failing.length > 0) lines.push('', '### Failed checks', '', ...failing);
  // Each failing leg's error with its hint: whose side, and what to do (never the error alone, which reads as the bank's).
  const advice = summary.legs.flatMap((leg) =>
    leg.status !== 'passed' && (leg.reason !== undefined || leg.hint !== undefined)
      ? [`- **${md(leg.label)}**: ${md(leg.reason ?? 'failed')}${leg.hint !== undefined ? ` — what to do: ${md(leg.hint)}` : ''}`]
      : [],
  );
  if (advice.length > 0) lines.push('', '### What to do', '', ...advice);
  const changes = summary.changes;
  if (changes !== undefined) {
    const where = (change: { leg: string; step?: string }) =>
      `${md(change.leg)}${change.step !== undefined ? ` · ${md(change.step)}` : ''}`;
    lines.push(
      '',
      '### Since the previous run',
      '',
      `- newly failing: ${changes.newlyFailing.map(where).join('; ') || 'none'}`,
      `- newly passing: ${changes.newlyPassing.map(where).join('; ') || 'none'}`,
      `- slower by more than ${thresholdText(changes.threshold) || 'the threshold'}: ${changes.slower.map((row) => `${where(row)} (${row.previousMs} → ${row.ms} ms)`).join('; ') || 'none'}`,
      ...(changes.newLegs.length > 0 ? [`- new legs: ${changes.newLegs.map(md).join('; ')}`] : []),
      ...(changes.goneLegs.length > 0 ? [`- legs gone: ${changes.goneLegs.map(md).join('; ')}`] : []),
    );
  }
  return `${lines.join('\n')}\n`;
}
