// `obflow demo` and the FAPI modes (docs/sandbox.md, "FAPI modes"): each of the emulator's modes is one command —
// `demo` (interface), `demo --sandbox-fapi 1-advanced`, `demo --fapi 2.0` — and every step that applies passes. Under
// `--fapi 2.0` the TPP takes the profile's defaults for what nobody set (code, private_key_jwt, PS256 request objects;
// src/fapi-profile.ts) and the embedded sandbox follows it into its 2.0 mode (embeddedFapi): the interface mode
// publishes no PAR endpoint and no iss. `code` has no front-channel id_token, so that plan has no step for one
// (nothing skipped, so flow.allowSkips false holds).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { STEP_NAMES } from '../../src/generate/index.js';
import { runCli, startSandboxProcess } from '../helpers/cli.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A fresh folder whose config only says that a skipped step fails the run. */
function folder(config: Record<string, unknown> = { flow: { allowSkips: false } }): string {
  const cwd = mkdtempSync(join(tmpdir(), 'obflow-demo-fapi-'));
  folders.push(cwd);
  writeFileSync(join(cwd, 'obflow.config.json'), JSON.stringify(config));
  return cwd;
}

const errorLine = (stderr: string): string => stderr.split('\n').find((line) => line.startsWith('error:')) ?? '';

describe('obflow demo: each of the emulator’s FAPI modes in one command', () => {
  // The step collections, plus the token endpoint's id_token check, plus the front channel's under the hybrid flow.
  const cases = [
    { argv: [], mode: 'interface', steps: STEP_NAMES.length + 2 },
    { argv: ['--sandbox-fapi', '1-advanced'], mode: '1-advanced', steps: STEP_NAMES.length + 2 },
    { argv: ['--fapi', '2.0'], mode: '2.0', steps: STEP_NAMES.length + 1 },
  ];
  it.each(cases)('demo $argv: the emulator runs in $mode and every step passes, none skipped', async ({ argv, mode, steps }) => {
    const result = await runCli(['demo', ...argv], { cwd: folder() });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^sandbox .*, FAPI mode ${mode.replace('.', '\\.')} `, 'm'));
    // The count says what it covers: the collections' steps and obflow's own id_token checks.
    expect(result.stdout).toMatch(
      new RegExp(
        `steps passed: ${steps}/${steps} \\(${STEP_NAMES.length} collection steps \\+ \\d local steps? of obflow: [a-z, -]+\\), 0 skipped`,
      ),
    );
  });

  it('demo --fapi 2.0 --token-auth-method tls_client_auth: the other method FAPI 2.0 allows passes too', async () => {
    const result = await runCli(['demo', '--fapi', '2.0', '--token-auth-method', 'tls_client_auth'], { cwd: folder() });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  });

  // What the user set and the profile refuses is named with both settings — never called a default.
  it.each([
    [['--token-auth-method', 'client_secret_basic'], 'bank.token_endpoint_auth_method "client_secret_basic"'],
    [['--response-type', 'code id_token'], 'flow.responseType'],
  ])('demo --fapi 2.0 %j: ERR_CONFIG_INVALID naming both settings, not "(the default)"', async (argv, named) => {
    const result = await runCli(['demo', '--fapi', '2.0', ...argv], { cwd: folder() });
    expect(result.code).toBe(2);
    const line = errorLine(result.stderr);
    expect(line).toContain('ERR_CONFIG_INVALID');
    expect(line).toContain('flow.fapi "2.0"');
    expect(line).toContain(named);
    expect(line).not.toContain('default');
  });
});

// DCR management (register --show / --update / --delete) authenticates with a client_credentials token; a FAPI 2.0
// client's assertion names the issuer as aud (FAPI 2.0 Security Profile §5.3.2.1), which the 2.0 sandbox requires.
describe('obflow register --show / --update / --delete for a FAPI 2.0 client', () => {
  it('against `obflow sandbox` following flow.fapi "2.0" (its defaults: private_key_jwt, code), also for a client stored with --client-id: each passes', async () => {
    const cwd = folder({ flow: { fapi: '2.0' } });
    const sandbox = await startSandboxProcess(cwd, []);
    try {
      const registered = await runCli(['register', '--json'], { cwd });
      expect(registered.code, registered.stderr).toBe(0);
      // The same client stored as registered elsewhere (`--client-id`): it keeps the profile it was registered under,
      // so its assertions still name the issuer.
      const clientId = (JSON.parse(registered.stdout.trim().split('\n').pop() ?? '{}') as { client_id?: string }).client_id ?? '';
      const external = await runCli(['register', '--client-id', clientId, '--force', '--json'], { cwd });
      expect(external.code, external.stderr).toBe(0);
      for (const action of ['--show', '--update', '--delete']) {
        const result = await runCli(['register', action, '--json'], { cwd });
        expect(result.code, `${action}: ${result.stderr}`).toBe(0);
      }
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
