// The CLI surface: help on every command, strict parsing, and one-line errors with the right exit code.

import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const cwd = tempDirSync('obflow-cli-');
const VERBS = ['init', 'doctor', 'sandbox', 'register', 'environment', 'generate', 'run', 'demo', 'config-schema'];

describe('obflow CLI', () => {
  it('lists every command with examples', async () => {
    const result = await runCli(['--help'], { cwd });
    expect(result.code).toBe(0);
    for (const verb of VERBS) expect(result.stdout).toContain(`obflow ${verb}`);
    expect(result.stdout).toContain('Examples:');
  });

  for (const verb of VERBS) {
    it(`${verb} --help has examples`, async () => {
      const result = await runCli([verb, '--help'], { cwd });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Examples:');
    });
  }

  it('an unknown flag is a usage error: one line, exit 2', async () => {
    const result = await runCli(['doctor', '--no-such-flag'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_USAGE .+\nhint: .+\n$/);
  });

  it('an unknown command is a usage error even with --help', async () => {
    const result = await runCli(['config', '--help'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_USAGE unknown command "config"\nhint: .+\n$/);
  });

  it('a yargs validation message stays whole on one line', async () => {
    const result = await runCli(['demo', '--profile', 'lenient'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_USAGE Invalid values: .*lenient.*strict-headless.*\nhint: .+\n$/);
  });

  it('with --json an error is one JSON line', async () => {
    const result = await runCli(['demo', '--profile', 'lenient', '--json'], { cwd });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ error: { code: 'ERR_USAGE', hint: expect.any(String) } });
  });

  it('no command is a usage error', async () => {
    expect((await runCli([], { cwd })).code).toBe(2);
  });

  it('bad config: one line naming the dotted path, exit 2, no stack trace', async () => {
    const dir = tempDirSync('obflow-badconfig-');
    writeFileSync(join(dir, 'obflow.config.json'), JSON.stringify({ sandbox: { profile: 'lenient' } }));
    const result = await runCli(['doctor'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_CONFIG_INVALID .*sandbox\.profile.*\nhint: .+\n$/);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('a missing file named by the config: exit 2 naming the key', async () => {
    const dir = tempDirSync('obflow-missing-');
    writeFileSync(
      join(dir, 'obflow.config.json'),
      JSON.stringify({
        target: 'bank',
        bank: { auth_url: 'https://auth.bank.example' },
        identity: {
          softwareStatement: 'ssa.jwt',
          transport: { pfx: 'transport.p12' },
          signing: { key: 'signing.key', kid: 'k' },
          directoryRoots: ['root.pem'],
          directoryIssuing: ['issuing.pem'],
          directoryJwks: 'jwks.json',
        },
      }),
    );
    const result = await runCli(['register', '--dry-run'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_FILE_MISSING identity\.softwareStatement/);

    // doctor reports the same missing files as failed checks, one line each, then exit 1.
    const doctor = await runCli(['doctor'], { cwd: dir });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/problem .*ERR_SSA_MISSING/);
    expect(doctor.stdout).toMatch(/problem .*ERR_CERT_MISSING/);
    expect(doctor.stderr).toMatch(/^error: ERR_DOCTOR_PROBLEMS /);
  });

  it('init lists every file it wrote; doctor finds a removed statement: its own code, then exit 1', async () => {
    const dir = tempDirSync('obflow-doctor-');
    const init = await runCli(['init', '--json'], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    const { files } = JSON.parse(init.stdout) as { files: Record<string, string> };
    const onDisk = readdirSync(join(dir, '.obflow', 'identity'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort();
    expect(Object.values(files).sort()).toEqual(onDisk);

    expect((await runCli(['doctor'], { cwd: dir })).code).toBe(0);
    rmSync(files.software_statement!);
    const doctor = await runCli(['doctor'], { cwd: dir });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/problem .*ERR_SSA_MISSING[\s\S]*hint: /);
    expect(doctor.stderr).toMatch(/^error: ERR_DOCTOR_PROBLEMS /);
  });

  it('a local identity file gone: demo and register name it with a code, never ERR_UNEXPECTED', async () => {
    const dir = tempDirSync('obflow-broken-id-');
    const { files } = JSON.parse((await runCli(['init', '--json'], { cwd: dir })).stdout) as { files: Record<string, string> };
    rmSync(files.directory_root_ca!);
    for (const argv of [['demo'], ['register', '--dry-run']]) {
      const result = await runCli(argv, { cwd: dir });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: ERR_FILE_MISSING local identity directory_root_ca .*\nhint: /);
    }
  });

  it('doctor without a local identity tells to run init (exit 2)', async () => {
    const dir = tempDirSync('obflow-noid-');
    const result = await runCli(['doctor'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_IDENTITY_MISSING[\s\S]*obflow init/);
  });
});
