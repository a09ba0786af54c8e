// `obflow run` refusing what it cannot do, as a TPP developer meets it: `obflow sandbox` in its own process (real
// mTLS on free ports), restarted on new ports under a saved environment; a corrupt environment file; a PSU who is not
// a sandbox test user. Each ends with one coded line and the exit code of its class, before any request.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-run-errors-');
let sandbox: ChildProcess | undefined;

async function startSandbox(): Promise<{ sandbox_base_url: string }> {
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--json'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  sandbox = child;
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`obflow sandbox exited ${code}`)));
  });
  return JSON.parse(firstLine) as { sandbox_base_url: string };
}

async function stopSandbox(): Promise<void> {
  const child = sandbox;
  sandbox = undefined;
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const collections = args[0] === 'run' || args[0] === 'generate' ? ['--out-collections', 'collections'] : [];
  return runCli([...args, ...collections], { cwd });
}

beforeAll(async () => {
  const init = await runCli(['init', '--json'], { cwd });
  expect(init.code, init.stderr).toBe(0);
  await startSandbox();
  for (const command of [['register'], ['environment'], ['generate']]) {
    const result = await cli([...command, '--quiet']);
    expect(result.code, `${command[0]}: ${result.stderr}`).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await stopSandbox();
});

describe('obflow run: refusals before any request', () => {
  it('after `obflow sandbox` restarts on new ports, the saved environment is stale: ERR_ENVIRONMENT_STALE (exit 2); a fresh environment runs', async () => {
    const before = await startSandboxAgain();
    // A page an earlier run over two versions left: a refused run leaves the reports folder as it was.
    const earlier = join(cwd, '.obflow', 'reports', 'v4.0');
    mkdirSync(earlier, { recursive: true });
    writeFileSync(join(earlier, 'report.html'), '<title>an earlier leg, passed</title>\n');
    const stale = await cli(['run', 'all', '--quiet']);
    expect(stale.code, stale.stderr).toBe(2);
    expect(stale.stderr).toMatch(/^error: ERR_ENVIRONMENT_STALE/);
    expect(stale.stderr).toContain('obflow environment');
    expect(readdirSync(earlier)).toEqual(['report.html']);
    // The emulator forgot its clients with its process: register again, download again, and the run passes.
    for (const command of [['register', '--force'], ['environment']]) {
      const result = await cli([...command, '--quiet']);
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const fresh = await cli(['run', 'all', '--quiet']);
    expect(fresh.code, `${before.sandbox_base_url}\n${fresh.stderr}`).toBe(0);
    // The run over one version that ran removed the earlier leg's page, and its folder with it.
    expect(existsSync(earlier)).toBe(false);
  });
});

describe('flow.psuUser is a sandbox test user in every flow', () => {
  it('run --psu-user nobody (headless) is ERR_CONFIG_INVALID naming flow.psuUser (exit 2), before any request', async () => {
    const result = await cli(['run', 'all', '--psu-user', 'nobody']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_CONFIG_INVALID .*flow\.psuUser/);
    expect(result.stdout).not.toMatch(/▸|→/); // no progress line: nothing was sent
  });

  it('demo --psu-user nobody is ERR_CONFIG_INVALID before registering', async () => {
    const result = await runCli(['demo', '--psu-user', 'nobody', '--state-dir', join(cwd, 'demo-state')], { cwd });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_CONFIG_INVALID .*flow\.psuUser/);
    expect(result.stdout).not.toMatch(/^register/m);
  });

  it.each(['alex', 'sam', 'jo'])('%s is accepted', async (user) => {
    const result = await cli(['run', 'discovery', '--quiet', '--psu-user', user]);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('a saved environment that is missing or not an environment', () => {
  const path = join(cwd, '.obflow', 'environments', 'sandbox-strict-headless.postman_environment.json');

  it.each([
    ['[]', 'ERR_FILE_UNREADABLE'],
    ['{"values":[{"key":1}]}', 'ERR_FILE_UNREADABLE'],
    ['{"values":[]}', 'ERR_FILE_UNREADABLE'],
    ['{"values": [', 'ERR_FILE_UNREADABLE'],
    [undefined, 'ERR_FILE_MISSING'],
  ])('%s → %s (exit 2), not ERR_UNEXPECTED', async (text, code) => {
    const saved = readFileSync(path, 'utf8');
    try {
      if (text === undefined) rmSync(path);
      else writeFileSync(path, text);
      const result = await cli(['run', 'all']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error: ${code} `));
      expect(result.stderr).toContain('obflow environment');
    } finally {
      writeFileSync(path, saved, { mode: 0o600 });
    }
  });
});

async function startSandboxAgain(): Promise<{ sandbox_base_url: string }> {
  await stopSandbox();
  return startSandbox();
}
