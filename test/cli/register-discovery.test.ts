// `obflow register` checks the bank's discovery against the config before it sends or stores anything
// (docs/errors.md, ERR_PAR_UNAVAILABLE and ERR_DISCOVERY_MISMATCH: "checked as soon as discovery is read (register,
// environment)"). A valid FAPI 2.0 config against a bank whose discovery offers neither PAR nor the iss response
// parameter (`obflow sandbox --fapi interface`) stops with one coded line; the registration stored before stays.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { runCli, startSandboxProcess } from '../helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'obflow-register-discovery-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Every stored registration, by file name, as its bytes. */
function storedRegistrations(): Record<string, string> {
  const dir = join(cwd, '.obflow', 'registrations');
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

describe('obflow register --force: the discovery check runs before anything is sent or stored', () => {
  it('FAPI 2.0 against a bank without PAR or iss: ERR_PAR_UNAVAILABLE, non-zero, the stored registration untouched', async () => {
    writeFileSync(join(cwd, 'obflow.config.json'), JSON.stringify({ flow: { fapi: '2.0' } }));
    // A FAPI 2.0 bank first (the sandbox follows flow.fapi): a registration is stored.
    const fapi2 = await startSandboxProcess(cwd, []);
    try {
      const registered = await runCli(['register', '--json'], { cwd });
      expect(registered.code, registered.stderr).toBe(0);
    } finally {
      await fapi2.stop();
    }
    const before = storedRegistrations();
    expect(Object.keys(before)).toHaveLength(1);

    // The same state folder, now a bank that offers neither (the interface mode).
    const plain = await startSandboxProcess(cwd, ['--fapi', 'interface']);
    try {
      const result = await runCli(['register', '--force'], { cwd });
      expect(result.code).toBe(2);
      const lines = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('ERR_PAR_UNAVAILABLE');
      expect(lines[0]).toContain('flow.fapi "2.0"');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(storedRegistrations()).toEqual(before);
      // What register stopped on, doctor lists with the other mismatch (docs/errors.md).
      const doctor = await runCli(['doctor', '--json'], { cwd });
      expect(doctor.stdout).toContain('ERR_PAR_UNAVAILABLE');
      expect(doctor.stdout).toContain('authorization_response_iss_parameter_supported');
    } finally {
      await plain.stop();
    }
  }, 90_000);
});
