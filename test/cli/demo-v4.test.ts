// `obflow demo --api-version 4.0` on a fresh folder: the whole flow against the embedded emulator's AIS
// v4.0, every step passing, the v4.0 collections written to v4.0/ of the demo's own collections folder
// (.obflow/demo/collections/, never the tracked collections/) with v3.1's file names; over 3.1,4.0 a leg each,
// compared once, each leg's page named and linked; a reports folder holding the last run's pages only.

import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { STEP_NAMES, stepFileName } from '../../src/generate/index.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
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

  it('--api-version 3.1,4.0 (its own process) prints v3.1 beside v4.0 once; each page names its version and links the comparison', async () => {
    const reports = join(cwd, '.obflow', 'demo', 'reports');
    // The single-version demo before left its pages in the reports folder itself.
    expect(readdirSync(reports)).toContain('report.html');
    const result = await runCliProcess(['demo', '--api-version', '3.1,4.0'], { cwd });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout.split('\n').filter((line) => line === 'v3.1 beside v4.0:')).toHaveLength(1);
    expect(result.stdout).toContain('✓ no unexplained difference');
    expect(result.stdout.match(/^AIS v(3\.1|4\.0):$/gm)).toEqual(['AIS v3.1:', 'AIS v4.0:']);
    // A report folder holds the last run's pages only: the single-version run's went, the legs' sub-folders stay.
    expect(readdirSync(reports).sort()).toEqual(['v3.1', 'v4.0']);
    const v31 = readFileSync(join(reports, 'v3.1', 'report.html'), 'utf8');
    const v40 = readFileSync(join(reports, 'v4.0', 'report.html'), 'utf8');
    expect(v31).toMatch(/<title>obflow report: [^<]*, AIS v3\.1 — passed<\/title>/);
    expect(v40).toMatch(/<title>obflow report: [^<]*, AIS v4\.0 — passed<\/title>/);
    expect(v31).toContain('<h1>obflow run report: <span class="api">AIS v3.1</span>');
    expect(v40).toContain('<h1>obflow run report: <span class="api">AIS v4.0</span>');
    // The later leg's page holds the comparison and links the earlier one's; the earlier one's links to it.
    expect(v40).toContain('<section id="versions">');
    expect(v40).toContain('<a href="../v3.1/report.html">');
    expect(v31).not.toContain('<section id="versions">');
    expect(v31).toContain('<a href="../v4.0/report.html#versions">');
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
    // A file of the user's own in a leg's reports folder stays (obflow removes only what it wrote), and keeps its folder.
    writeFileSync(join(reports, 'v3.1', 'notes.txt'), 'mine\n');
    const again = await runCliProcess(['demo', '--api-version', '4.0'], { cwd });
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(readdirSync(environments).filter((name) => /\.v\d\.\d\.postman_environment\.json$/.test(name))).toEqual([]);
    // A run over one version removes the legs' pages of the earlier run over two: no v3.1 page marked passed beside it.
    expect(readdirSync(reports)).toContain('report.html');
    expect(readdirSync(reports)).not.toContain('v4.0');
    expect(readdirSync(join(reports, 'v3.1'))).toEqual(['notes.txt']);
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
