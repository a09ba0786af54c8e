// `npm run docs:images`: the README's pictures from real runs — `obflow sandbox` on free ports, init, register,
// environment, `obflow workspace` (which runs the flow and writes the HTML report; its guide's per-host certificate
// table is docs/postman-certificates.md's picture); then a CI matrix's night: legs run
// as the recipes run them (examples/ci/: `--reporters json,html`, a leg-status file each), one against a second
// sandbox started with `--id-token-fault wrong-intent-id`, one that "died" at registration, merged by `obflow report
// merge` against the previous night's summary. Chromium (Debian's, through playwright-core; OBFLOW_TEST_CHROMIUM names
// another) photographs the guide, the report and the merged page into docs/images/; and the browser tests of the bank's
// payment and VRP consent pages photograph those pages (test/helpers/docs-picture.ts).
//
//   npm run docs:images

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const root = resolve(import.meta.dirname, '..');
const main = join(root, 'dist', 'cli', 'main.js');
const images = join(root, 'docs', 'images');
const cwd = mkdtempSync(join(tmpdir(), 'obflow-docs-images-'));

/** obflow in a folder; `allowed` exit codes besides 0 (a leg that fails on purpose). Returns the exit code. */
function obflowIn(dir, args, allowed = []) {
  const result = spawnSync(process.execPath, [main, ...args], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0 && !allowed.includes(result.status))
    throw new Error(`obflow ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.status;
}
const obflow = (...args) => obflowIn(cwd, args);

/** `obflow sandbox` in the background in a folder, once its address line is out. */
async function startSandbox(dir, ...flags) {
  const child = spawn(process.execPath, [main, 'sandbox', '--json', ...flags], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ready, fail) => {
    createInterface({ input: child.stdout }).once('line', ready);
    child.once('exit', (code) => fail(new Error(`obflow sandbox exited ${code}`)));
  });
  return child;
}

async function stopSandbox(child) {
  if (child === undefined) return;
  child.kill('SIGINT');
  await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
}

/** One leg as the recipes run it: run all with the json and html reporters into legs/<leg>/reports, then the leg's
 *  status file (what the recipe's EXIT trap writes). */
function leg(dir, legs, bank, profile, setup = true) {
  const reports = join(legs, `${bank}-${profile}-headless`, 'reports');
  if (setup) {
    obflowIn(dir, ['register', '--quiet', '--profile', profile]);
    obflowIn(dir, ['environment', '--quiet', '--profile', profile]);
  }
  const exit = obflowIn(dir, ['run', 'all', '--quiet', '--profile', profile, '--reporters', 'json,html', '--out-reports', reports], [1]);
  writeFileSync(join(reports, 'obflow-leg.json'), `${JSON.stringify({ bank, profile, consent: 'headless', exit, stage: 'run' })}\n`);
  return reports;
}

const sandbox = await startSandbox(cwd);
let faulty;
try {
  obflow('register', '--quiet');
  obflow('environment', '--quiet');
  const workspace = join(cwd, 'workspace');
  obflow('workspace', '--quiet', '--out', workspace);
  const browser = await chromium.launch({ executablePath: process.env.OBFLOW_TEST_CHROMIUM ?? '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1000 }, deviceScaleFactor: 1 });
    await page.goto(`file://${join(workspace, 'index.html')}`);
    // The guide from the flow picture through the certificate table.
    await page.locator('#flow').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(images, 'workspace-guide.png'), fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 1900 } });
    // The per-host client certificate table for this run's own hosts and files (docs/postman-certificates.md): from its
    // heading to the SSL verification paragraph.
    const pageTop = (selector) =>
      page.locator(selector).evaluate((element) => element.getBoundingClientRect().top + element.ownerDocument.defaultView.scrollY);
    const top = (await pageTop('#certificates')) - 8;
    const certificates = { top, height: (await pageTop('#secrets')) - top - 8 };
    await page.screenshot({
      path: join(images, 'postman-certificates.png'),
      fullPage: true,
      clip: { x: 0, y: certificates.top, width: 1100, height: certificates.height },
    });
    await page.goto(`file://${join(workspace, 'reports', 'report.html')}`);
    // One step opened, as a reader would: its requests and checks.
    await page
      .locator('details.step')
      .nth(5)
      .evaluate((element) => element.setAttribute('open', ''));
    await page.screenshot({ path: join(images, 'run-report.png'), fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 1200 } });

    // A night of the CI matrix. Last night every leg passed; tonight faultybank signs a wrong intent id into its
    // id_tokens, and downbank's job died at registration (bank down): only its leg-status file is left.
    obflow('generate', '--quiet');
    const night = (name) => join(cwd, name);
    const strict = leg(cwd, night('tonight'), 'sandbox', 'strict-headless', false);
    leg(cwd, night('tonight'), 'sandbox', 'permissive-headless');
    for (const bank of ['faultybank', 'downbank', 'sandbox']) {
      const copy = join(night('last-night'), `${bank}-strict-headless-headless`, 'reports');
      cpSync(strict, copy, { recursive: true });
      writeFileSync(
        join(copy, 'obflow-leg.json'),
        `${JSON.stringify({ bank, profile: 'strict-headless', consent: 'headless', exit: 0 })}\n`,
      );
    }
    cpSync(
      join(night('tonight'), 'sandbox-permissive-headless-headless'),
      join(night('last-night'), 'sandbox-permissive-headless-headless'),
      {
        recursive: true,
      },
    );
    const faultyDir = mkdtempSync(join(tmpdir(), 'obflow-docs-images-faulty-'));
    try {
      obflowIn(faultyDir, ['init', '--quiet']);
      faulty = await startSandbox(faultyDir, '--id-token-fault', 'wrong-intent-id');
      obflowIn(faultyDir, ['generate', '--quiet']);
      leg(faultyDir, night('tonight'), 'faultybank', 'strict-headless');
    } finally {
      await stopSandbox(faulty);
      rmSync(faultyDir, { recursive: true, force: true });
    }
    const down = join(night('tonight'), 'downbank-strict-headless-headless', 'reports');
    mkdirSync(down, { recursive: true });
    writeFileSync(
      join(down, 'obflow-leg.json'),
      `${JSON.stringify({ bank: 'downbank', profile: 'strict-headless', consent: 'headless', exit: 3, stage: 'register' })}\n`,
    );
    obflow('report', 'merge', night('last-night'), '--out', night('merged-last-night'), '--quiet');
    obflowIn(
      cwd,
      ['report', 'merge', night('tonight'), '--out', night('merged'), '--previous', night('merged-last-night'), '--quiet'],
      [1],
    );
    await page.setViewportSize({ width: 1300, height: 1000 });
    await page.goto(`file://${join(night('merged'), 'index.html')}`);
    await page.screenshot({ path: join(images, 'report-merge.png'), fullPage: true });
    // A failed run's own page (tonight's faulty leg): the plain sentence, whose side and what to do, every step's verdict.
    await page.setViewportSize({ width: 1100, height: 1000 });
    await page.goto(`file://${join(night('tonight'), 'faultybank-strict-headless-headless', 'reports', 'report.html')}`);
    await page.screenshot({ path: join(images, 'run-report-failed.png'), fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 1250 } });
    console.log(
      `wrote ${join(images, 'workspace-guide.png')}, ${join(images, 'postman-certificates.png')}, ${join(images, 'run-report.png')}, ` +
        `${join(images, 'report-merge.png')} and ${join(images, 'run-report-failed.png')}`,
    );
  } finally {
    await browser.close();
  }
} finally {
  await stopSandbox(sandbox);
  rmSync(cwd, { recursive: true, force: true });
}

// The bank's own consent pages for a payment and a VRP mandate: photographed by the browser tests that check them
// (test/helpers/docs-picture.ts), so the picture is the page a test held.
const pageTests = ['test/integration/sandbox-payments-browser.test.ts', 'test/integration/sandbox-vrp-browser.test.ts'];
const vitest = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...pageTests], {
  cwd: root,
  env: { ...process.env, OBFLOW_DOCS_IMAGES: images },
  stdio: 'inherit',
});
if (vitest.status !== 0) throw new Error(`the consent pages' tests exited ${vitest.status}`);
console.log(`wrote ${join(images, 'sandbox-payment-consent.png')} and ${join(images, 'sandbox-vrp-consent.png')}`);
