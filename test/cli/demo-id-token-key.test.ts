// The demo's emulator keeps its ID-token key (src/state/embedded-sandbox.ts): each demo starts the
// emulator on a fresh data folder, and the RSA key it signs ID tokens with — 80–270 ms of CPU to make — is kept in the
// state folder (0600) and used again: the second demo's bank JWKS (in the environment the demo saved) names the kept
// key, and the file is unchanged. A damaged file is replaced by a new key.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-demo-key-');
const keyFile = join(cwd, '.obflow', 'demo', 'sandbox-id-token-key.json');

function demo(): void {
  const result = spawnSync(process.execPath, [MAIN, 'demo'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^steps passed: (\d+)\/\1 \([^)]*\), 0 skipped$/m);
}

/** The kids of the bank JWKS the demo's environment holds. */
function bankKids(): string[] {
  const environment = JSON.parse(
    readFileSync(join(cwd, '.obflow', 'demo', 'environments', 'sandbox-strict-headless.postman_environment.json'), 'utf8'),
  ) as { values: { key: string; value: string }[] };
  const jwks = environment.values.find((entry) => entry.key === 'bank_jwks')?.value ?? '[]';
  return (JSON.parse(jwks) as { kid: string }[]).map((key) => key.kid);
}

beforeAll(async () => {
  const init = await runCli(['init', '--quiet'], { cwd });
  expect(init.code, init.stderr).toBe(0);
});

describe("the demo's emulator and its ID-token key", () => {
  it('keeps the key in the state folder (0600) and signs with it again at the next demo', () => {
    demo();
    const kept = readFileSync(keyFile, 'utf8');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const { kid, d } = JSON.parse(kept) as { kid: string; d?: string };
    expect(d).toBeTypeOf('string');
    expect(bankKids()).toEqual([kid]);
    demo();
    expect(readFileSync(keyFile, 'utf8')).toBe(kept);
    expect(bankKids()).toEqual([kid]);
  }, 120_000);

  it('replaces a damaged key file with a new key', () => {
    writeFileSync(keyFile, '{ "kty": "RSA" }\n', { mode: 0o600 });
    demo();
    // Shaped as a key, but not one: the emulator would refuse it at its start.
    writeFileSync(keyFile, '{ "kty": "RSA", "d": "AQAB", "kid": "x", "n": "AQAB", "e": "AQAB" }\n', { mode: 0o600 });
    demo();
    const { kid } = JSON.parse(readFileSync(keyFile, 'utf8')) as { kid: string };
    expect(kid).toBeTypeOf('string');
    expect(bankKids()).toEqual([kid]);
  }, 120_000);
});
