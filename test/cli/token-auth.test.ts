// The bank as it is today, as a TPP developer meets it: `obflow sandbox --token-auth
// private_key_jwt,tls_client_auth` in its own process; the default client_secret_basic registration fails with one
// coded line naming the method and what the bank lists; a one-off job registers with private_key_jwt, and a CI leg
// with a fresh state stores that client with `register --client-id` (the bank is not called) and runs the flow.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSandboxProcess } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const { cwd } = useSandboxProcess('obflow-token-auth-', ['--token-auth', 'private_key_jwt,tls_client_auth']);
const PKJ = { OBFLOW_BANK__TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' };

describe('obflow against `obflow sandbox --token-auth private_key_jwt,tls_client_auth`', () => {
  it('an unknown --token-auth method is a usage error', async () => {
    const result = await runCli(['sandbox', '--token-auth', 'client_secret_jwt'], { cwd: tempDirSync('obflow-ta-') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE.*client_secret_jwt/);
  });

  it('the default client_secret_basic registration fails with one coded line naming the method and what the bank lists', async () => {
    const dry = await runCli(['register', '--dry-run', '--json'], { cwd });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).claims.token_endpoint_auth_method).toBe('client_secret_basic');

    const result = await runCli(['register'], { cwd });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
    expect(line).toMatch(/ERR_AUTH_METHOD_UNSUPPORTED/);
    expect(line).toContain('client_secret_basic');
    expect(line).toContain('[private_key_jwt, tls_client_auth]');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('one-off job registers with private_key_jwt; a fresh leg stores it with register --client-id and runs green', async () => {
    const job = await runCli(['register', '--json'], { cwd, env: PKJ });
    expect(job.code, job.stderr).toBe(0);
    const clientId = JSON.parse(job.stdout).client_id as string;

    // The leg: a state folder without the registration (CI: a fresh runner with the identity from its secret store).
    rmSync(join(cwd, '.obflow', 'registrations'), { recursive: true, force: true });
    const before = readdirSync(join(cwd, '.obflow'));
    expect(before).not.toContain('registrations');
    const leg = await runCli(['register', '--client-id', clientId, '--json'], { cwd, env: PKJ });
    expect(leg.code, leg.stderr).toBe(0);
    expect(JSON.parse(leg.stdout)).toMatchObject({ status: 'stored', client_id: clientId });

    const environment = await runCli(['environment', '--json'], { cwd, env: PKJ });
    expect(environment.code, environment.stderr).toBe(0);
    const generated = await runCli(['generate', '--out-collections', 'collections', '--json'], { cwd });
    expect(generated.code, generated.stderr).toBe(0);
    const run = await runCli(['run', 'all', '--json', '--out-collections', 'collections'], { cwd, env: PKJ });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!).passed).toBe(true);
    // The signing key never reaches the output.
    expect(run.stdout + run.stderr).not.toMatch(/"d":|PRIVATE KEY/);
  });

  it('register --show / --update / --delete use DCR v3.2 with a token obflow gets by private_key_jwt', async () => {
    const shown = await runCli(['register', '--show', '--json'], { cwd, env: PKJ });
    expect(shown.code, shown.stderr).toBe(0);
    const record = JSON.parse(shown.stdout).registration as Record<string, unknown>;
    expect(record).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'PS256' });
    expect(shown.stdout).not.toContain('client_secret"');

    const updated = await runCli(['register', '--update', '--json'], { cwd, env: PKJ });
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ status: 'updated', registration: { client_id: record.client_id } });

    const deleted = await runCli(['register', '--delete', '--json'], { cwd, env: PKJ });
    expect(deleted.code, deleted.stderr).toBe(0);
    // Gone here (nothing stored) and at the bank: the stored client's token call is now refused.
    const again = await runCli(['register', '--show'], { cwd, env: PKJ });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/ERR_NOT_REGISTERED/);
    const relink = await runCli(['register', '--client-id', String(record.client_id)], { cwd, env: PKJ });
    expect(relink.code, relink.stderr).toBe(0);
    const refused = await runCli(['register', '--show'], { cwd, env: PKJ });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/ERR_REGISTRATION_REJECTED.*token_endpoint_auth_method private_key_jwt.*invalid_client/);
  });

  it('register --client-id for client_secret_basic without a secret is a usage error naming where to put it', async () => {
    const result = await runCli(['register', '--client-id', 'someone'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE.*no client secret was given/);
    expect(result.stderr).toContain('OBFLOW_CLIENT_SECRET');
  });
});
