// Defects a probe of the CLI found (docs/notes.md, "Hardening"), each reproduced as a TPP developer meets it: `obflow sandbox` in its own
// process (real mTLS on free ports), then the command as typed. Each must end with its coded line and the exit code of
// its class — never ERR_UNEXPECTED, never an error glued to the end of another line.

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-hardening-');
let sandbox: ChildProcess | undefined;

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const collections = args[0] === 'run' || args[0] === 'generate' ? ['--out-collections', 'collections'] : [];
  return runCli([...args, ...collections], { cwd });
}

/** The built CLI in its own process, `input` piped to its stdin (as `echo … | obflow …` does). */
async function spawnCli(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args, '--out-collections', 'collections'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

beforeAll(async () => {
  const init = await runCli(['init', '--json'], { cwd });
  expect(init.code, init.stderr).toBe(0);
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--json'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  sandbox = child;
  await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`obflow sandbox exited ${code}`)));
  });
  for (const command of [
    ['register'],
    ['environment'],
    ['generate'],
    ['register', '--profile', 'strict-interactive'],
    ['environment', '--profile', 'strict-interactive'],
  ]) {
    const result = await cli([...command, '--quiet']);
    expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  const child = sandbox;
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
});

describe('1. --out-reports names a file', () => {
  it('obflow run discovery --out-reports f → ERR_WRITE_FAILED naming it (exit 2), nothing sent', async () => {
    writeFileSync(join(cwd, 'f'), 'not a folder\n');
    const result = await cli(['run', 'discovery', '--out-reports', 'f']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_WRITE_FAILED .*\/f\b.*\nhint: .+\n$/);
    expect(readFileSync(join(cwd, 'f'), 'utf8')).toBe('not a folder\n');
  });
});

describe('2. a transport key that does not belong to its certificate', () => {
  it('register, register --dry-run, environment and run say ERR_CERT_KEY_MISMATCH (exit 1) before connecting', async () => {
    const keyFile = join(cwd, '.obflow', 'identity', 'tpp', 'transport.key');
    const saved = join(cwd, 'transport.key.saved');
    copyFileSync(keyFile, saved);
    try {
      // What `openssl genpkey -algorithm RSA -out transport.key` over the issued key does.
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      for (const argv of [['register', '--force'], ['register', '--dry-run'], ['environment'], ['run', 'discovery']]) {
        const result = await cli(argv);
        expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(1);
        expect(result.stderr, argv.join(' ')).toMatch(/^error: ERR_CERT_KEY_MISMATCH .*\nhint: .+\n$/);
      }
    } finally {
      copyFileSync(saved, keyFile);
    }
    // The stored registration was not replaced: the pair works again as before.
    expect((await cli(['run', 'discovery', '--quiet'])).code).toBe(0);
  });
});

describe('3. manual consent with stdin piped', () => {
  it('the error after the prompt starts its own line (a script matching ^error: finds it)', async () => {
    const refused = await spawnCli(
      ['run', 'all', '--profile', 'strict-interactive', '--consent', 'manual', '--quiet'],
      'https://tpp.obflow.example/callback#error=access_denied&state=x\n',
    );
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/^error: ERR_CONSENT_REJECTED .*access_denied/m);
    expect(refused.stderr).not.toMatch(/[^\n]error:/);

    const nothing = await spawnCli(['run', 'all', '--profile', 'strict-interactive', '--consent', 'manual', '--quiet'], '');
    expect(nothing.code, nothing.stderr).toBe(2);
    expect(nothing.stderr).toMatch(/^error: ERR_USAGE no redirect URL was pasted/m);
    expect(nothing.stderr).not.toMatch(/[^\n]error:/);
  });
});

describe('4. the config and identity files themselves', () => {
  it('a config path that is a folder → ERR_FILE_UNREADABLE naming the path and the reason (exit 2)', async () => {
    mkdirSync(join(cwd, 'config-folder'), { recursive: true });
    const named = await cli(['doctor', '--config', 'config-folder']);
    expect(named.code, named.stderr).toBe(2);
    expect(named.stderr).toMatch(/^error: ERR_FILE_UNREADABLE .*config-folder.*EISDIR.*\nhint: .+\n$/);

    // The implicit ./obflow.config.json too.
    const dir = tempDirSync('obflow-config-folder-');
    mkdirSync(join(dir, 'obflow.config.json'));
    const implicit = await runCli(['doctor'], { cwd: dir });
    expect(implicit.code, implicit.stderr).toBe(2);
    expect(implicit.stderr).toMatch(/^error: ERR_FILE_UNREADABLE .*obflow\.config\.json.*EISDIR/);
  });

  it.each([
    [['doctor', '--config']],
    [['doctor', '--config', '--json']],
    [['register', '--dry-run', '--config']],
    [['doctor', '--state-dir']],
  ])('%j: a path flag without a value → ERR_USAGE (exit 2)', async (argv) => {
    const result = await cli(argv);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE\W.*--(config|state-dir) needs a path/);
    expect(result.stdout).not.toMatch(/^ok /m);
  });

  it('a corrupt identity.json → ERR_FILE_UNREADABLE naming the identity file (exit 2), not ERR_CONFIG_INVALID', async () => {
    const dir = tempDirSync('obflow-corrupt-identity-');
    expect((await runCli(['init', '--quiet'], { cwd: dir })).code).toBe(0);
    const manifest = join(dir, '.obflow', 'identity', 'identity.json');
    for (const text of ['{"software_id":', '[]']) {
      writeFileSync(manifest, text);
      for (const argv of [['doctor'], ['register', '--dry-run'], ['demo']]) {
        const result = await runCli(argv, { cwd: dir });
        expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(/^error: ERR_FILE_UNREADABLE .*identity\.json.*\nhint: .*obflow init --force.*\n$/);
      }
    }
  });
});
