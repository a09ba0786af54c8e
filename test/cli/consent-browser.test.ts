// `obflow run all --consent browser` against `obflow sandbox` (its own process, port 0, mutual TLS) with the
// strict-interactive profile: the default consent script passes the emulator's pages in headless Chromium. Then the
// ends a person or CI meets: a consent timeout (--consent-timeout), no display without a script, and Ctrl-C while the
// browser is open (exit 130, Chromium gone, nothing half-written). docs/pipeline.md, "Consent modes".

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { STEP_NAMES } from '../../src/generate/index.js';
import { runCli } from '../helpers/cli.js';
import { chromium, CHROMIUM_PATH, describeWith } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-consent-browser-');
const env = { OBFLOW_SANDBOX__PROFILE: 'strict-interactive', OBFLOW_FLOW__BROWSER__EXECUTABLE_PATH: CHROMIUM_PATH };
let sandbox: ChildProcess | undefined;

/** A config file in the working folder (its stateDir, `.obflow`, is the same folder the commands use). */
function configWith(name: string, browser: Record<string, unknown>): string {
  const file = join(cwd, name);
  writeFileSync(
    file,
    JSON.stringify({
      sandbox: { profile: 'strict-interactive' },
      flow: { consent: 'browser', browser: { executablePath: CHROMIUM_PATH, ...browser } },
    }),
  );
  return file;
}

/** Every process below `pid` (Chromium and its helpers under the run), from ps. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [child, ppid] of rows) {
      if (ppid !== parent || child === undefined) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeWith(chromium, 'run all --consent browser against `obflow sandbox`', () => {
  beforeAll(async () => {
    expect((await runCli(['init', '--quiet'], { cwd, env })).code).toBe(0);
    sandbox = spawn(process.execPath, [MAIN, 'sandbox', '--json'], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      sandbox?.stdout?.once('data', () => resolve());
      sandbox?.once('exit', (code) => reject(new Error(`obflow sandbox exited ${code}`)));
    });
    for (const command of ['register', 'environment', 'generate']) {
      const result = await runCli([command, '--quiet'], { cwd, env });
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
    }
  }, 120_000);

  afterAll(() => {
    sandbox?.kill('SIGTERM');
  });

  it('strict-interactive with the default script, headless: every step passes, the PSU consent in Chromium among them', async () => {
    const result = await runCli(['run', 'all', '--consent', 'browser', '--json'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { passed: boolean; steps: { passed: number; total: number }; accounts: unknown[] };
    expect(report.passed).toBe(true);
    // Every collection step, the browser consent between psu-consent and code-exchange, and the two id_token checks
    // (after the consent and after the code exchange: src/run/id-token.ts).
    expect(report.steps).toEqual({ passed: STEP_NAMES.length + 3, skipped: 0, total: STEP_NAMES.length + 3 });
    // The default script ticks every account alex (the default PSU) holds: all four were read.
    expect(report.accounts).toHaveLength(4);
  }, 90_000); // a whole flow with a cold Chromium: ~20 s alone on the 2-core machine, more under a full parallel run

  it('--consent-timeout 3 with a script that never reaches the redirect: one coded line, exit 3', async () => {
    const config = configWith('never.json', {
      script: { steps: [{ name: 'never', waitFor: 'This text is on no page' }] },
      stepTimeoutSeconds: 120,
    });
    const result = await runCli(['run', 'all', '--config', config, '--consent-timeout', '3', '--quiet'], { cwd, env: {} });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^error: ERR_CONSENT_TIMEOUT the browser was not sent back to https:\/\/[^ ]+ within 3 s\nhint: .*\n$/);
  });

  it('no script and no display: ERR_BROWSER_NO_DISPLAY suggesting --consent manual, exit 2', async () => {
    const config = configWith('person.json', { script: 'none' });
    const result = await runCli(['run', 'all', '--config', config, '--quiet'], { cwd, env: {} });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_BROWSER_NO_DISPLAY .*\nhint: Use --consent manual .*\n$/);
  });

  it('Ctrl-C while the browser is open: exit 130, Chromium closed, nothing half-written', async () => {
    const config = configWith('wait.json', {
      script: { steps: [{ name: 'never', waitFor: 'This text is on no page' }] },
      stepTimeoutSeconds: 120,
    });
    const run = spawn(process.execPath, [MAIN, 'run', 'all', '--config', config], {
      cwd,
      env: { ...process.env, OBFLOW_SANDBOX__PROFILE: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    run.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      run.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('browser consent: running the consent script')) resolve();
      });
      void exit.then((code) => reject(new Error(`run exited ${code} before the browser opened: ${stderr}`)));
    });
    const browser = descendants(run.pid ?? 0);
    expect(browser.length).toBeGreaterThan(0);
    run.kill('SIGINT');
    expect(await exit, stderr).toBe(130);
    expect(stderr).toMatch(/^interrupted by SIGINT: .*nothing half-written.*\(exit 130\)$/m);
    expect(stderr).not.toMatch(/^error:/m);
    for (let wait = 0; wait < 50 && browser.some(alive); wait += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(browser.filter(alive)).toEqual([]);
    const files = readdirSync(join(cwd, '.obflow'), { recursive: true, withFileTypes: true }).filter(
      (entry) => entry.isFile() && !entry.parentPath.includes(join('.obflow', 'sandbox')),
    );
    expect(files.filter((entry) => entry.name.endsWith('.tmp'))).toEqual([]);
    for (const entry of files.filter((file) => file.name.endsWith('.json')))
      expect(() => JSON.parse(readFileSync(join(entry.parentPath, entry.name), 'utf8'))).not.toThrow();
  }, 90_000);
});
