// `obflow report merge` is linear in the number of steps (once, one 200,000-step leg gave no answer in
// 180 s). Proved by structure, never by a clock: every array scan the merge makes (indexOf, includes, find, findIndex,
// splice, lastIndexOf — each costs the array's length) is summed while the pure core runs on S and on 4·S steps; a
// linear merge does four times the work, one that scans per step sixteen. And one 50,000-step report goes through the
// whole command (files in, page, JUnit, Markdown and summary out).

import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { compareSummaries, mergeLegs } from '../../src/report/merge.js';
import { mergeRunReports, MERGED_FILES } from '../../src/report/merge-files.js';
import { mergedJunit, mergedMarkdown, mergedPageView, timingRows } from '../../src/report/merge-render.js';
import { loadTiming } from '../../src/report/timing.js';
import type { JsonReport } from '../../src/run/reporters/json.js';
import { tempDirSync } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 10, 25, 6, 0, 0);
const iso = (ms: number): string => new Date(T0 + ms).toISOString();

/** One leg's report of `count` steps, every 1000th failing (a failure carries its check and rule). */
function bigReport(count: number, leg = 'bank'): JsonReport {
  const steps: JsonReport['steps'] = [];
  for (let index = 0; index < count; index += 1) {
    const failed = index % 1000 === 999;
    steps.push({
      name: `step-${String(index).padStart(6, '0')}`,
      kind: 'collection',
      startedAt: iso(index * 10),
      finishedAt: iso(index * 10 + 7),
      passed: !failed,
      requests: [
        {
          item: `request ${index}`,
          method: 'GET',
          assertions: [
            {
              name: 'body is an OBReadAccount6 (AIS v3.1 §4)',
              status: failed ? 'failed' : 'passed',
              ...(failed ? { message: 'expected x' } : {}),
            },
          ],
        },
      ] as JsonReport['steps'][number]['requests'],
      preRequestAssertions: [],
      scriptErrors: [],
    });
  }
  return {
    version: 1,
    startedAt: iso(0),
    finishedAt: iso(count * 10),
    target: { name: leg, profile: 'p', consent: 'headless' },
    origins: ['https://127.0.0.1:1'],
    passed: false,
    steps,
  } as JsonReport;
}

const SCANS = ['indexOf', 'lastIndexOf', 'includes', 'find', 'findIndex', 'findLast', 'findLastIndex', 'splice'] as const;

/** Runs `work` with every array scan counted by the length it covers (restored afterwards, even on a throw). */
function scannedElements(work: () => void): number {
  let scanned = 0;
  const originals = SCANS.map((name) => [name, Array.prototype[name]] as const);
  for (const [name, original] of originals) {
    Object.defineProperty(Array.prototype, name, {
      configurable: true,
      writable: true,
      value: function counted(this: unknown[], ...args: unknown[]): unknown {
        scanned += this.length;
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      },
    });
  }
  try {
    work();
  } finally {
    for (const [name, original] of originals)
      Object.defineProperty(Array.prototype, name, { configurable: true, writable: true, value: original });
  }
  return scanned;
}

describe('report merge scales linearly with the steps', () => {
  it('the pure core (columns, comparison, page view, timing picture, JUnit, Markdown) scans O(S), not O(S²)', async () => {
    const { timingPicture, formatMs } = await loadTiming();
    const work = (count: number): number => {
      // Two nights of one leg, so the comparison with the previous summary runs too.
      const previous = mergeLegs([{ source: 'a', report: bigReport(count) }]);
      const inputs = [{ source: 'b', report: bigReport(count) }];
      return scannedElements(() => {
        const merged = mergeLegs(inputs);
        const summary = { ...merged, changes: compareSummaries(previous, merged, { percent: 50 }) };
        const picture = timingPicture(timingRows(summary), { steps: summary.steps, labelWidth: 300 });
        mergedPageView(summary, picture, formatMs);
        mergedJunit(summary);
        mergedMarkdown(summary);
      });
    };
    const small = work(2000);
    const large = work(8000);
    // Linear: ×4 the steps, ×4 the scanning (a constant per step). A scan per step would make it ×16.
    expect(large / Math.max(1, small)).toBeLessThan(6);
    expect(large).toBeLessThan(8000 * 8);
  });

  it('one 50,000-step report merges through the command: every step a column, the failures listed, each file written', async () => {
    const count = 50_000;
    const root = tempDirSync('obflow-merge-large-');
    const legDir = join(root, 'in', 'leg');
    await mkdir(legDir, { recursive: true });
    writeFileSync(join(legDir, 'obflow-run.json'), `${JSON.stringify(bigReport(count))}\n`);

    const { summary } = await mergeRunReports({ inputs: [join(root, 'in')], out: join(root, 'out'), slowerThreshold: '50%', cwd: root });
    expect(summary.steps).toHaveLength(count);
    expect(summary.steps[0]).toBe('step-000000');
    expect(summary.steps[count - 1]).toBe('step-049999');
    expect(summary.legs[0]?.steps.filter((step) => step.status === 'failed')).toHaveLength(count / 1000);

    const page = readFileSync(join(root, 'out', MERGED_FILES.page), 'utf8');
    expect(page.match(/<td class="cell /g)).toHaveLength(count);
    expect(page.match(/<td class="cell failed"/g)).toHaveLength(count / 1000);
    const junit = readFileSync(join(root, 'out', MERGED_FILES.junit), 'utf8');
    expect(junit).toContain(`<testsuites name="obflow report merge" tests="${count}" failures="${count / 1000}"`);
    const markdown = readFileSync(join(root, 'out', MERGED_FILES.markdown), 'utf8');
    expect(markdown.match(/❌/g)).toHaveLength(count / 1000);
  }, 120_000);
});
