// The bench's verdict over its rows (bench/lib.js): a row it could not measure (no spec files, a peer not installable)
// is printed as `not measured (why)` and fails the bench unless --allow-unmeasured, so a target never measured cannot
// pass; a missed target fails it; only measured, met rows give exit code 0. Every target is a ratio to a baseline
// measured in the same run: a bound on a figure itself (an absolute time or size) is refused, in lib.js and in the
// sections' sources. Also the readings the rows rest on: a child's CPU and peak RSS, the demo's printed run step, a
// server's CPU from /proc.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

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
  HEADLINE_TARGETS: { target: string; row: string }[];
  printTable: (rows: Row[]) => void;
  readUsage: (text: string) => { peakRssMiB: number; cpuMs: number };
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

describe("a miss fails the bench unless told otherwise, and the headline targets' rows side by side", () => {
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
      { target: 'npm start beside plain newman', row: 'npm start (median of 5) / plain newman (whole flow)' },
      { target: 'emulator p99 beside a bare server', row: 'emulator: p99 latency / bare node:https' },
    ];
    const start = lib.row('npm start (median of 5) / plain newman (whole flow)', 1900, 1200, 's', { ratioAtMost: 1.4 });
    const [npmStart, p99] = lib.targetRows([met, start], targets);
    expect(npmStart).toMatchObject({
      name: 'npm start beside plain newman',
      value: '1.90 s',
      ratio: '1.58',
      ok: false,
      note: 'row: npm start (median of 5) / plain newman (whole flow)',
    });
    expect(p99).toMatchObject({ name: 'emulator p99 beside a bare server', value: 'no row', ok: false });
    expect(lib.verdict([p99!], { allowMissed: false }).code).toBe(1);
  });

  it("the five headline targets each name a row the bench's sections make", () => {
    const sources = ['start.js', 'flow.js', 'emulator.js'].map((name) =>
      readFileSync(join(import.meta.dirname, '../../bench', name), 'utf8'),
    );
    expect(lib.HEADLINE_TARGETS).toHaveLength(5);
    for (const { row } of lib.HEADLINE_TARGETS) {
      // The row's name as its section writes it: a literal, or a template whose fixed part matches.
      const written = sources.some((source) => source.includes(`'${row}'`) || source.includes(row.replace('32', '${CONNECTIONS}')));
      expect(written, row).toBe(true);
    }
  });
});

describe('a target is a ratio to a baseline measured in the same run', () => {
  it('a ratio target against a peer in the same run (obflow run all ≤ 1.1× newman)', () => {
    expect(lib.row('obflow / newman', 2420, 2200, 's', { ratioAtMost: 1.1 }).ok).toBe(true);
    expect(lib.row('obflow / newman', 2470, 2200, 's', { ratioAtMost: 1.1 })).toMatchObject({ ok: false, ratio: '1.12' });
    expect(lib.row('emulator / bare', 4000, 10000, 'req/s', { ratioAtLeast: 0.5 })).toMatchObject({ ok: false, target: 'ratio ≥ 0.5' });
  });

  it('a bound on the figure itself (obflow --help ≤ 200 ms, peak RSS ≤ 200 MiB) is refused: it passes on one machine and fails on a slower one', () => {
    expect(() => lib.row('obflow --help / node -e 0', 200, 70, 'ms', { figureAtMost: 200 })).toThrow(TypeError);
    expect(() => lib.row('emulator: requests per second', 5000, undefined, 'req/s', { figureAtLeast: 3000 })).toThrow(TypeError);
    expect(() => lib.row('jo: peak RSS / newman', 190, 170, 'MiB', { figureAtMost: 200 })).toThrow(/ratioAtMost.*same-run baseline/);
    // Nor a ratio and a bound together, nor a ratio without its baseline.
    expect(() => lib.row('x', 1, 1, 'ms', { ratioAtMost: 2, figureAtMost: 5 })).toThrow(TypeError);
    expect(() => lib.row('generate cold', 512, undefined, 'ms', { ratioAtMost: 6 })).toThrow(/baseline measured in the same run/);
  });

  it('information rows carry no target and any figures: an absolute time may be printed, never judged', () => {
    expect(lib.row("obflow demo's own CPU", 2400, undefined, 'ms')).toMatchObject({ ok: true, target: '—', baseline: '—', ratio: '—' });
    expect(lib.row('paging jo: obflow / raw undici', 4000, 1000, 's')).toMatchObject({ ok: true, target: '—', ratio: '4.00' });
  });

  it("no section's source writes an absolute target (a figure bound, or a hand-made row whose target has a unit)", () => {
    const bench = join(import.meta.dirname, '../../bench');
    const sources = readdirSync(bench)
      .filter((name) => name.endsWith('.js'))
      .map((name) => ({ name, text: readFileSync(join(bench, name), 'utf8') }));
    expect(sources.map((source) => source.name)).toEqual(expect.arrayContaining(['start.js', 'flow.js', 'store-soak.js']));
    for (const { name, text } of sources) {
      expect(text, name).not.toMatch(/figureAt(Most|Least)/);
      expect(text, name).not.toMatch(/target: [`'"][≤≥][^`'"\n]*\b(ms|s|µs|MiB|MB|req\/s)\b/);
    }
  });
});

describe('the readings the rows rest on', () => {
  it("a child's usage file: peak RSS in MiB and CPU (user + system) in ms; NaN when it wrote nothing", () => {
    expect(lib.readUsage(JSON.stringify({ maxRSS: 204800, user: 1500000, system: 250000 }))).toEqual({ peakRssMiB: 200, cpuMs: 1750 });
    const none = lib.readUsage('');
    expect(Number.isNaN(none.peakRssMiB) && Number.isNaN(none.cpuMs)).toBe(true);
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
