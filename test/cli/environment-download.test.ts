// A 404 from the bank's environment helper names the fix for the case at hand (docs/errors.md ERR_ENVIRONMENT_DOWNLOAD):
// a client id stored with `register --client-id` (as CI legs do) → the CI secret / OBFLOW_CLIENT_ID, never `register
// --force`, which docs/ci.md says CI legs never run; a client obflow registered that the bank forgot → register again; a
// helper path that answers nothing → bank.environment_helper_path with its value. The built CLI in its own process
// against the emulator configured as a bank.

import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess, type CliResult } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

const errorLine = (result: CliResult): string => result.stderr.split('\n').find((line) => line.startsWith('error:')) ?? '';
const hintLine = (result: CliResult): string => result.stderr.split('\n').find((line) => line.startsWith('hint:')) ?? '';

let bank: TestSandbox;
let cwd = '';
beforeAll(async () => {
  bank = await startTestSandbox();
  cwd = await tempDir('obflow-environment-download-');
}, 60_000);
afterAll(async () => {
  await bank.close();
  await rm(cwd, { recursive: true, force: true });
});

const writeConfig = (name: string, bankKeys: Record<string, unknown> = {}) =>
  writeFile(
    join(cwd, name),
    JSON.stringify({
      target: 'bank',
      stateDir: `state-${name}`,
      bank: {
        name: 'emulator',
        sandbox_base_url: bank.urls.sandbox_base_url,
        auth_url: bank.urls.profiles['strict-headless'].auth_url,
        server_ca: [...bank.identity.paths.directoryRoots, ...bank.identity.paths.directoryIssuing],
        ...bankKeys,
      },
      identity: bank.identity.paths,
    }),
  );
const obflow = (config: string, argv: string[], env: Record<string, string> = {}) =>
  runCliProcess([...argv, '--config', config], { cwd, env });

describe('obflow environment when the helper answers 404', () => {
  it('a client id stored with --client-id (the CI secret) points at that secret, not at `register --force`', async () => {
    await writeConfig('external.json');
    const stored = await obflow('external.json', ['register', '--client-id', 'a-client-from-the-wrong-secret'], {
      OBFLOW_CLIENT_SECRET: 'its-secret',
    });
    expect(stored.code, stored.stderr).toBe(0);
    const result = await obflow('external.json', ['environment']);
    expect(result.code).toBe(3);
    expect(errorLine(result)).toMatch(
      /^error: ERR_ENVIRONMENT_DOWNLOAD the bank refused the environment download \(404\).*: the helper answers at its path, but does not know this client id$/,
    );
    expect(hintLine(result)).toBe(
      'hint: Client a-client-from-the-wrong-secret was stored with `obflow register --client-id` (in CI from the ' +
        'TPP_CLIENT_ID_<BANK>_<PROFILE> secret, as OBFLOW_CLIENT_ID; CI legs never register): set it to the client registered ' +
        'for this bank and profile and store that one (`obflow register --client-id "$OBFLOW_CLIENT_ID" --force`; docs/ci.md, ' +
        '"Register once"), then run `obflow environment` again.',
    );
  }, 60_000);

  it('a client obflow registered and the bank forgot: register again', async () => {
    await writeConfig('forgotten.json');
    const registered = await obflow('forgotten.json', ['register']);
    expect(registered.code, registered.stderr).toBe(0);
    // The bank forgot it (a sandbox reset): the stored client id is one the emulator never issued.
    const dir = join(cwd, 'state-forgotten.json', 'registrations');
    const file = join(dir, (await readdir(dir))[0] ?? '');
    const record = JSON.parse(await readFile(file, 'utf8')) as { client_id: string };
    await writeFile(file, JSON.stringify({ ...record, client_id: 'forgotten-client' }));
    const result = await obflow('forgotten.json', ['environment']);
    expect(result.code).toBe(3);
    expect(errorLine(result)).toMatch(/: the helper answers at its path, but does not know this client id$/);
    expect(hintLine(result)).toBe(
      'hint: The bank does not know client forgotten-client that obflow registered (the sandbox was reset, or the client ' +
        'deleted): register again (`obflow register --force`), then run `obflow environment` again.',
    );
  }, 60_000);

  it('a typo in bank.environment_helper_path names the setting and its value, not the client', async () => {
    const typo = '/sandbox-helpr/v1.0/postman/environment';
    await writeConfig('typo.json', { environment_helper_path: typo });
    const registered = await obflow('typo.json', ['register']);
    expect(registered.code, registered.stderr).toBe(0);
    const result = await obflow('typo.json', ['environment']);
    expect(result.code).toBe(3);
    expect(errorLine(result)).toMatch(/: nothing answers at the helper path \(404 without a client id too\)$/);
    expect(hintLine(result)).toBe(
      `hint: Nothing answers at ${bank.urls.sandbox_base_url}${typo}: check bank.environment_helper_path ("${typo}"): ` +
        "the bank's documentation names the path (the interface's default is /sandbox-helper/v1.0/postman/environment).",
    );
  }, 60_000);
});

describe('what `obflow environment` says it wrote', () => {
  it.each([
    ['client_secret_basic', 'it holds the client secret: keep it out of version control'],
    ['private_key_jwt', 'it holds the private signing key: keep it out of version control'],
    ['tls_client_auth', 'no client secret or key in it: the transport certificate is the credential'],
  ])(
    '%s: what the file holds, and the Postman certificate settings for each host',
    async (method, holds) => {
      const config = `${method}.json`;
      await writeConfig(config, { token_endpoint_auth_method: method });
      const registered = await obflow(config, ['register']);
      expect(registered.code, registered.stderr).toBe(0);
      const result = await obflow(config, ['environment']);
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.find((line) => line.startsWith('wrote '))).toMatch(
        new RegExp(`\\(\\d+ variables; ${holds.replace(/[()]/g, '\\$&')}\\)$`),
      );
      const origin = (url: string) => new URL(url);
      const rs = origin(bank.urls.sandbox_base_url);
      const auth = origin(bank.urls.profiles['strict-headless'].auth_url);
      const transport = bank.identity.paths.transport as { cert: string; key: string };
      const files = `CRT file ${transport.cert}, KEY file ${transport.key}`;
      // One row per bank origin, in the origins' order (bankOriginsOf: sorted), each with its host and port.
      const rows = [
        [rs, '  resource server (accounts API)'],
        [auth, '  authorisation server          '],
      ] as const;
      const expected = [...rows]
        .sort(([a], [b]) => (a.origin < b.origin ? -1 : 1))
        .map(([url, role]) => `${role}  host ${url.hostname}  port ${url.port}  ${files}`);
      expect(lines.slice(lines.findIndex((line) => line.startsWith('Postman (')))).toEqual([
        'Postman (Settings → Certificates → Add Certificate, one per row; host and port exactly as shown; docs/postman-certificates.md):',
        ...expected,
        `  CA certificates: on, PEM file ${[...bank.identity.paths.directoryRoots, ...bank.identity.paths.directoryIssuing].join(' + ')} ` +
          '(Postman takes one file: put them in one, e.g. `cat` them into bank-ca.pem)',
        '  Settings → General → SSL certificate verification: on',
      ]);
      // --json carries the same rows for a script.
      const json = await obflow(config, ['environment', '--json']);
      const { postmanCertificates } = JSON.parse(json.stdout) as { postmanCertificates: { rows: { host: string; port: string }[] } };
      expect(postmanCertificates.rows.map((row) => `${row.host}:${row.port}`).sort()).toEqual(
        [`${rs.hostname}:${rs.port}`, `${auth.hostname}:${auth.port}`].sort(),
      );
    },
    60_000,
  );
});
