// `obflow sandbox --par required` in its own process, as a TPP developer meets a bank that requires pushed
// authorization requests (RFC 9126): flow.par "never" stops with ERR_PAR_UNAVAILABLE naming both settings before the
// flow; flow.par "auto" follows the discovery (environment records require_pushed_authorization_requests, the offline
// generate reads it) and "always" pushes: register → environment → generate → run all passes every step (14/14).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { STEP_NAMES } from '../../src/generate/index.js';
import { runCli, useSandboxProcess } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const { cwd } = useSandboxProcess('obflow-par-', ['--par', 'required']);
const ALWAYS = { OBFLOW_FLOW__PAR: 'always' };

describe('obflow against `obflow sandbox --par required`', () => {
  it('an unknown --par value is a usage error', async () => {
    const result = await runCli(['sandbox', '--par', 'sometimes'], { cwd: tempDirSync('obflow-par-usage-') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE.*sometimes/);
  });

  it('flow.par never: ERR_PAR_UNAVAILABLE naming both settings, exit 2', async () => {
    const never = { OBFLOW_FLOW__PAR: 'never' };
    const register = await runCli(['register', '--json'], { cwd, env: never });
    const failed = register.code === 0 ? await runCli(['environment', '--json'], { cwd, env: never }) : register;
    expect(failed.code).toBe(2);
    const line = failed.stderr.trim().split('\n').pop() ?? '';
    const { error } = JSON.parse(line) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('ERR_PAR_UNAVAILABLE');
    expect(error.message).toContain('require_pushed_authorization_requests: true');
    expect(error.message).toContain('flow.par "never"');
    expect(error.hint).toMatch(/flow\.par to "auto".*"always"/);
  });

  it('flow.par auto (the sandbox config says off): the discovery read says PAR is required, and generate pushes', async () => {
    for (const argv of [['register', '--force'], ['environment'], ['generate']]) {
      const result = await runCli([...argv, '--json'], { cwd });
      expect(result.code, `${argv.join(' ')}\n${result.stderr}`).toBe(0);
    }
    const collection = readFileSync(join(cwd, 'collections', 'psu-consent.postman_collection.json'), 'utf8');
    expect(collection).toContain('psu-consent: POST pushed authorization request');
    const run = await runCli(['run', 'all', '--json'], { cwd });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { passed: boolean; steps: unknown };
    expect(summary.steps).toEqual({ passed: STEP_NAMES.length + 2, skipped: 0, total: STEP_NAMES.length + 2 });
  });

  it('flow.par always: register → environment → generate → run all, every step and both id_token checks pass', async () => {
    for (const argv of [['register', '--force'], ['environment'], ['generate']]) {
      const result = await runCli([...argv, '--json'], { cwd, env: ALWAYS });
      expect(result.code, `${argv.join(' ')}\n${result.stderr}`).toBe(0);
    }
    const collection = readFileSync(join(cwd, 'collections', 'psu-consent.postman_collection.json'), 'utf8');
    expect(collection).toContain('psu-consent: POST pushed authorization request');
    const run = await runCli(['run', 'all', '--json'], { cwd, env: ALWAYS });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { passed: boolean; steps: unknown };
    expect(summary.passed).toBe(true);
    expect(summary.steps).toEqual({ passed: STEP_NAMES.length + 2, skipped: 0, total: STEP_NAMES.length + 2 });
  });
});
