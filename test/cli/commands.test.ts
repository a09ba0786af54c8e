// The commands one by one, as a TPP developer runs them: `obflow sandbox` in its own process (real mTLS on free
// ports), then init/doctor/register/environment/generate/run through main(argv) against it, sharing a state folder.

import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_NAMES } from '../../src/generate/index.js';
import { runCli, startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const cwd = tempDirSync('obflow-commands-');
let sandbox: SandboxProcess | undefined;
let addresses: { sandbox_base_url: string; profiles: Record<string, { auth_url: string }> };

beforeAll(async () => {
  const init = await runCli(['init', '--json'], { cwd });
  expect(init.code, init.stderr).toBe(0);
  sandbox = await startSandboxProcess(cwd);
  addresses = JSON.parse(sandbox.firstLine);
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
});

describe('obflow commands against `obflow sandbox`', () => {
  it('init --json names every file of the identity', async () => {
    const manifest = JSON.parse(readFileSync(join(cwd, '.obflow', 'identity', 'identity.json'), 'utf8'));
    expect(Object.keys(manifest.files)).toEqual(
      expect.arrayContaining([
        'directory_root_ca',
        'directory_issuing_ca',
        'transport_certificate',
        'transport_key',
        'signing_key',
        'software_statement',
        'server_certificate',
        'server_key',
      ]),
    );
    expect(statSync(join(cwd, '.obflow', 'identity', manifest.files.transport_key)).mode & 0o777).toBe(0o600);
  });

  it('sandbox --json prints one line naming every address', () => {
    expect(addresses.sandbox_base_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(addresses.profiles).sort()).toEqual([
      'permissive-headless',
      'permissive-interactive',
      'strict-headless',
      'strict-interactive',
    ]);
  });

  it('doctor passes on the fresh identity', async () => {
    const result = await runCli(['doctor'], { cwd });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).not.toContain('problem');
  });

  it('register --dry-run prints the signed request and sends nothing; register stores the client; again re-uses it', async () => {
    const dry = await runCli(['register', '--dry-run', '--json'], { cwd });
    expect(dry.code, dry.stderr).toBe(0);
    const { header, claims } = JSON.parse(dry.stdout);
    expect(header).toMatchObject({ alg: 'PS256', typ: 'JWT' });
    expect(claims.aud).toBe(addresses.profiles['strict-headless']!.auth_url);
    // docs/bank-interface.md §2.1 exactly: two grants (refresh_token only with registration.refresh_token_grant).
    expect(claims.grant_types).toEqual(['authorization_code', 'client_credentials']);

    const first = await runCli(['register', '--json'], { cwd });
    expect(first.code, first.stderr).toBe(0);
    const registered = JSON.parse(first.stdout);
    expect(registered.status).toBe('registered');
    expect(statSync(registered.file).mode & 0o777).toBe(0o600);
    expect(first.stdout).not.toMatch(/client_secret/);

    const again = JSON.parse((await runCli(['register', '--json'], { cwd })).stdout);
    expect(again).toMatchObject({ status: 'reused', client_id: registered.client_id });
  });

  it("register and environment take --apis like the other commands: the scopes asked, the families' variables written", async () => {
    const scopeOf = async (argv: string[]) => {
      const dry = await runCli(['register', '--dry-run', '--json', ...argv], { cwd });
      expect(dry.code, dry.stderr).toBe(0);
      return String(JSON.parse(dry.stdout).claims.scope).split(' ');
    };
    expect(await scopeOf([])).not.toContain('payments');
    expect(await scopeOf(['--apis', 'payments,funds'])).toEqual(['openid', 'payments', 'fundsconfirmations']);
    const keysOf = async (argv: string[]) => {
      const result = await runCli(['environment', '--json', ...argv], { cwd });
      expect(result.code, result.stderr).toBe(0);
      const { file } = JSON.parse(result.stdout) as { file: string };
      return (JSON.parse(readFileSync(file, 'utf8')) as { values: { key: string }[] }).values.map((entry) => entry.key);
    };
    // The stored client has the accounts scope only: a payments environment is refused, said in families, not scopes.
    const stale = await runCli(['environment', '--json', '--apis', 'payments'], { cwd });
    expect(stale.code).toBe(2);
    const { error } = JSON.parse(stale.stdout || stale.stderr) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('ERR_ENVIRONMENT_STALE');
    expect(error.message).toMatch(/^flow\.apis is payments \(scope openid payments\), but .* was made with scope openid accounts;/);
    expect(error.hint).toMatch(/or set flow\.apis back to accounts\.$/);
    const again = await runCli(['register', '--force', '--json', '--apis', 'accounts,payments'], { cwd });
    expect(again.code, again.stderr).toBe(0);
    expect(await keysOf(['--apis', 'payments'])).toContain('payment_id');
    expect(await keysOf([])).not.toContain('payment_id');
  });

  it('environment, generate and run all pass, one step at a time too', async () => {
    const environment = await runCli(['environment', '--json'], { cwd });
    expect(environment.code, environment.stderr).toBe(0);
    const generated = await runCli(['generate', '--out-collections', 'collections', '--json'], { cwd });
    expect(generated.code, generated.stderr).toBe(0);
    expect(JSON.parse(generated.stdout).files.length).toBeGreaterThan(10);

    const run = await runCli(['run', 'all', '--json', '--out-collections', 'collections'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(summary.passed).toBe(true);
    expect(summary.accounts.length).toBeGreaterThan(0);

    // Flags given to run win over the saved environment: sam consents instead of the default alex.
    const asSam = await runCli(['run', 'all', '--psu-user', 'sam', '--json', '--out-collections', 'collections'], { cwd });
    expect(asSam.code, asSam.stderr).toBe(0);
    const samAccounts = JSON.parse(asSam.stdout.trim().split('\n').pop()!).accounts as unknown[];
    expect(samAccounts.length).not.toBe(summary.accounts.length);

    // The chained environment was saved: a single later step runs on its own, reading only its own collection.
    rmSync(join(cwd, 'collections', 'unsupported.postman_collection.json'));
    const one = await runCli(['run', 'accounts', '--quiet', '--out-collections', 'collections'], { cwd });
    expect(one.code, one.stderr).toBe(0);
  });

  it('run --reporters cli,junit,json also writes the run as JSON; an unknown reporter is a usage error before any request', async () => {
    const result = await runCli(['run', 'discovery', '--reporters', 'cli,junit,json', '--out-collections', 'collections'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    // One line for the step, where the reports went (a passing run says little, and says where its reports are).
    expect(result.stdout).toMatch(/^✓ discovery {2}1 request, \d+ checks$/m);
    expect(result.stdout).not.toContain('▸ discovery');
    expect(result.stdout).toMatch(/^reports in \.obflow\/reports: discovery\.xml, obflow-run\.json$/m);
    const report = JSON.parse(readFileSync(join(cwd, '.obflow', 'reports', 'obflow-run.json'), 'utf8'));
    expect(report).toMatchObject({ version: 1, passed: true, target: { name: 'sandbox' } });
    expect(report.steps.map((step: { name: string }) => step.name)).toEqual(['discovery']);
    expect(statSync(join(cwd, '.obflow', 'reports', 'discovery.xml')).isFile()).toBe(true);

    const unknown = await runCli(['run', 'discovery', '--reporters', 'cli,nope', '--out-collections', 'collections'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: ERR_USAGE .*nope/);
    expect(unknown.stdout).not.toMatch(/▸|→/);
  });

  it('a passing run all says little: one line per step, then the summary; --verbose lists the checks, the id_token ones once per id_token', async () => {
    // (An earlier test removed a collection: write them again.)
    expect((await runCli(['generate', '--quiet', '--out-collections', 'collections'], { cwd })).code).toBe(0);
    const quiet = await runCli(['run', 'all', '--out-collections', 'collections'], { cwd });
    expect(quiet.code, quiet.stderr).toBe(0);
    const lines = quiet.stdout.trim().split('\n');
    const stepLines = lines.filter((line) => /^[✓✗–] /.test(line));
    expect(stepLines.map((line) => line.split(' ')[1])).toEqual([
      ...STEP_NAMES.slice(0, STEP_NAMES.indexOf('psu-consent') + 1),
      'id-token',
      'code-exchange',
      'id-token-token',
      ...STEP_NAMES.slice(STEP_NAMES.indexOf('code-exchange') + 1),
    ]);
    // Besides the steps: one line per account, the steps summary and where the reports are; never a check.
    expect(lines.length).toBeLessThanOrEqual(stepLines.length + 10);
    expect(lines.filter((line) => /^\s+[✓✗]/.test(line))).toEqual([]);
    expect(lines).toContain(
      `steps passed: ${STEP_NAMES.length + 2}/${STEP_NAMES.length + 2} (${STEP_NAMES.length} collection steps + 2 local steps of obflow: id-token, id-token-token), 0 skipped`,
    );

    const verbose = await runCli(['run', 'all', '--verbose', '--out-collections', 'collections'], { cwd });
    expect(verbose.code, verbose.stderr).toBe(0);
    const checks = verbose.stdout.split('\n').filter((line) => line.startsWith('    ✓ '));
    expect(checks.length).toBeGreaterThan(100);
    // The id_token signature: checked by the collection and again by obflow's id-token step, printed once per id_token
    // (the authorisation response's and the token response's).
    const signature =
      '    ✓ id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6, FAPI 1 Advanced §5.2.2.1)';
    expect(checks.filter((line) => line === signature)).toHaveLength(2);
  });

  it('an unknown step is a usage error', async () => {
    const result = await runCli(['run', 'nope', '--out-collections', 'collections'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_STEP_UNKNOWN/);
  });
});
