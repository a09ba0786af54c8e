// The bench's verdict over its rows (bench/lib.js): a row it could not measure (no spec files, a peer not installable)
// is printed as `not measured (why)` and fails the bench unless --allow-unmeasured, so a target never measured cannot
// pass; a missed target fails it; only measured, met rows give exit code 0.

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
  skipped: (name: string, reason: string) => Row;
  verdict: (rows: Row[], options?: { allowUnmeasured?: boolean }) => { code: number; lines: string[] };
  printTable: (rows: Row[]) => void;
}
// A path in a variable: bench/ is plain JavaScript, imported as it runs.
const LIB = '../../bench/lib.js';
const lib = (await import(LIB)) as BenchLib;

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
