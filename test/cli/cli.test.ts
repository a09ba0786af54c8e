// The CLI surface: help on every command, strict parsing, and one-line errors with the right exit code.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'obflow-cli-'));
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

  it('no command is a usage error', async () => {
    expect((await runCli([], { cwd })).code).toBe(2);
  });

  it('bad config: one line naming the dotted path, exit 2, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obflow-badconfig-'));
    writeFileSync(join(dir, 'obflow.config.json'), JSON.stringify({ sandbox: { profile: 'lenient' } }));
    const result = await runCli(['doctor'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_CONFIG_INVALID .*sandbox\.profile.*\nhint: .+\n$/);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('a missing file named by the config: exit 2 naming the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obflow-missing-'));
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
    const result = await runCli(['doctor'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_FILE_MISSING identity\.softwareStatement/);
  });

  it('doctor without a local identity tells to run init (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obflow-noid-'));
    const result = await runCli(['doctor'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_IDENTITY_MISSING[\s\S]*obflow init/);
  });
});
