// Skipped is its own verdict: against a bank that issues no refresh token — panva's oidc-provider (test/
// oidc-bank) holds a client to its registered grant_types, and obflow's default registration (§2.1) asks for none —
// `obflow run all` reports the refresh step skipped, with the reason that names what would make it run, in its line,
// its summary, the JSON report, JUnit, the HTML page and `report merge`; the read after the refresh is skipped with it
// (never passed on the old token); `--no-skips` turns the skip into a failure. Through the CLI, as a TPP runs it.

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { STEP_NAMES } from '../../src/generate/index.js';
import type { JsonReport } from '../../src/run/reporters/json.js';
import { runCli } from '../helpers/cli.js';
import { getTestIdentity } from '../helpers/identity.js';
import type { OidcBank } from '../oidc-bank/index.js';
import { startBankFor, writeBankConfig } from '../oidc-bank/target.js';
import { tempDir } from '../helpers/temp.js';

const REASON = /the bank issued no refresh token.*registration\.refresh_token_grant: true/;

let bank: OidcBank;
let cwd: string;
beforeAll(async () => {
  const identity = await getTestIdentity();
  bank = await startBankFor(identity, { profile: 'sandbox' });
  cwd = await tempDir('obflow-skipped-');
  // The default registration: no registration.refresh_token_grant.
  await writeBankConfig(cwd, bank, identity);
  for (const command of ['register', 'environment', 'generate']) {
    const result = await runCli([command], { cwd });
    expect(result.code, `${command}\n${result.stderr}`).toBe(0);
  }
});
afterAll(async () => {
  await bank?.close();
  if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
});

describe('a bank that issues no refresh token', () => {
  it('run all: refresh skipped with its reason in the CLI, the summary, JSON, JUnit, HTML and report merge; exit 0', async () => {
    const from = bank.log.length;
    const run = await runCli(['run', 'all', '--reporters', 'cli,junit,json,html'], { cwd });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.find((line) => line.startsWith('– refresh'))).toMatch(new RegExp(`^– refresh {2}skipped: ${REASON.source}`));
    expect(lines).toContain(
      `steps passed: ${STEP_NAMES.length + 1}/${STEP_NAMES.length + 2} (${STEP_NAMES.length} collection steps + 2 local steps of obflow: id-token, id-token-token), 1 skipped (refresh)`,
    );
    // Never a request with the old token passed off as the refreshed one: no refresh grant, one accounts read only.
    const calls = bank.log.slice(from);
    expect(calls).not.toContain('grant refresh_token');
    expect(calls.filter((line) => /^GET \/open-banking\/v3\.1\/aisp\/accounts\b(?!\/)/.test(line))).toHaveLength(1);
    expect(run.stdout).not.toContain('the refreshed token reads the same accounts');

    const report = JSON.parse(await readFile(join(cwd, 'reports', 'obflow-run.json'), 'utf8')) as JsonReport;
    const refresh = report.steps.find((step) => step.name === 'refresh');
    expect(refresh).toMatchObject({ status: 'skipped', skipReason: expect.stringMatching(REASON), requests: [] });
    expect(refresh?.passed).toBeUndefined();
    expect(refresh?.skipped?.map((skip) => skip.item)).toEqual(['refresh: POST token', 'refresh: GET /accounts with the new token']);
    expect(report.passed).toBe(true);

    const junit = await readFile(join(cwd, 'reports', 'discovery--refresh.xml'), 'utf8');
    expect(junit).toMatch(/<testcase name="refresh: POST token"[^>]*>\s*<skipped message="the bank issued no refresh token/);
    expect(junit).toContain('<testcase name="refresh: GET /accounts with the new token"');
    expect(junit).not.toContain('the refreshed token reads the same accounts');

    const html = await readFile(join(cwd, 'reports', 'report.html'), 'utf8');
    expect(html).toMatch(
      /<details class="step skipped" id="step-refresh">\s*<summary>\d+\. refresh <span class="pill idle">skipped<\/span>/,
    );
    expect(html).toMatch(/<b>1<\/b> skipped/);

    const merged = join(cwd, 'merged');
    const merge = await runCli(['report', 'merge', join(cwd, 'reports'), '--out', merged], { cwd });
    expect(merge.code, merge.stderr).toBe(0);
    const summary = JSON.parse(await readFile(join(merged, 'obflow-merged.json'), 'utf8')) as {
      legs: { steps: { name: string; status: string; reason?: string }[] }[];
    };
    expect(summary.legs[0]?.steps.find((step) => step.name === 'refresh')).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(REASON),
    });
    expect(await readFile(join(merged, 'index.html'), 'utf8')).toMatch(/<td class="cell skipped" data-step="refresh"/);
    expect(await readFile(join(merged, 'obflow-merged.xml'), 'utf8')).toMatch(
      /<skipped message="skipped: the bank issued no refresh token/,
    );
  });

  it('run all --no-skips: the skip fails the run (ERR_RUN_SKIPPED, exit 1), naming the step and its reason', async () => {
    const run = await runCli(['run', 'all', '--no-skips', '--json'], { cwd });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr.trim()).error).toMatchObject({ code: 'ERR_RUN_SKIPPED', message: expect.stringMatching(REASON) });
    const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(result).toMatchObject({
      passed: false,
      steps: { skipped: 1 },
      skips: [{ step: 'refresh', reason: expect.stringMatching(REASON) }],
    });
    expect(result.reports).toEqual(expect.arrayContaining([expect.stringMatching(/discovery--refresh\.xml$/)]));
  });
});
