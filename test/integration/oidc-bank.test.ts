// obflow against an authorisation server nobody here wrote (issue 20): panva's oidc-provider as a UK open-banking bank
// (test/oidc-bank), over real mutual TLS on port 0. Through the CLI as a TPP runs it — doctor → register →
// environment → generate → run all — with a config that points target "bank" at it; then plain `newman run` of the
// generated whole-flow collection. One row per (client authentication method × request-object alg) obflow supports.

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { runCli } from '../helpers/cli.js';
import { startOidcBank, type OidcBank, type OidcBankProfile } from '../oidc-bank/index.js';

const NEWMAN = join(import.meta.dirname, '..', '..', 'node_modules', 'newman', 'bin', 'newman.js');

/** The matrix: a row per client authentication method × request-object alg that obflow can do today. */
const MATRIX: readonly { auth: 'client_secret_basic'; requestObjectAlg: 'none'; profile: OidcBankProfile }[] = [
  { auth: 'client_secret_basic', requestObjectAlg: 'none', profile: 'sandbox' },
];

let identity: TestIdentity;
beforeAll(async () => {
  identity = await getTestIdentity();
});

function newmanCli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NEWMAN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last JSON line of a `--json` command. */
const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;

describe.each(MATRIX)('oidc-provider bank: $auth, request object alg $requestObjectAlg ($profile profile)', (row) => {
  let bank: OidcBank;
  let cwd: string;
  beforeAll(async () => {
    bank = await startOidcBank({
      profile: row.profile,
      tls: { cert: identity.pem.serverCert, key: identity.pem.serverKey, clientCa: [identity.pem.rootCa, identity.pem.issuingCa] },
      directoryJwks: identity.directoryJwks,
    });
    cwd = await mkdtemp(join(tmpdir(), 'obflow-oidc-bank-'));
    const config = {
      target: 'bank',
      stateDir: join(cwd, 'state'),
      output: { collections: join(cwd, 'collections'), reports: join(cwd, 'reports') },
      bank: {
        name: 'oidc-bank',
        sandbox_base_url: bank.url,
        auth_url: bank.url,
        server_ca: identity.paths.directoryRoots.concat(identity.paths.directoryIssuing),
      },
      identity: identity.paths,
    };
    await writeFile(join(cwd, 'obflow.config.json'), JSON.stringify(config));
  });
  afterAll(async () => {
    await bank?.close();
    if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
  });

  it('doctor → register → environment → generate → run all, in both response types; then plain newman run', async () => {
    const cli = async (...argv: string[]) => {
      const result = await runCli([...argv, '--json'], { cwd });
      expect(result.code, `${argv.join(' ')}\n${result.stderr}\n${result.stdout.slice(-3000)}\n${bank.log.slice(-20).join('\n')}`).toBe(0);
      return lastJson(result.stdout);
    };
    expect((await cli('doctor')).ok).toBe(true);
    const registered = await cli('register');
    expect(registered).toMatchObject({ client_id: expect.stringMatching(/\S/) });
    await cli('environment');
    await cli('generate');

    for (const responseType of ['code id_token', 'code']) {
      const summary = await cli('run', 'all', '--response-type', responseType);
      expect(summary.passed, JSON.stringify(summary)).toBe(true);
    }
  });
});
