// CI that cannot shrink (tools/ci-floor.js): a pass fails when a test file it names is missing or did not run, when
// fewer tests ran than its floor in tools/ci-floors.json, or when more ran than the floor plus its slack (the floor lags
// the suite); and .ci/run and the GitHub workflow apply it to every pass.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const dir = tempDirSync('obflow-ci-floor-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Result = { fullName: string; status: string; meta?: Record<string, string> };
const FLOORS = join(dir, 'floors.json');
writeFileSync(FLOORS, JSON.stringify({ floors: { 'every test': 3, 'end-to-end': 1 } }));

function report(files: Record<string, Result[]>): string {
  const file = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  const testResults = Object.entries(files).map(([name, assertionResults]) => ({ name: join(REPO_ROOT, name), assertionResults }));
  writeFileSync(file, JSON.stringify({ testResults }));
  return file;
}

function floor(args: string[], allow = ''): { status: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'tools/ci-floor.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, OBFLOW_CI_FLOORS: FLOORS, OBFLOW_ALLOW_SKIPPED: allow },
  });
  return { status: run.status, stdout: run.stdout };
}

const ok = (name: string): Result => ({ fullName: name, status: 'passed' });
const A = 'test/unit/ci-floor.test.ts';
const B = 'test/unit/check-skipped.test.ts';

describe('tools/ci-floor.js', () => {
  it('passes a pass that ran at least its floor (failed tests count as run: they fail the pass elsewhere)', () => {
    const result = floor([report({ [A]: [ok('a'), ok('b')], [B]: [{ fullName: 'c', status: 'failed' }] }), 'every test']);
    expect(result).toEqual({ status: 0, stdout: 'every test: 3 tests ran, floor 3\n' });
  });

  it('fails a pass that ran fewer tests than its floor (skipped ones do not count)', () => {
    const result = floor([report({ [A]: [ok('a'), ok('b'), { fullName: 'c', status: 'skipped' }] }), 'every test']);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('CI shrank: 2 tests ran, fewer than the floor of 3');
  });

  it('counts a test skipped for a prerequisite the job allows (OBFLOW_ALLOW_SKIPPED), and no other skip', () => {
    const specs = { fullName: 'c', status: 'skipped', meta: { skipPrerequisite: 'specs' } };
    const file = report({ [A]: [ok('a'), ok('b'), specs] });
    expect(floor([file, 'every test'], 'specs').stdout).toBe(
      'every test: 3 tests ran (1 of them skipped for an allowed prerequisite), floor 3\n',
    );
    expect(floor([file, 'every test'], 'chromium').status).toBe(1);
  });

  it('fails when a named test file is missing, or is there and did not run', () => {
    const missing = floor([report({ [A]: [ok('a')] }), 'end-to-end', '--files', A, 'test/cli/gone.test.ts']);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain('CI shrank: named test file missing: test/cli/gone.test.ts');
    const notRun = floor([report({ [A]: [ok('a')] }), 'end-to-end', '--files', A, B]);
    expect(notRun.status).toBe(1);
    expect(notRun.stdout).toContain(`CI shrank: named test file did not run: ${B}`);
    expect(floor([report({ [A]: [ok('a')], [B]: [ok('b')] }), 'end-to-end', '--files', A, B]).status).toBe(0);
  });

  it('"none" (a trial on some files) checks the named files only; an unknown floor or report is a failure', () => {
    expect(floor([report({ [A]: [ok('a')] }), 'none', '--files', A]).status).toBe(0);
    expect(floor([report({ [A]: [ok('a')] }), 'none', '--files', B]).status).toBe(1);
    expect(floor([report({ [A]: [ok('a')] }), 'every tset']).stdout).toContain('no floor named "every tset"');
    expect(floor([join(dir, 'absent.json'), 'every test']).status).toBe(1);
  });

  it('fails a pass that ran more than its floor plus the slack: the floor lags the suite, and the line says how to raise it', () => {
    writeFileSync(FLOORS, JSON.stringify({ slack: 1, floors: { 'every test': 3, 'end-to-end': 1 } }));
    const four = report({ [A]: [ok('a'), ok('b'), ok('c'), ok('d')] });
    expect(floor([four, 'every test']).status).toBe(0);
    const five = report({ [A]: [ok('a'), ok('b'), ok('c'), ok('d'), ok('e')] });
    const lagging = floor([five, 'every test']);
    expect(lagging.status).toBe(1);
    expect(lagging.stdout).toContain('CI floor: 5 tests ran, more than the floor of 3 plus its slack of 1: the floor lags the suite');
    expect(lagging.stdout).toContain(`node tools/ci-floor.js --raise ${five} 'every test'`);
    // A trial on named files checks no count either way.
    expect(floor([five, 'none', '--files', A]).status).toBe(0);
    writeFileSync(FLOORS, JSON.stringify({ floors: { 'every test': 3, 'end-to-end': 1 } }));
  });

  it('--raise moves a floor up to what a report ran, never down', () => {
    writeFileSync(FLOORS, JSON.stringify({ floors: { 'every test': 3, 'end-to-end': 1 } }));
    expect(floor(['--raise', report({ [A]: [ok('a'), ok('b'), ok('c'), ok('d')] }), 'every test']).status).toBe(0);
    expect(JSON.parse(readFileSync(FLOORS, 'utf8')).floors['every test']).toBe(4);
    floor(['--raise', report({ [A]: [ok('a')] }), 'every test']);
    expect(JSON.parse(readFileSync(FLOORS, 'utf8')).floors['every test']).toBe(4);
  });
});

describe('every CI pass is held to a floor', () => {
  const ciRun = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
  const floors = JSON.parse(readFileSync(join(REPO_ROOT, 'tools', 'ci-floors.json'), 'utf8')) as {
    slack: number;
    floors: Record<string, number>;
  };

  it('.ci/run checks each pass: the full pass against "every test", the runtime and end-to-end passes against theirs and their named files', () => {
    expect(ciRun).toMatch(/node tools\/ci-floor\.js "test-results\/vitest\.json" "\$floor" --files "\$\{named\[@\]\}"/);
    expect(ciRun).toContain('floor="every test"');
    expect(ciRun).toContain('floor="runtime"');
    expect(ciRun).toContain('floor="end-to-end"');
    expect(Object.keys(floors.floors).sort()).toEqual(['end-to-end', 'every test', 'runtime']);
  });

  it('the floors are not trivially low, and follow the suite within a small slack', () => {
    expect(floors.floors['every test']).toBeGreaterThanOrEqual(1000);
    expect(floors.floors['runtime']).toBeGreaterThanOrEqual(1000);
    expect(floors.floors['end-to-end']).toBeGreaterThanOrEqual(30);
    expect(floors.slack).toBeGreaterThan(0);
    expect(floors.slack).toBeLessThanOrEqual(20);
  });
});
