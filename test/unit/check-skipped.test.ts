// CI's skip gate (tools/check-skipped.js), run on vitest JSON reports: a test that did not run fails the job unless it
// was skipped for a prerequisite the job allows; a missing report fails it too.

import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const dir = tempDirSync('obflow-skip-gate-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Result = { fullName: string; status: string; meta?: Record<string, string> };
function gate(results: Result[], allow = ''): { status: number | null; stdout: string } {
  const file = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ testResults: [{ name: 'test/x.test.ts', assertionResults: results }] }));
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'tools/check-skipped.js'), file], {
    encoding: 'utf8',
    env: { ...process.env, OBFLOW_ALLOW_SKIPPED: allow },
  });
  return { status: run.status, stdout: run.stdout };
}

const passed: Result = { fullName: 'a passes', status: 'passed' };
const specs: Result = {
  fullName: 'reads the spec',
  status: 'skipped',
  meta: { skipReason: 'needs the OBIE files: …', skipPrerequisite: 'specs' },
};

describe('tools/check-skipped.js', () => {
  it('passes when every test ran', () => {
    expect(gate([passed, { fullName: 'b fails', status: 'failed' }]).status).toBe(0);
  });

  it('fails on an it.skip, a todo, naming them', () => {
    const result = gate([passed, { fullName: 'forgotten', status: 'skipped', meta: {} }, { fullName: 'later', status: 'todo' }]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('not run: test/x.test.ts: forgotten (skipped: no reason given)');
    expect(result.stdout).toContain('later (todo');
  });

  it('lets a prerequisite skip pass only when the job allows that prerequisite', () => {
    expect(gate([passed, specs], 'specs').status).toBe(0);
    expect(gate([passed, specs]).status).toBe(1);
    expect(gate([passed, { ...specs, meta: { skipReason: 'needs Chromium', skipPrerequisite: 'chromium' } }], 'specs').status).toBe(1);
  });

  it('fails without a report', () => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'tools/check-skipped.js'), join(dir, 'absent.json')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
  });
});
