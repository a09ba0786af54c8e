// The failed run's report.html as a person reads it, in real Chromium: a run against the emulator
// that the bank refuses at client-credentials (a wrong client secret). Every step of the plan is listed with its verdict
// (passed / failed / not reached); the page opens with a plain sentence — where it stopped, whose side — the CLI's own
// "what to do", and the technical text folded under it; the legend's swatch of the failed step is its bar's red; the
// time is the reader's own, with the zone, and the page as written says UTC.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { withEnvironmentValues } from '../../src/environment/index.js';
import { SECRET_VARIABLE_KEYS, STEP_NAMES } from '../../src/generate/index.js';
import { buildRunPlan, runSteps, type RunResult } from '../../src/run/index.js';
import { failingRequests, failureHint } from '../../src/run/verdict.js';
import { chromium as chromiumPrerequisite, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { usePreparedSandbox } from './pipeline-helpers.js';

const fixture = usePreparedSandbox('strict-headless');

describeWith(chromiumPrerequisite, 'the failed run report in Chromium', () => {
  let browser: Browser;
  let result: RunResult;
  let page: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
    const reportDir = join(fixture.prepared.stateDir, 'reports-page');
    result = await runSteps({
      steps: buildRunPlan({ stepNames: STEP_NAMES, collections: fixture.prepared.collections }),
      // The bank refuses the client's credentials: obflow's side (invalid_client).
      environment: withEnvironmentValues(fixture.prepared.environment, { basicToken: Buffer.from('nobody:wrong').toString('base64') }),
      cwd: fixture.prepared.stateDir,
      sslClientCertList: fixture.prepared.certList,
      sslExtraCaCerts: fixture.prepared.caBundle,
      reporters: ['html'],
      reportDir,
      secretKeys: SECRET_VARIABLE_KEYS,
      target: { name: 'sandbox', profile: 'strict-headless' },
      log: () => undefined,
    });
    page = join(reportDir, 'report.html');
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists every step, opens with a plain sentence and the CLI hint, folds the technical text, agrees legend and bar, shows local time', async () => {
    expect(result.failedStep).toBe('client-credentials');
    const html = await readFile(page, 'utf8');
    // As written (no script run): UTC, said so.
    expect(html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" data-local>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);

    const context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US' });
    const tab = await context.newPage();
    await tab.goto(pathToFileURL(page).href);

    // Every step of the plan, in order, with its verdict.
    const steps = await tab.locator('details.step > summary').allInnerTexts();
    expect(steps).toHaveLength(STEP_NAMES.length);
    expect(steps[0]).toMatch(/^1\. discovery\s+passed/);
    expect(steps[1]).toMatch(/^2\. client-credentials\s+failed/);
    for (const line of steps.slice(2)) expect(line).toMatch(/not reached/);
    expect(await tab.locator('details.step.failed').getAttribute('open')).not.toBeNull();

    // A plain first sentence, whose side; the library's text only under the folded details.
    const sentence = await tab.locator('.failure .sentence').innerText();
    expect(sentence).toBe(
      "The run stopped at step client-credentials (client-credentials: POST token): the bank refused obflow's request (HTTP 401); the fault is on obflow's side.",
    );
    expect(sentence).not.toMatch(/expected|not 200/);
    // "What to do" is the CLI's hint (src/run/verdict.ts), up to where each says where the details are.
    const cliHint = failureHint(failingRequests(result)[0], 'the JUnit report');
    const pageHint = (await tab.locator('.failure p').nth(1).innerText()).replace(/^What to do:\s*/, '');
    expect(pageHint.replace(/ Details: .*$/, '')).toBe(cliHint.replace(/ Details: .*$/, ''));
    const technical = tab.locator('.failure details');
    expect(await technical.getAttribute('open')).toBeNull();
    expect(await technical.locator('pre').textContent()).toMatch(
      /✗ client-credentials › client-credentials: POST token: status is 200 — the bank answered 401/,
    );
    expect(await technical.locator('pre').isVisible()).toBe(false);

    // Legend and bars agree: the failed step's swatch is its bar's colour.
    const bar = await tab.locator('rect.segment.failed').getAttribute('fill');
    const swatch = await tab
      .locator('.timing-legend li', { hasText: 'client-credentials' })
      .locator('.swatch')
      .evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(bar).toBe('#d93025');
    expect(swatch).toBe('rgb(217, 48, 37)');

    // The reader's local time with the zone.
    const time = await tab.locator('time').innerText();
    expect(time).toMatch(/\b(EST|EDT)\b/);
    expect(time).not.toContain('UTC');
    await context.close();
  });
});
