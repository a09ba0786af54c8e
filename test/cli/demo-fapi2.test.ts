// `obflow demo` for a TPP configured for FAPI 2.0 (flow.fapi "2.0", issue 30): the embedded sandbox follows the TPP
// into its FAPI 2.0 mode while sandbox.fapi is left at the interface default (src/state/embedded-sandbox.ts,
// embeddedFapi) — the interface mode publishes no PAR endpoint and no iss parameter, so a 2.0 client would stop at
// the discovery check. Every step that applies passes: `code` has no front-channel id_token, so the plan has no step
// for one (nothing skipped, so --no-skips holds).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { STEP_NAMES } from '../../src/generate/index.js';
import { runCli, startSandboxProcess } from '../helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'obflow-demo-fapi2-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const FAPI2_CONFIG = { bank: { token_endpoint_auth_method: 'private_key_jwt' }, flow: { fapi: '2.0', responseType: 'code' } };

describe('obflow demo with flow.fapi "2.0"', () => {
  it('meets a FAPI 2.0 embedded sandbox and passes every step, none skipped (flow.allowSkips false)', async () => {
    writeFileSync(
      join(cwd, 'obflow.config.json'),
      JSON.stringify({
        bank: { token_endpoint_auth_method: 'private_key_jwt' },
        flow: { fapi: '2.0', responseType: 'code', allowSkips: false },
      }),
    );
    const result = await runCli(['demo'], { cwd });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    // The step collections plus the token endpoint's id_token check (no front-channel one with `code`).
    const steps = STEP_NAMES.length + 1;
    expect(result.stdout).toContain(
      `steps passed: ${steps}/${steps} (${STEP_NAMES.length} collection steps + 1 local step of obflow: id-token-token), 0 skipped`,
    );
  });
});

// DCR management (register --show / --update / --delete) authenticates with a client_credentials token; a FAPI 2.0
// client's assertion names the issuer as aud (FAPI 2.0 Security Profile §5.3.2.1), which the 2.0 sandbox requires.
describe('obflow register --show / --update / --delete for a FAPI 2.0 client', () => {
  it('against `obflow sandbox` following flow.fapi "2.0": each passes', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'obflow-manage-fapi2-'));
    writeFileSync(join(folder, 'obflow.config.json'), JSON.stringify(FAPI2_CONFIG));
    const sandbox = await startSandboxProcess(folder, []);
    try {
      const registered = await runCli(['register', '--json'], { cwd: folder });
      expect(registered.code, registered.stderr).toBe(0);
      for (const action of ['--show', '--update', '--delete']) {
        const result = await runCli(['register', action, '--json'], { cwd: folder });
        expect(result.code, `${action}: ${result.stderr}`).toBe(0);
      }
    } finally {
      await sandbox.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
