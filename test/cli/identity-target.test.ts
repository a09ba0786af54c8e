// An identity given with `target: sandbox` is refused, never ignored: the embedded emulator trusts only the local test
// directory, so `doctor` used to check the local identity and say "all checks passed" for a user's expired certificate,
// and `run` passed. A partial identity is one line naming the keys missing. The built CLI in its own process, as a user
// (or a CI job with OBFLOW_IDENTITY__* in its environment) runs it.

import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess, type CliResult } from '../helpers/cli.js';
import { issueVariantIdentity, type TestIdentity } from '../helpers/identity.js';
import { tempDir } from '../helpers/temp.js';

const errorLines = (result: CliResult): string[] => result.stderr.split('\n').filter((line) => line.startsWith('error:'));

let cwd = '';
let expired: TestIdentity;
beforeAll(async () => {
  cwd = await tempDir('obflow-identity-target-');
  expired = await issueVariantIdentity({
    transportValidity: { notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) },
  });
}, 60_000);
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** The identity as a CI job gives it: every key in OBFLOW_IDENTITY__* (the directory's files too). */
const identityEnv = (identity: TestIdentity): Record<string, string> => {
  const transport = identity.paths.transport as { cert: string; key: string };
  return {
    OBFLOW_IDENTITY__SOFTWARE_STATEMENT: identity.paths.softwareStatement,
    OBFLOW_IDENTITY__TRANSPORT__CERT: transport.cert,
    OBFLOW_IDENTITY__TRANSPORT__KEY: transport.key,
    OBFLOW_IDENTITY__SIGNING__KEY: identity.paths.signing.key,
    OBFLOW_IDENTITY__SIGNING__KID: identity.paths.signing.kid,
    OBFLOW_IDENTITY__DIRECTORY_ROOTS: identity.paths.directoryRoots.join(','),
    OBFLOW_IDENTITY__DIRECTORY_ISSUING: identity.paths.directoryIssuing.join(','),
    OBFLOW_IDENTITY__DIRECTORY_JWKS: identity.paths.directoryJwks,
  };
};

describe('an identity with target sandbox', () => {
  it.each([['doctor'], ['run', 'all'], ['register']])(
    '`obflow %s` refuses a whole identity (here with an expired certificate) instead of checking the local one',
    async (...argv) => {
      const result = await runCliProcess(argv, { cwd, env: identityEnv(expired) });
      expect(result.code).toBe(2);
      expect(errorLines(result)).toEqual([
        'error: ERR_CONFIG_INVALID identity is set (OBFLOW_IDENTITY__SOFTWARE_STATEMENT, OBFLOW_IDENTITY__TRANSPORT__CERT, ' +
          'OBFLOW_IDENTITY__TRANSPORT__KEY, OBFLOW_IDENTITY__SIGNING__KEY, OBFLOW_IDENTITY__SIGNING__KID, OBFLOW_IDENTITY__DIRECTORY_ROOTS, ' +
          'OBFLOW_IDENTITY__DIRECTORY_ISSUING, OBFLOW_IDENTITY__DIRECTORY_JWKS), but target is "sandbox": the embedded emulator trusts only ' +
          'the local test directory and registers the local test identity it issued (`obflow init`, .obflow/identity/), so this identity would not be used',
      ]);
      expect(result.stderr).toContain('hint: To use your own identity, set target to "bank"');
      expect(result.stdout).toBe('');
    },
  );

  it('names the config file keys when the file sets them', async () => {
    const transport = expired.paths.transport as { cert: string; key: string };
    await writeFile(join(cwd, 'sandbox.json'), JSON.stringify({ identity: { transport } }));
    const result = await runCliProcess(['doctor', '--config', 'sandbox.json'], { cwd });
    expect(errorLines(result)).toEqual([
      expect.stringMatching(
        /^error: ERR_CONFIG_INVALID identity is set \(identity\.transport\.cert, identity\.transport\.key\), but target is "sandbox"/,
      ),
    ]);
  });
});

describe('a partial identity with target bank', () => {
  it('is one line naming the keys missing (not a schema line per key)', async () => {
    const transport = expired.paths.transport as { cert: string; key: string };
    const result = await runCliProcess(['doctor'], {
      cwd,
      env: {
        OBFLOW_TARGET: 'bank',
        OBFLOW_BANK__AUTH_URL: 'https://auth.bank.example',
        OBFLOW_BANK__SANDBOX_BASE_URL: 'https://rs.bank.example',
        OBFLOW_IDENTITY__TRANSPORT__CERT: transport.cert,
        OBFLOW_IDENTITY__TRANSPORT__KEY: transport.key,
      },
    });
    expect(result.code).toBe(2);
    expect(errorLines(result)).toEqual([
      'error: ERR_CONFIG_INVALID identity is incomplete: identity.softwareStatement, identity.signing.key, identity.signing.kid, ' +
        'identity.directoryRoots, identity.directoryIssuing, identity.directoryJwks are missing ' +
        '(OBFLOW_IDENTITY__TRANSPORT__CERT, OBFLOW_IDENTITY__TRANSPORT__KEY are set)',
    ]);
    expect(result.stderr).toContain('hint: Set each (OBFLOW_IDENTITY__SOFTWARE_STATEMENT, OBFLOW_IDENTITY__SIGNING__KEY,');
  });

  it('a whole identity with an expired certificate is checked and named by doctor (the identity the run uses)', async () => {
    const result = await runCliProcess(['doctor'], {
      cwd,
      env: {
        OBFLOW_TARGET: 'bank',
        OBFLOW_BANK__AUTH_URL: 'https://127.0.0.1:1',
        OBFLOW_BANK__SANDBOX_BASE_URL: 'https://127.0.0.1:1',
        ...identityEnv(expired),
      },
    });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/ERR_CERT_EXPIRED/);
  });
});
