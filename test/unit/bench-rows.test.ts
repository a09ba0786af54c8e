// The bench's verdict over its rows (bench/lib.js): a row it could not measure (no spec files, a peer not installable)
// is printed as `not measured (why)` and fails the bench unless --allow-unmeasured, so a target never measured cannot
// pass; a missed target fails it; only measured, met rows give exit code 0. Also the readings issue 21's rows rest on:
// a child's CPU and peak RSS, the turn's baseline table, the demo's printed run step, a server's CPU from /proc.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';
import { tempDirSync } from '../helpers/temp.js';

interface Row {
  name: string;
  value: string;
  ok: boolean;
  note?: string;
  unmeasured?: boolean;
}
interface BenchLib {
  row: (name: string, figure: number, baseline: number | undefined, unit: string, target?: object, note?: string) => Row;
  unmeasured: (name: string, reason: string) => Row;
  errorRow: (name: string, error: unknown, lines?: number) => Row;
  skipped: (name: string, reason: string) => Row;
  verdict: (rows: Row[], options?: { allowUnmeasured?: boolean; allowMissed?: boolean }) => { code: number; lines: string[] };
  benchOptions: (argv: string[], env: Record<string, string | undefined>) => { allowUnmeasured: boolean; allowMissed: boolean };
  targetRows: (rows: Row[], targets?: { target: string; row: string }[]) => Row[];
  ISSUE_34_TARGETS: { target: string; row: string }[];
  printTable: (rows: Row[]) => void;
  readUsage: (text: string) => { peakRssMiB: number; cpuMs: number };
  turnBaseline: (
    name: string,
    figure: number,
    options?: { file?: string; newTurn?: boolean; commit?: string },
  ) => Promise<{ baseline: number; note: string }>;
}
interface BenchStart {
  printedRunStep: (stdout: string) => number | undefined;
}
interface BenchEmulator {
  processCpuMs: (pid: number, read?: (path: string) => string) => number | undefined;
}
// A path in a variable: bench/ is plain JavaScript, imported as it runs.
const LIB = '../../bench/lib.js';
const lib = (await import(LIB)) as BenchLib;
const START = '../../bench/start.js';
const start = (await import(START)) as BenchStart;
const EMULATOR = '../../bench/emulator.js';
const emulator = (await import(EMULATOR)) as BenchEmulator;

const met = lib.row('generate: obflow cold', 100, 1000, 'ms', { ratioAtMost: 0.2 });
const missed = lib.row('startup', 100, 1, 'ms', { ratioAtMost: 40 });
const portman = lib.unmeasured('generate: obflow / Portman', 'no obie-account-info-v3.1.11.yaml in /empty');

describe('bench rows and the exit code', () => {
  it('measured and met: exit 0', () => {
    expect(met.ok).toBe(true);
    expect(lib.verdict([met])).toEqual({ code: 0, lines: ['every target met'] });
  });

  it('a row not measured fails the bench and is named, with why', () => {
    const { code, lines } = lib.verdict([met, portman]);
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain('not measured: generate: obflow / Portman');
    expect(portman.note).toBe('not measured (no obie-account-info-v3.1.11.yaml in /empty)');
  });

  it('--allow-unmeasured accepts it (still named); a missed target still fails', () => {
    const allowed = lib.verdict([met, portman], { allowUnmeasured: true });
    expect(allowed.code).toBe(0);
    expect(allowed.lines.join('\n')).toMatch(/not measured: generate: obflow \/ Portman \(allowed by --allow-unmeasured\)/);
    expect(lib.verdict([missed, portman], { allowUnmeasured: true }).code).toBe(1);
  });

  it('a section that threw is a failed row naming the section and the first lines of why', () => {
    const failed = lib.errorRow('runtimes', new Error('demo exited 2\nERR_NATIVE_MODULE built for Node.js 20\nhint\nstack'), 2);
    expect(failed).toMatchObject({
      name: 'runtimes',
      value: 'error',
      ok: false,
      note: 'demo exited 2 | ERR_NATIVE_MODULE built for Node.js 20',
    });
    expect(lib.verdict([met, failed]).code).toBe(1);
  });

  it('the old name of an unmeasured row (skipped) is the same rule', () => {
    expect(lib.verdict([lib.skipped('x', 'why')]).code).toBe(1);
  });

  it('the table prints not measured (why) for the row', () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      lib.printTable([met, portman]);
    } finally {
      log.mockRestore();
    }
    const text = lines.join('\n');
    expect(text).toMatch(/generate: obflow \/ Portman\s+not measured\b.*NOT MEASURED/);
    expect(text).toContain('generate: obflow / Portman: not measured (no obie-account-info-v3.1.11.yaml in /empty)');
  });
});

describe("issue 34: a miss fails the bench unless told otherwise, and the targets' rows side by side", () => {
  it('--no-fail or BENCH_ALLOW_MISS=1 accepts a missed target (still named); nothing else does', () => {
    expect(lib.benchOptions(['node', 'run.js'], {})).toEqual({ allowUnmeasured: false, allowMissed: false });
    expect(lib.benchOptions(['node', 'run.js', '--no-fail'], {}).allowMissed).toBe(true);
    expect(lib.benchOptions(['node', 'run.js'], { BENCH_ALLOW_MISS: '1' }).allowMissed).toBe(true);
    expect(lib.benchOptions(['node', 'run.js'], { BENCH_ALLOW_MISS: '0' }).allowMissed).toBe(false);
    expect(lib.benchOptions(['node', 'run.js', '--allow-unmeasured'], {})).toEqual({ allowUnmeasured: true, allowMissed: false });
    const allowed = lib.verdict([met, missed], { allowMissed: true });
    expect(allowed.code).toBe(0);
    expect(allowed.lines).toEqual(['missed: startup (allowed by --no-fail / BENCH_ALLOW_MISS=1)']);
    expect(lib.verdict([met, missed]).code).toBe(1);
    // Accepting misses is not accepting rows never measured.
    expect(lib.verdict([missed, portman], { allowMissed: true }).code).toBe(1);
  });

  it("each target is its row under the target's name; a target without its row is a failed row", () => {
    const targets = [
      { target: 'npm start ≤ 1.8 s', row: 'npm start (median of 5) / obflow demo' },
      { target: 'emulator p99 ≤ 25 ms', row: 'emulator: p99 latency / bare node:https' },
    ];
    const start = lib.row('npm start (median of 5) / obflow demo', 1900, 1700, 's', { figureAtMost: 1800 });
    const [npmStart, p99] = lib.targetRows([met, start], targets);
    expect(npmStart).toMatchObject({
      name: 'npm start ≤ 1.8 s',
      value: '1.90 s',
      ok: false,
      note: 'row: npm start (median of 5) / obflow demo',
    });
    expect(p99).toMatchObject({ name: 'emulator p99 ≤ 25 ms', value: 'no row', ok: false });
    expect(lib.verdict([p99!], { allowMissed: false }).code).toBe(1);
  });

  it("issue 34's five targets each name a row the bench's sections make", () => {
    const sources = ['start.js', 'flow.js', 'emulator.js'].map((name) =>
      readFileSync(join(import.meta.dirname, '../../bench', name), 'utf8'),
    );
    expect(lib.ISSUE_34_TARGETS).toHaveLength(5);
    for (const { row } of lib.ISSUE_34_TARGETS) {
      // The row's name as its section writes it: a literal, or a template whose fixed part matches.
      const written = sources.some((source) => source.includes(`'${row}'`) || source.includes(row.replace('32', '${CONNECTIONS}')));
      expect(written, row).toBe(true);
    }
  });
});

describe("issue 21's rows: targets on figures and ratios", () => {
  it('a figure target (obflow --help ≤ 200 ms) is met at the bound and missed above it', () => {
    expect(lib.row('obflow --help', 200, 70, 'ms', { figureAtMost: 200 }).ok).toBe(true);
    const slow = lib.row('obflow --help', 285, 73, 'ms', { figureAtMost: 200 });
    expect(slow).toMatchObject({ ok: false, target: '≤ 200 ms', value: '285 ms', ratio: '3.90' });
    expect(lib.verdict([slow]).code).toBe(1);
  });

  it('a ratio target against a peer in the same run (obflow run all ≤ 1.1× newman)', () => {
    expect(lib.row('obflow / newman', 2420, 2200, 's', { ratioAtMost: 1.1 }).ok).toBe(true);
    expect(lib.row('obflow / newman', 2470, 2200, 's', { ratioAtMost: 1.1 })).toMatchObject({ ok: false, ratio: '1.12' });
  });

  it('a figure target with no baseline (generate cold ≤ 500 ms) prints — for baseline and ratio', () => {
    expect(lib.row('generate cold', 512, undefined, 'ms', { figureAtMost: 500 })).toMatchObject({
      ok: false,
      baseline: '—',
      ratio: '—',
      target: '≤ 500 ms',
    });
  });
});

describe("the readings issue 21's rows rest on", () => {
  it("a child's usage file: peak RSS in MiB and CPU (user + system) in ms; NaN when it wrote nothing", () => {
    expect(lib.readUsage(JSON.stringify({ maxRSS: 204800, user: 1500000, system: 250000 }))).toEqual({ peakRssMiB: 200, cpuMs: 1750 });
    const none = lib.readUsage('');
    expect(Number.isNaN(none.peakRssMiB) && Number.isNaN(none.cpuMs)).toBe(true);
  });

  it("the turn's baseline: the first bench records it (ratio 1), later benches compare with it, --new-turn starts over", async () => {
    const file = join(tempDirSync('obflow-bench-turn-'), 'turn.json');
    const first = await lib.turnBaseline('cpu', 60, { file, commit: 'abc1234' });
    expect(first.baseline).toBe(60);
    expect(first.note).toMatch(/this run recorded it \(commit abc1234\)/);
    const later = await lib.turnBaseline('cpu', 75, { file, commit: 'def5678' });
    expect(later.baseline).toBe(60);
    expect(later.note).toMatch(/recorded .* on abc1234/);
    expect(lib.row('cpu / turn', 75, later.baseline, 'ms', { ratioAtMost: 1 }).ok).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8')).cpu.value).toBe(60);
    const fresh = await lib.turnBaseline('cpu', 50, { file, commit: 'fff0000', newTurn: true });
    expect(fresh.baseline).toBe(50);
    expect((await lib.turnBaseline('cpu', 70, { file })).baseline).toBe(50);
  });

  it("the demo's run step as it prints it; undefined when the line is missing", () => {
    const stdout = [
      'generate     13 collections in /tmp/c (192 ms)',
      'run          newman, 14 steps, reports in /tmp/state/demo/reports (1987 ms)',
      'report       /tmp/state/demo/reports/report.html (0 ms)',
    ].join('\n');
    expect(start.printedRunStep(stdout)).toBe(1987);
    expect(start.printedRunStep('generate     13 collections (192 ms)')).toBeUndefined();
  });

  it("a server's CPU from /proc/<pid>/stat (utime + stime in clock ticks), a command with spaces and parentheses included", () => {
    const stat = '4242 (node) my server) S 1 4242 4242 0 -1 4194304 1000 0 0 0 250 50 0 0 20 0 11 0 100 0 0';
    expect(emulator.processCpuMs(4242, () => stat)).toBe(3000);
    expect(
      emulator.processCpuMs(4242, () => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });
});
