// Runs the CLI's main(argv) in process with captured stdout/stderr, a chosen cwd and environment; starts and stops
// `obflow sandbox` as its own process.

import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tempDirSync } from './temp.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

export async function runCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(argv, { stdout, stderr, cwd: options.cwd, env: options.env ?? {} });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** `obflow sandbox --json` (built dist/) as its own process in `cwd`: resolves with its first line (the addresses as
 *  JSON) once it listens; `stop()` sends SIGINT and waits for the exit, as a user's Ctrl-C does. */
export interface SandboxProcess {
  child: ChildProcess;
  firstLine: string;
  stop(): Promise<void>;
}

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export async function startSandboxProcess(cwd: string, args: readonly string[] = [], env?: NodeJS.ProcessEnv): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--json', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    ...(env ? { env } : {}),
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`obflow sandbox exited ${code}`)));
  });
  return {
    child,
    firstLine,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * A test file's folder with a local identity (`obflow init`) and `obflow sandbox <args>` running in it as its own
 * process: started before the file's tests, stopped and the folder removed after. `sandbox` is the running process
 * (its first line names the addresses).
 */
export function useSandboxProcess(prefix: string, args: readonly string[] = []): { cwd: string; readonly sandbox: SandboxProcess } {
  const cwd = tempDirSync(prefix);
  let sandbox: SandboxProcess | undefined;
  beforeAll(async () => {
    const init = await runCli(['init', '--json'], { cwd });
    expect(init.code, init.stderr).toBe(0);
    sandbox = await startSandboxProcess(cwd, args);
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });
  return {
    cwd,
    get sandbox(): SandboxProcess {
      if (sandbox === undefined) throw new TypeError('the sandbox process starts in beforeAll');
      return sandbox;
    },
  };
}

/** The built CLI (dist/) as its own process, as a user runs it: `obflow <argv>` in `cwd`, with the test process's
 *  environment minus its OBFLOW_* variables, plus `env`. Resolves with the exit code and both streams. */
export function runCliProcess(argv: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  const env: Record<string, string> = { NO_COLOR: '1' };
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('OBFLOW_')) env[key] = value;
  Object.assign(env, options.env ?? {});
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...argv], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
