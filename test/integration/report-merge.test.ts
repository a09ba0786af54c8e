// Many banks at a glance, end to end: three legs of a CI matrix run against the embedded sandbox through the stages `obflow run`
// composes (one of them against an emulator that signs a wrong openbanking_intent_id into its id_tokens, so it fails at
// psu-consent), plus a leg whose job died before any report (its leg-status file only, as the recipes write it); then
// `obflow report merge` over their folders. Chromium opens the merged page: no failed load, no console error, the grid
// shows the failing cell with the check and rule it names and links to that leg's report at the step; no byte of any
// secret of the three runs is in anything the merge wrote (the workspace test's scan).

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import type { MergedSummary } from '../../src/report/merge.js';
import { openTargetSession } from '../../src/pipeline/session.js';
import { environmentStage } from '../../src/pipeline/environment.js';
import { registerStage } from '../../src/pipeline/register.js';
import { runStage } from '../../src/pipeline/run.js';
import { sandboxTarget } from '../../src/pipeline/target.js';
import type { ProfileName } from '../../src/sandbox/contracts.js';
import { runCli } from '../helpers/cli.js';
import { getTestIdentity } from '../helpers/identity.js';
import { CHROMIUM_PATH, chromium, describeWith } from '../helpers/prerequisites.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { issuedSecrets, leakedSecrets } from '../helpers/secrets.js';
import { COLLECTIONS_DIR } from './pipeline-helpers.js';
import { tempDirSync } from '../helpers/temp.js';

const work = tempDirSync('obflow-report-merge-');
const legs = join(work, 'out');
const merged = join(work, 'merged');
const sandboxes: TestSandbox[] = [];
const secrets = new Set<string>();

/** One leg as the recipe's script runs it: its own state and reports folder (out/<leg>/), register, environment, run
 *  all with the json and html reporters; then the leg-status file its EXIT trap writes. */
async function runLeg(sandbox: TestSandbox, leg: { bank: string; profile: ProfileName; consent: 'headless' }): Promise<boolean> {
  const identity = await getTestIdentity();
  const out = join(legs, `${leg.bank}-${leg.profile}-${leg.consent}`);
  const reports = join(out, 'reports');
  const config = parseConfig(
    { stateDir: join(out, 'state'), output: { collections: COLLECTIONS_DIR, reports }, sandbox: { profile: leg.profile } },
    'test',
  );
  const serverCa = [identity.pem.rootCa, identity.pem.issuingCa];
  const session = await openTargetSession(config, sandboxTarget(config, sandbox.urls, serverCa), identity.paths);
  try {
    const registered = await registerStage(session, { force: true });
    if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
    const { environment } = await environmentStage(session, registered.registration);
    const result = await runStage(session, { environment, reporters: ['junit', 'json', 'html'] });
    // What the bank issued (the registration response, the values the flow took from token and authorisation
    // responses), whatever the environments mark secret.
    const issued = issuedSecrets({ registration: registered.registration, environments: [environment.values, result.environment.values] });
    for (const value of issued) secrets.add(value);
    writeFileSync(join(reports, 'obflow-leg.json'), `${JSON.stringify({ ...leg, exit: result.passed ? 0 : 1, stage: 'run' })}\n`);
    return result.passed;
  } finally {
    await session.close();
  }
}

beforeAll(async () => {
  const [good, faulty] = await Promise.all([startTestSandbox(), startTestSandbox({ idTokenFault: 'wrong-intent-id' })]);
  sandboxes.push(good, faulty);
  if (good === undefined || faulty === undefined) throw new TypeError('two sandboxes');
  expect(await runLeg(good, { bank: 'sandbox', profile: 'strict-headless', consent: 'headless' })).toBe(true);
  expect(await runLeg(good, { bank: 'sandbox', profile: 'permissive-headless', consent: 'headless' })).toBe(true);
  expect(await runLeg(faulty, { bank: 'faultybank', profile: 'strict-headless', consent: 'headless' })).toBe(false);
  // A job that died at registration (bank down): no report, only what its EXIT trap wrote.
  const down = join(legs, 'downbank-strict-headless-headless', 'reports');
  mkdirSync(down, { recursive: true });
  writeFileSync(
    join(down, 'obflow-leg.json'),
    `${JSON.stringify({ bank: 'downbank', profile: 'strict-headless', consent: 'headless', exit: 3, stage: 'register' })}\n`,
  );
  const identity = await getTestIdentity();
  for (const value of issuedSecrets({ keyPems: [identity.pem.transportKey, identity.pem.signingKey, identity.pem.serverKey] }))
    secrets.add(value);
}, 180_000);

afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.close();
  rmSync(work, { recursive: true, force: true });
});

/** Every file under a folder, by its path relative to it. */
function filesOf(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return [path.slice(dir.length + 1), readFileSync(path)];
      }),
  );
}

describe('obflow report merge over three legs and a leg that never wrote a report', () => {
  let summary: MergedSummary;

  beforeAll(async () => {
    const result = await runCli(['report', 'merge', legs, '--out', merged], { cwd: work });
    // A leg failed: exit 1 with one coded line, after every file was written.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /^error: ERR_LEGS_FAILED 2 of 4 legs failed \(1 at a step or exit, 1 without a report\)\nhint: Open \S+index\.html/,
    );
    summary = JSON.parse(readFileSync(join(merged, 'obflow-merged.json'), 'utf8')) as MergedSummary;
  }, 60_000);

  it('one row per leg, sorted; the faulty leg failed at psu-consent with the check that names the rule; the dead one says why', () => {
    expect(summary.legs.map((leg) => [leg.id, leg.status])).toEqual([
      ['downbank / strict-headless / headless', 'no-report'],
      ['faultybank / strict-headless / headless', 'failed'],
      ['sandbox / permissive-headless / headless', 'passed'],
      ['sandbox / strict-headless / headless', 'passed'],
    ]);
    const faulty = summary.legs[1];
    const failedStep = faulty?.steps.find((step) => step.status === 'failed');
    expect(failedStep?.name).toBe('psu-consent');
    expect(failedStep?.failures.map((failure) => failure.check)).toContain('id_token openbanking_intent_id is the consent id');
    // bail: nothing after the failing step ran
    expect(
      faulty?.steps.slice(faulty.steps.indexOf(failedStep ?? faulty.steps[0]!) + 1).every((step) => step.status === 'not-reached'),
    ).toBe(true);
    expect(summary.legs[0]?.reason).toMatch(/^exit 3 at obflow register: the bank refused or could not be reached/);
    // The passing legs ran every step, each with its time.
    expect(summary.legs[3]?.steps.every((step) => step.status === 'passed' && typeof step.ms === 'number')).toBe(true);
    expect(summary.steps.slice(0, 2)).toEqual(['discovery', 'client-credentials']);
    expect(summary.legs[3]?.report).toBe('legs/sandbox-strict-headless-headless/report.html');
  });

  it('the merged JUnit has a suite per leg; the Markdown for the job summary has the grid', () => {
    const junit = readFileSync(join(merged, 'obflow-merged.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)).toHaveLength(4);
    expect(junit).toContain('<failure message="id_token openbanking_intent_id is the consent id"');
    expect(readFileSync(join(merged, 'obflow-merged.md'), 'utf8')).toMatch(/^## obflow: 2 of 4 legs passed/);
  });

  it('no byte of any secret of the three runs (client secrets, tokens, codes, private keys) is in anything the merge wrote', () => {
    expect(secrets.size).toBeGreaterThan(20);
    const files = filesOf(merged);
    expect([...files.keys()].filter((path) => path.startsWith('legs/')).sort()).toEqual([
      'legs/faultybank-strict-headless-headless/obflow-run.json',
      'legs/faultybank-strict-headless-headless/report.html',
      'legs/sandbox-permissive-headless-headless/obflow-run.json',
      'legs/sandbox-permissive-headless-headless/report.html',
      'legs/sandbox-strict-headless-headless/obflow-run.json',
      'legs/sandbox-strict-headless-headless/report.html',
    ]);
    expect(leakedSecrets(files, secrets)).toEqual([]);
    // The scan does find a secret where there is one.
    expect(leakedSecrets(new Map([['x', `a ${[...secrets][0] ?? ''} b`]]), secrets)).toHaveLength(1);
  });

  it('deterministic: the same legs merge to the same bytes; --previous (the last merge folder) says nothing changed', async () => {
    const again = join(work, 'again');
    const result = await runCli(['report', 'merge', legs, '--out', again, '--previous', merged, '--json'], { cwd: work });
    expect(result.code).toBe(1);
    const out = JSON.parse(result.stdout) as { changes: { newlyFailing: unknown[]; newlyPassing: unknown[]; slower: unknown[] } };
    expect(out.changes).toMatchObject({ newlyFailing: [], newlyPassing: [], slower: [], newLegs: [], goneLegs: [] });
    const rerun = join(work, 'rerun');
    expect((await runCli(['report', 'merge', legs, '--out', rerun], { cwd: work })).code).toBe(1);
    for (const [path, bytes] of filesOf(merged)) expect(filesOf(rerun).get(path)?.equals(bytes), path).toBe(true);
  });

  it('bad input: one coded line, exit 2, nothing written', async () => {
    const empty = mkdtempSync(join(work, 'empty-'));
    const none = await runCli(['report', 'merge', empty, '--out', join(work, 'none')], { cwd: work });
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/^error: ERR_REPORT_NONE [^\n]+\nhint: [^\n]+\n$/)]);
    writeFileSync(join(empty, 'obflow-run.json'), '{"version":1,"steps":"no"}');
    const invalid = await runCli(['report', 'merge', empty, '--out', join(work, 'none')], { cwd: work });
    expect([invalid.code, invalid.stderr]).toEqual([
      2,
      expect.stringMatching(/^error: ERR_REPORT_INVALID \S+obflow-run\.json is not an obflow JSON run report/),
    ]);
    const threshold = await runCli(['report', 'merge', legs, '--out', join(work, 'none'), '--slower-threshold', 'fast'], { cwd: work });
    expect([threshold.code, threshold.stderr]).toEqual([2, expect.stringMatching(/^error: ERR_USAGE --slower-threshold fast/)]);
    expect(existsSync(join(work, 'none'))).toBe(false);
  });
});

describeWith(chromium, 'the merged page in Chromium', () => {
  it('renders with no failed load and no console error; the grid shows the failing cell with its rule and links to the leg report at that step', async () => {
    const { chromium: browserType } = await import('playwright-core');
    const browser = await browserType.launch({ executablePath: CHROMIUM_PATH });
    try {
      const tab = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      tab.on('requestfailed', (request) => problems.push(`failed ${request.url()}`));
      tab.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.text()}`);
      });
      tab.on('pageerror', (error) => problems.push(`page ${error.message}`));
      tab.on('request', (request) => requests.push(request.url()));
      const page = `file://${join(merged, 'index.html')}`;
      await tab.goto(page, { waitUntil: 'load' });
      expect(problems).toEqual([]);
      // Self-contained: the page is the only thing loaded.
      expect(requests).toEqual([page]);

      const faulty = tab.locator('tr.leg[data-leg="faultybank / strict-headless / headless"]');
      const cell = faulty.locator('td.cell.failed');
      expect(await cell.count()).toBe(1);
      expect(await cell.getAttribute('data-step')).toBe('psu-consent');
      expect(await cell.textContent()).toBe('✗');
      const detail = tab.locator('tr.detail[data-leg="faultybank / strict-headless / headless"]');
      expect(await detail.locator('.check').allTextContents()).toContain('id_token openbanking_intent_id is the consent id');
      expect(await detail.textContent()).toMatch(/psu-consent: id_token openbanking_intent_id is the consent id/);
      expect(await tab.locator('tr.leg.passed td.cell.failed').count()).toBe(0);
      expect(await tab.locator('tr.leg[data-leg="downbank / strict-headless / headless"] td.reason').textContent()).toMatch(
        /^exit 3 at obflow register/,
      );
      // The timing picture: one bar per leg with a report, the failed step's segment red.
      expect(await tab.locator('figure.timing g.timing-row').count()).toBe(3);
      expect(await tab.locator('figure.timing rect.segment.failed').count()).toBe(1);

      // The cell opens that leg's own report at the failing step.
      await cell.locator('a').click();
      await tab.waitForLoadState('load');
      expect(tab.url()).toBe(`file://${join(merged, 'legs', 'faultybank-strict-headless-headless', 'report.html')}#step-psu-consent`);
      expect(await tab.locator('details#step-psu-consent').getAttribute('open')).toBe('');
      expect(await tab.locator('figure.timing rect.segment').count()).toBeGreaterThan(2);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
