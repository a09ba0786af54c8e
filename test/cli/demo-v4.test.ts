// `obflow demo --api-version 4.0` (issue 29) on a fresh folder: the whole flow against the embedded emulator's AIS
// v4.0, every step passing, the v4.0 collections written to v4.0/ of the demo's own collections folder
// (.obflow/demo/collections/, never the tracked collections/) with v3.1's file names.

import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { STEP_NAMES, stepFileName } from '../../src/generate/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const cwd = tempDirSync('obflow-demo-v4-');
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('obflow demo --api-version 4.0', () => {
  it("passes every step, with the v4.0 collections in the demo's collections/v4.0/", async () => {
    const result = await runCli(['demo', '--api-version', '4.0'], { cwd });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(`collections in ${join(cwd, '.obflow', 'demo', 'collections', 'v4.0')}`);
    expect(result.stdout).toMatch(/steps passed: (\d+)\/\1\b/);
    // The summary labels balances with v4.0's code.
    expect(result.stdout).toMatch(/: -?\d+\.\d+ [A-Z]{3} \(ITAV\), \d+ transactions\n/);
    expect(result.stdout).not.toContain('(InterimAvailable)');
    expect(
      readdirSync(join(cwd, '.obflow', 'demo', 'collections', 'v4.0'))
        .filter((name) => name.endsWith('.json'))
        .sort(),
    ).toEqual([...STEP_NAMES.map(stepFileName), 'obflow-ais.postman_collection.json'].sort());
  });

  it('--api-version 3.1,4.0 runs both (a consent each) and compares them: no unexplained difference', async () => {
    const result = await runCli(['demo', '--api-version', '3.1,4.0', '--json'], { cwd });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const outcome = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as {
      passed: boolean;
      versions: { version: string; passed: boolean }[];
      comparison: { accounts: unknown[]; differences: unknown[]; explained: { field: string }[] };
    };
    expect(outcome.passed).toBe(true);
    expect(outcome.versions.map((leg) => [leg.version, leg.passed])).toEqual([
      ['3.1', true],
      ['4.0', true],
    ]);
    expect(outcome.comparison.accounts.length).toBeGreaterThan(1);
    expect(outcome.comparison.differences).toEqual([]);
    expect(outcome.comparison.explained.map((difference) => difference.field)).toContain('Balance.Type');
    // The comparison is a section of the later version's report.html, which links the earlier one's; no page of its own.
    const reports = join(cwd, '.obflow', 'demo', 'reports');
    expect(readdirSync(reports).sort()).toEqual(expect.arrayContaining(['v3.1', 'v4.0']));
    expect(readdirSync(reports)).not.toContain('versions.html');
    const page = readFileSync(join(reports, 'v4.0', 'report.html'), 'utf8');
    expect(page).toContain('<section id="versions">');
    expect(page).toContain('<th>ITAV balance</th>');
    expect(readFileSync(join(reports, 'v3.1', 'report.html'), 'utf8')).toContain('<th>InterimAvailable balance</th>');
    expect(page).toContain('<a href="../v3.1/report.html">');
    expect(page).toMatch(/no difference the v4\.0 code mapping does not explain \(\d+ explained\)/);
    expect(readFileSync(join(reports, 'v3.1', 'report.html'), 'utf8')).not.toContain('<section id="versions">');
    // Each version's chained environment in its own file (a consent each), the registration's left as it was.
    const environments = join(cwd, '.obflow', 'demo', 'environments');
    const consentOf = (name: string): unknown =>
      (JSON.parse(readFileSync(join(environments, name), 'utf8')) as { values: { key: string; value: unknown }[] }).values.find(
        (entry) => entry.key === 'consent_id',
      )?.value;
    const files = readdirSync(environments).sort();
    const v31File = files.find((name) => name.endsWith('.v3.1.postman_environment.json'));
    const v40File = files.find((name) => name.endsWith('.v4.0.postman_environment.json'));
    expect(v31File, files.join(', ')).toBeDefined();
    expect(v40File, files.join(', ')).toBeDefined();
    expect(consentOf(v31File ?? '')).toMatch(/\S/);
    expect(consentOf(v40File ?? '')).toMatch(/\S/);
    expect(consentOf(v40File ?? '')).not.toBe(consentOf(v31File ?? ''));
    // A new environment (the next demo registers a new client) removes them: they chained from the old client.
    const again = await runCli(['demo', '--api-version', '4.0'], { cwd });
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(readdirSync(environments).filter((name) => /\.v\d\.\d\.postman_environment\.json$/.test(name))).toEqual([]);
  });

  it('generate and workspace make one version: a list is a usage error', async () => {
    const result = await runCli(['generate', '--api-version', '3.1,4.0'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_USAGE generate takes one --api-version, not 3\.1,4\.0\n/);
  });

  it('against a bank that serves v3.1 only: fails at its first v4.0 read, the hint naming the version setting', async () => {
    const only = tempDirSync('obflow-demo-v31-');
    try {
      writeFileSync(join(only, 'obflow.config.json'), JSON.stringify({ sandbox: { apiVersions: ['3.1'] } }));
      const result = await runCli(['demo', '--api-version', '4.0'], { cwd: only });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: ERR_RUN_FAILED step account-access-consent failed: the bank answered 404 to the first AIS v4\.0 request/,
      );
      expect(result.stderr).toMatch(/\nhint: .*flow\.apiVersion.*--api-version 3\.1/);
    } finally {
      rmSync(only, { recursive: true, force: true });
    }
  });

  it('an unknown version is a usage error listing the versions, before anything is written', async () => {
    const empty = tempDirSync('obflow-demo-v5-');
    try {
      const result = await runCli(['demo', '--api-version', '5'], { cwd: empty });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: ERR_USAGE --api-version names an unknown version: 5\nhint: .*3\.1 and 4\.0.*\n$/);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
