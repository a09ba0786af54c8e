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
