// `npm run docs:images`: the README's two pictures from a real run — `obflow sandbox` on free ports, init, register,
// environment, `obflow workspace` (which runs the flow and writes the HTML report), then Chromium (Debian's, through
// playwright-core; OBFLOW_TEST_CHROMIUM names another) photographs the guide and the report into docs/images/.
//
//   npm run docs:images

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const root = resolve(import.meta.dirname, '..');
const main = join(root, 'dist', 'cli', 'main.js');
const images = join(root, 'docs', 'images');
const cwd = mkdtempSync(join(tmpdir(), 'obflow-docs-images-'));

function obflow(...args) {
  const result = spawnSync(process.execPath, [main, ...args], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`obflow ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
}

const sandbox = spawn(process.execPath, [main, 'sandbox', '--json'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
try {
  await new Promise((ready, fail) => {
    createInterface({ input: sandbox.stdout }).once('line', ready);
    sandbox.once('exit', (code) => fail(new Error(`obflow sandbox exited ${code}`)));
  });
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
    await page.goto(`file://${join(workspace, 'reports', 'report.html')}`);
    // One step opened, as a reader would: its requests and checks.
    await page
      .locator('details.step')
      .nth(5)
      .evaluate((element) => element.setAttribute('open', ''));
    await page.screenshot({ path: join(images, 'run-report.png'), fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 1200 } });
    console.log(`wrote ${join(images, 'workspace-guide.png')} and ${join(images, 'run-report.png')}`);
  } finally {
    await browser.close();
  }
} finally {
  sandbox.kill('SIGINT');
  await new Promise((done) => (sandbox.exitCode !== null ? done() : sandbox.once('exit', done)));
  rmSync(cwd, { recursive: true, force: true });
}
