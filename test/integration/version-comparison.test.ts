// v3.1 beside v4.0 of one bank: the emulator made to serve one value differently on v4.0
// (SandboxOptions.versionDrift), the whole flow run on each version as `run`/`demo --api-version 3.1,4.0` run it (the
// transaction pages kept, the later version's page fed the earlier run), and the comparison
// (src/run/reporters/compare-versions.ts) fails naming the field and both values — in the CLI's comparison and in the
// "v3.1 beside v4.0" section of the later version's report.html, read in real Chromium; what the code mapping
// explains (InterimAvailable ↔ ITAV, CurrentAccount ↔ CACC) is no difference.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildRunPlan, readStepCollections, runSteps, type RunResult } from '../../src/run/index.js';
import { SECRET_VARIABLE_KEYS, STEP_NAMES } from '../../src/generate/index.js';
import type { ApiVersion } from '../../src/generate/api-versions.js';
import { compareVersions, legOfRun } from '../../src/run/reporters/compare-versions.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { chromium as chromiumPrerequisite, CHROMIUM_PATH } from '../helpers/prerequisites.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { COLLECTIONS_DIR, describeRun, prepare, type Prepared } from './pipeline-helpers.js';

let identity: TestIdentity;
const sandboxes: TestSandbox[] = [];
let browser: Browser | undefined;

beforeAll(async () => {
  identity = await getTestIdentity();
  // The page is read in Chromium where it is installed (the comparison itself is checked either way).
  if (chromiumPrerequisite.missing === undefined)
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  for (const sandbox of sandboxes) await sandbox.close();
});

/** One version's leg as the CLI runs it over two: its own reports folder, the transaction pages kept, the html page
 *  of the later one given the comparison with the earlier run. */
function runVersion(
  prepared: Prepared,
  version: ApiVersion,
  collections: Prepared['collections'],
  earlier?: { version: ApiVersion; result: RunResult },
) {
  return runSteps({
    steps: buildRunPlan({ stepNames: STEP_NAMES, collections }),
    environment: prepared.environment,
    cwd: prepared.stateDir,
    sslClientCertList: prepared.certList,
    sslExtraCaCerts: prepared.caBundle,
    reporters: ['html'],
    reportDir: join(prepared.stateDir, 'reports', `v${version}`),
    secretKeys: SECRET_VARIABLE_KEYS,
    log: () => undefined,
    target: { name: 'sandbox', profile: 'strict-headless', apiVersion: version },
    keepTransactionBodies: true,
    // The page of the later leg gets the comparison as the legs stage hands it over (src/pipeline/legs.ts).
    ...(earlier !== undefined
      ? {
          versionPage: {
            comparison: (own: RunResult) => ({
              ...compareVersions(legOfRun(earlier.version, earlier.result), legOfRun(version, own)),
              other: { version: earlier.version, href: `../v${earlier.version}/report.html` },
            }),
          },
        }
      : {}),
  });
}

async function bothVersions(options: Parameters<typeof startTestSandbox>[0]) {
  const sandbox = await startTestSandbox(options);
  sandboxes.push(sandbox);
  const prepared = await prepare(sandbox, identity, 'strict-headless');
  try {
    const v31 = await runVersion(prepared, '3.1', prepared.collections);
    const v40 = await runVersion(prepared, '4.0', await readStepCollections(join(COLLECTIONS_DIR, 'v4.0'), STEP_NAMES), {
      version: '3.1',
      result: v31,
    });
    expect(v31.passed, describeRun(v31)).toBe(true);
    expect(v40.passed, describeRun(v40)).toBe(true);
    return {
      comparison: compareVersions(legOfRun('3.1', v31), legOfRun('4.0', v40)),
      page: join(prepared.stateDir, 'reports', 'v4.0', 'report.html'),
    };
  } finally {
    await prepared.dispatcher.close();
  }
}

/** The page's comparison section as a person sees it: its verdict lines and its table's rows. */
async function section(page: string) {
  if (browser === undefined) return undefined;
  const tab = await browser.newPage();
  try {
    await tab.goto(pathToFileURL(page).href);
    const versions = tab.locator('#versions');
    return {
      heading: await tab.locator('h1 .verdict').innerText(),
      title: await versions.locator('h2').innerText(),
      checks: await versions.locator('ul.assertions > li').allInnerTexts(),
      failed: await versions.locator('ul.assertions > li.bad').count(),
      rows: await versions.locator('tbody tr').count(),
      otherReport: await versions.locator('a').getAttribute('href'),
      firstRow: await versions.locator('tbody tr').first().locator('td').allInnerTexts(),
    };
  } finally {
    await tab.close();
  }
}

describe('v3.1 beside v4.0', () => {
  it('the same bank: every difference is one the code mapping explains; the page says so', async () => {
    const { comparison, page } = await bothVersions({});
    expect(comparison.accounts.length).toBeGreaterThan(1);
    expect(comparison.differences).toEqual([]);
    expect(comparison.explained.map((difference) => difference.field)).toContain('Balance.Type');
    // The sums are compared: every account read some transactions, and both versions add up to the same.
    for (const row of comparison.accounts) {
      expect(row.sums.v31).toMatch(/^-?\d+\.\d{2,5} [A-Z]{3}/);
      expect(row.sums.v40).toBe(row.sums.v31);
    }
    const seen = await section(page);
    if (seen === undefined) return;
    expect(seen.heading).toBe('passed');
    expect(seen.title).toBe('AIS v3.1 beside v4.0');
    expect(seen.failed).toBe(0);
    expect(seen.checks[0]).toMatch(/^no difference the v4\.0 code mapping does not explain \(\d+ explained\)$/);
    expect(seen.rows).toBe(comparison.accounts.length);
    expect(seen.otherReport).toBe('../v3.1/report.html');
    const row = comparison.accounts[0];
    expect(seen.firstRow).toEqual([
      row?.account,
      row?.balance.v31,
      row?.balance.v40,
      row?.transactions.v31,
      row?.transactions.v40,
      row?.sums.v31,
      row?.sums.v40,
      'none',
    ]);
    expect(seen.firstRow[1]).toMatch(/\(InterimAvailable\)$/);
    expect(seen.firstRow[2]).toMatch(/\(ITAV\)$/);
  });

  it('a v4.0 balance one penny off: a failed check naming the field and both values, on the page too', async () => {
    const { comparison, page } = await bothVersions({ versionDrift: 'balance-amount' });
    expect(comparison.differences.length).toBe(comparison.accounts.length);
    for (const difference of comparison.differences) {
      expect(difference.field).toBe('Balance.Amount');
      expect((Number(difference.v40) - Number(difference.v31)).toFixed(2)).toBe('0.01');
    }
    const seen = await section(page);
    if (seen === undefined) return;
    expect(seen.heading).toBe('failed');
    expect(seen.failed).toBe(comparison.differences.length);
    const first = comparison.differences[0];
    expect(seen.checks[0]).toBe(
      `${first?.account} Balance.Amount: v3.1 ${first?.v31}, v4.0 ${first?.v40}\nnot explained by the v4.0 code mapping`,
    );
  });

  it('every v4.0 transaction one penny off: the sums differ, named with both sums', async () => {
    const { comparison } = await bothVersions({ versionDrift: 'transaction-amount' });
    expect(comparison.differences.length).toBeGreaterThan(0);
    for (const difference of comparison.differences) {
      expect(difference.field).toBe('transactions.sum');
      const row = comparison.accounts.find((account) => account.account === difference.account);
      // Credits gain a penny, debits lose one (the amount is unsigned, the indicator signs it): at most a penny each.
      const [a, b] = [difference.v31, difference.v40].map((sum) => Number(sum.split(' ')[0]));
      const pennies = Math.abs(Math.round(((b ?? 0) - (a ?? 0)) * 100));
      expect(pennies).toBeGreaterThan(0);
      expect(pennies).toBeLessThanOrEqual(Number(row?.transactions.v31));
    }
  });
});
