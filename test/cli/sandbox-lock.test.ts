// One `obflow sandbox` per state folder, with real processes: a second one is refused (exit 3, ERR_SANDBOX_START, the
// first's pid in the hint) and leaves the first findable; the first removes its addresses file on Ctrl-C; a file left
// by a dead sandbox is "no running sandbox" for register and is taken over by the next `obflow sandbox`.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-sandbox-lock-');
const addressesFile = join(cwd, '.obflow', 'sandbox', 'addresses.json');
const started: ChildProcess[] = [];

interface Addresses {
  sandbox_base_url: string;
  profiles: Record<string, { auth_url: string }>;
}

/** Starts `obflow sandbox --json` and resolves with its first stdout line (the addresses), or rejects on exit. */
async function startSandbox(): Promise<{ child: ChildProcess; addresses: Addresses; line: string }> {
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--json'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`obflow sandbox exited ${code}`)));
  });
  return { child, addresses: JSON.parse(line) as Addresses, line };
}

/** Runs `obflow sandbox --json` until it ends (a refused one ends by itself) or announces addresses (it started:
 *  code 'started', and afterAll stops it). */
async function runSandboxToEnd(): Promise<{ code: number | null | 'started'; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null | 'started'>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve('started');
    });
    child.once('exit', resolve);
  });
  return { code, stdout, stderr };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  return exited;
}

const filePid = (): unknown => (JSON.parse(readFileSync(addressesFile, 'utf8')) as { pid?: unknown }).pid;

beforeAll(async () => {
  const init = await runCli(['init', '--json'], { cwd });
  expect(init.code, init.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  for (const child of started) await stop(child);
});

describe('one obflow sandbox per state folder', () => {
  it('a second sandbox is refused while the first runs; the first stays findable and removes its file on Ctrl-C', async () => {
    const first = await startSandbox();
    // stdout is the addresses only, as before; the pid is in the file.
    expect(Object.keys(first.addresses)).not.toContain('pid');
    const { pid, ...fileAddresses } = JSON.parse(readFileSync(addressesFile, 'utf8')) as Record<string, unknown>;
    expect(pid).toBe(first.child.pid);
    expect(fileAddresses).toEqual(JSON.parse(first.line));

    const second = await runSandboxToEnd();
    expect(second.code, second.stdout).toBe(3);
    expect(second.stdout).toBe('');
    const { error } = JSON.parse(second.stderr.trim().split('\n').pop()!) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('ERR_SANDBOX_START');
    expect(error.hint).toContain(`kill -INT ${first.child.pid}`);
    expect(error.hint).toContain('--state-dir');

    // The refused one left the first's file alone: register finds the first sandbox.
    expect(filePid()).toBe(first.child.pid);
    const dry = await runCli(['register', '--dry-run', '--json'], { cwd });
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { claims: { aud: string } }).claims.aud).toBe(first.addresses.profiles['strict-headless']!.auth_url);

    expect(await stop(first.child)).toBe(0);
    expect(existsSync(addressesFile)).toBe(false);
    const after = await runCli(['register', '--dry-run'], { cwd });
    expect(after.code).toBe(3);
    expect(after.stderr).toMatch(/^error: ERR_REMOTE_UNREACHABLE no running sandbox/);
  }, 90_000);

  it('a file left by a sandbox that died is no running sandbox, and the next sandbox takes it over', async () => {
    // A pid that surely is not running any more: a child that has already exited.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const stale = {
      sandbox_base_url: 'https://127.0.0.1:1',
      registration_endpoint: 'https://127.0.0.1:1/r',
      environment_helper: 'https://127.0.0.1:1/e',
      aisp_base_url: 'https://127.0.0.1:1/a',
      profiles: {},
      pid: dead,
    };
    writeFileSync(addressesFile, JSON.stringify(stale));
    const refused = await runCli(['register', '--dry-run'], { cwd });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('ERR_REMOTE_UNREACHABLE');
    expect(refused.stderr).toContain(`pid ${dead}`);

    const next = await startSandbox();
    expect(filePid()).toBe(next.child.pid);
    const dry = await runCli(['register', '--dry-run', '--json'], { cwd });
    expect(dry.code, dry.stderr).toBe(0);
    expect(await stop(next.child)).toBe(0);
    expect(existsSync(addressesFile)).toBe(false);
  }, 90_000);
});
