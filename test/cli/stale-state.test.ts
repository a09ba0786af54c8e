// Stale or wrong state is named, never run on, as a user meets it: the built CLI in its own
// process against `obflow sandbox` in its own process, and against the emulator configured as a `target: bank`.
// A single step without its inputs, a consent mode the profile cannot do, another client over a stored one, a client
// or bank address changed since `obflow environment`, `init` over an identity, and an expired or not-yet-valid
// transport certificate: each a coded error before the first request.

import { existsSync } from 'node:fs';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLocalIdentity } from '../../src/pki/issue.js';
import { runCliProcess, startSandboxProcess, type CliResult, type SandboxProcess } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { COLLECTIONS_DIR } from '../integration/pipeline-helpers.js';
import { tempDir } from '../helpers/temp.js';

const errorLine = (result: CliResult): string => result.stderr.split('\n').find((line) => line.startsWith('error:')) ?? '';
const passed = (result: CliResult): void => {
  expect(result.code, result.stdout + result.stderr).toBe(0);
};

describe('against `obflow sandbox` (strict-headless)', () => {
  let cwd = '';
  let sandbox: SandboxProcess | undefined;
  const obflow = (...argv: string[]) => runCliProcess(argv, { cwd, env: { OBFLOW_OUTPUT__COLLECTIONS: COLLECTIONS_DIR } });
  const registrationFile = async () => {
    const dir = join(cwd, '.obflow', 'registrations');
    return readFile(join(dir, (await readdir(dir))[0] ?? ''), 'utf8');
  };

  beforeAll(async () => {
    cwd = await tempDir('obflow-stale-');
    passed(await obflow('init'));
    // The identity as init issued it, with the directory's private keys: the certificate tests re-issue from it.
    await cp(join(cwd, '.obflow', 'identity'), join(cwd, 'identity-as-issued'), { recursive: true });
    sandbox = await startSandboxProcess(cwd);
    passed(await obflow('register'));
    passed(await obflow('environment'));
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    await rm(cwd, { recursive: true, force: true });
  });

  it('a single step after `environment` was run again names the step to run first (not a 401 blaming the registration)', async () => {
    // AIS v4.0 with only v4.0's collections generated: the check reads the version's own folder (collections/v4.0/).
    const v4Only = join(cwd, 'collections-v4');
    const v4 = (...argv: string[]) => runCliProcess(argv, { cwd, env: { OBFLOW_OUTPUT__COLLECTIONS: v4Only } });
    passed(await v4('generate', '--api-version', '4.0'));
    const v4Accounts = await v4('run', 'accounts', '--api-version', '4.0');
    expect(errorLine(v4Accounts)).toMatch(/^error: ERR_STEP_PREREQUISITE step accounts needs access_token from code-exchange/);
    expect(v4Accounts.stdout).toBe('');
    const accounts = await obflow('run', 'accounts');
    expect(accounts.code).toBe(2);
    expect(errorLine(accounts)).toMatch(/^error: ERR_STEP_PREREQUISITE step accounts needs access_token from code-exchange/);
    expect(accounts.stderr).toContain('hint: Run the steps from `obflow run client-credentials` to `obflow run code-exchange` first');
    // Nothing ran: no step line, no request.
    expect(accounts.stdout).toBe('');
    const consent = await obflow('run', 'psu-consent');
    expect(errorLine(consent)).toMatch(/ERR_STEP_PREREQUISITE step psu-consent needs consent_id from account-access-consent/);
    // Once the earlier steps ran, the same single step runs.
    passed(await obflow('run', 'all'));
    passed(await obflow('run', 'accounts'));
  }, 120_000);

  it('a setting changed since `register` or `environment` is named with both values, never run on with the saved one', async () => {
    const { client_id: client } = JSON.parse(await registrationFile()) as { client_id: string };
    const withEnv = (env: Record<string, string>, ...argv: string[]) =>
      runCliProcess(argv, { cwd, env: { OBFLOW_OUTPUT__COLLECTIONS: COLLECTIONS_DIR, ...env } });
    // The auth method the stored client and saved environment were made with is client_secret_basic.
    const method = { OBFLOW_BANK__TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' };
    for (const argv of [['run', 'all'], ['environment'], ['workspace', '--no-run', '--out', join(cwd, 'stale-workspace')]]) {
      const refused = await withEnv(method, ...argv);
      expect(refused.code).toBe(2);
      expect(errorLine(refused)).toBe(
        `error: ERR_ENVIRONMENT_STALE bank.token_endpoint_auth_method is private_key_jwt, but the stored registration (client ${client}) was made with client_secret_basic; nothing was sent`,
      );
      expect(refused.stderr).toContain('hint: Register again for it (`obflow register --force`), then run `obflow environment`');
      expect(refused.stdout).toBe('');
    }
    expect(existsSync(join(cwd, 'stale-workspace'))).toBe(false);
    // A flow input changed in the config: refused; the same value as a flag of `run` is for this run only.
    const code = { OBFLOW_FLOW__RESPONSE_TYPE: 'code' };
    const responseType = await withEnv(code, 'run', 'all');
    expect([responseType.code, errorLine(responseType)]).toEqual([
      2,
      'error: ERR_ENVIRONMENT_STALE flow.responseType is code, but the saved environment was made with code id_token; nothing was sent',
    ]);
    passed(await withEnv(code, 'run', 'discovery', '--response-type', 'code'));
    // …and the saved environment keeps what `obflow environment` wrote: the next plain run is not refused for the flag.
    passed(await withEnv({}, 'run', 'discovery'));
  }, 60_000);

  it.each(['browser', 'manual'])('--consent %s at a headless profile is a usage error before the run', async (mode) => {
    const result = await obflow('run', 'all', '--consent', mode);
    expect(result.code).toBe(2);
    expect(errorLine(result)).toBe(
      `error: ERR_USAGE the sandbox's strict-headless profile cannot do ${mode} consent (it consents with one redirect, no pages)`,
    );
    expect(result.stdout).toBe('');
  });

  it('register --client-id over another stored client needs --force; an empty one is a usage error; the environment of the old client is stale', async () => {
    const before = await registrationFile();
    const secret = { OBFLOW_CLIENT_SECRET: 'secret-of-the-other-client' };
    const other = await runCliProcess(['register', '--client-id', 'another-client'], { cwd, env: secret });
    expect(other.code).toBe(2);
    expect(errorLine(other)).toMatch(/^error: ERR_CLIENT_STORED client \S+ is stored for sandbox \(strict-headless\)/);
    expect(await registrationFile()).toBe(before);
    // An empty flag is a usage error: `--client-id ''` with a secret set was once ignored (exit 0).
    const empty = await runCliProcess(['register', '--client-id', ''], { cwd, env: secret });
    expect([empty.code, errorLine(empty)]).toEqual([2, 'error: ERR_USAGE --client-id is empty']);
    expect(await registrationFile()).toBe(before);
    // The same client again is stored without --force (a CI leg re-running its step).
    const { client_id: current } = JSON.parse(before) as { client_id: string };
    passed(await runCliProcess(['register', '--client-id', current], { cwd, env: { OBFLOW_CLIENT_SECRET: 'x' } }));
    const forced = await runCliProcess(['register', '--client-id', 'another-client', '--force'], { cwd, env: secret });
    passed(forced);
    // The saved environment was made for the old client: named, not run on.
    const run = await obflow('run', 'all');
    expect(run.code).toBe(2);
    expect(errorLine(run)).toBe(
      `error: ERR_ENVIRONMENT_STALE the saved environment was made for client ${current}, but the stored registration has another-client`,
    );
    expect(run.stdout).toBe('');
  }, 60_000);

  it('init over an existing identity has its own code', async () => {
    const init = await obflow('init');
    expect(init.code).toBe(2);
    expect(errorLine(init)).toMatch(/^error: ERR_IDENTITY_EXISTS an identity already exists in /);
  });

  it.each([
    ['expired', { notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) }, 'ERR_CERT_EXPIRED', 1],
    [
      'not yet valid',
      { notBefore: new Date(Date.now() + 86_400_000), notAfter: new Date(Date.now() + 3 * 86_400_000) },
      'ERR_CERT_NOT_YET_VALID',
      1,
    ],
  ])(
    'a transport certificate %s stops run before the first request',
    async (_name, transportValidity, code, exit) => {
      // The same statement and directory, re-issued with a transport certificate out of its window.
      const identity = join(cwd, '.obflow', 'identity');
      const previous = join(cwd, 'identity-as-issued');
      const manifest = JSON.parse(await readFile(join(identity, 'identity.json'), 'utf8')) as { software_id: string };
      await issueLocalIdentity({
        dir: identity,
        overwrite: true,
        directoryFrom: previous,
        softwareId: manifest.software_id,
        transportValidity,
      });
      try {
        const run = await obflow('run', 'all');
        expect(run.code).toBe(exit);
        expect(errorLine(run)).toMatch(new RegExp(`^error: ${code} the transport certificate`));
        expect(run.stdout).toBe('');
      } finally {
        await issueLocalIdentity({ dir: identity, overwrite: true, directoryFrom: previous, softwareId: manifest.software_id });
      }
    },
    60_000,
  );
});

describe('against the emulator configured as a bank', () => {
  let cwd = '';
  let bank: TestSandbox | undefined;
  const config = (authUrl: string) => ({
    target: 'bank',
    output: { collections: COLLECTIONS_DIR },
    bank: {
      name: 'emulator',
      sandbox_base_url: bank?.urls.sandbox_base_url,
      auth_url: authUrl,
      server_ca: [...(bank?.identity.paths.directoryRoots ?? []), ...(bank?.identity.paths.directoryIssuing ?? [])],
    },
    identity: bank?.identity.paths,
  });
  const obflow = (...argv: string[]) => runCliProcess([...argv, '--config', 'bank.json'], { cwd });

  beforeAll(async () => {
    bank = await startTestSandbox();
    cwd = await tempDir('obflow-stale-bank-');
  }, 60_000);
  afterAll(async () => {
    await bank?.close();
    await rm(cwd, { recursive: true, force: true });
  });

  it('another auth method in the config: refused by run and environment, used once registered again', async () => {
    const urls = bank?.urls.profiles;
    if (urls === undefined) throw new Error('no emulator');
    const write = (method: string) =>
      writeFile(
        join(cwd, 'bank.json'),
        JSON.stringify({
          ...config(urls['strict-headless'].auth_url),
          bank: { ...config(urls['strict-headless'].auth_url).bank, token_endpoint_auth_method: method },
        }),
      );
    await write('private_key_jwt');
    passed(await obflow('register', '--force'));
    passed(await obflow('environment'));
    const { client_id: client } = JSON.parse(
      await readFile(join(cwd, '.obflow', 'registrations', (await readdir(join(cwd, '.obflow', 'registrations')))[0] ?? ''), 'utf8'),
    ) as { client_id: string };
    await write('tls_client_auth');
    for (const argv of [['run', 'all'], ['environment']]) {
      const refused = await obflow(...argv);
      expect(refused.code).toBe(2);
      expect(errorLine(refused)).toBe(
        `error: ERR_ENVIRONMENT_STALE bank.token_endpoint_auth_method is tls_client_auth, but the stored registration (client ${client}) was made with private_key_jwt; nothing was sent`,
      );
      expect(refused.stdout).toBe('');
    }
    // As the hint says: register again, environment again; then the run uses tls_client_auth.
    passed(await obflow('register', '--force'));
    passed(await obflow('environment'));
    const run = await obflow('run', 'all');
    passed(run);
    const saved = JSON.parse(await readFile(join(cwd, '.obflow', 'environments', 'emulator-sandbox.postman_environment.json'), 'utf8')) as {
      values: { key: string; value: string }[];
    };
    expect(saved.values.find((entry) => entry.key === 'token_endpoint_auth_method')?.value).toBe('tls_client_auth');
  }, 180_000);

  it("bank.auth_url's path changed since `obflow environment` (another profile on the same host): stale, named, not run", async () => {
    const urls = bank?.urls.profiles;
    if (urls === undefined) throw new Error('no emulator');
    await writeFile(join(cwd, 'bank.json'), JSON.stringify(config(urls['strict-headless'].auth_url)));
    passed(await obflow('register'));
    passed(await obflow('environment'));
    passed(await obflow('run', 'all'));
    // Same scheme, host and port; another path.
    const moved = urls['permissive-headless'].auth_url;
    expect(new URL(moved).origin).toBe(new URL(urls['strict-headless'].auth_url).origin);
    await writeFile(join(cwd, 'bank.json'), JSON.stringify(config(moved)));
    const run = await obflow('run', 'all');
    expect(run.code).toBe(2);
    expect(errorLine(run)).toBe(
      `error: ERR_ENVIRONMENT_STALE the saved environment was made for ${urls['strict-headless'].discovery_url}, but the emulator target (sandbox) is at ${urls['permissive-headless'].discovery_url}`,
    );
    expect(run.stderr).toContain('run `obflow environment` again');
    expect(run.stdout).toBe('');
  }, 120_000);
});
