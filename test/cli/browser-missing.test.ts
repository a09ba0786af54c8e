// Browser consent without a Chromium is named before the first request (src/pipeline/browser-check.ts): `run` before
// any step, the demo before it registers — not after register, environment and generate ran. The built CLI in its own
// process.

import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess, useSandboxProcess, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const NO_CHROMIUM = { OBFLOW_FLOW__BROWSER__EXECUTABLE_PATH: '/nonexistent/chromium' };
const errorLine = (result: CliResult): string => result.stderr.split('\n').find((line) => line.startsWith('error:')) ?? '';
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('ERR_BROWSER_MISSING before the first request', () => {
  const fixture = useSandboxProcess('obflow-browser-missing-');

  it('`run all` at an interactive profile: before any step', async () => {
    const obflow = (argv: string[], env: Record<string, string> = {}) =>
      runCliProcess(argv, { cwd: fixture.cwd, env: { OBFLOW_SANDBOX__PROFILE: 'strict-interactive', ...env } });
    for (const argv of [['register'], ['environment'], ['generate']]) {
      const result = await obflow(argv);
      expect(result.code, result.stderr).toBe(0);
    }
    const run = await obflow(['run', 'all'], NO_CHROMIUM);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toBe('error: ERR_BROWSER_MISSING no Chromium at /nonexistent/chromium');
    // No step line: discovery, client-credentials and the consent were never sent.
    expect(run.stdout).toBe('');
  }, 120_000);

  it('`demo --profile strict-interactive`: before it registers', async () => {
    const cwd = await tempDir('obflow-browser-missing-demo-');
    folders.push(cwd);
    const demo = await runCliProcess(['demo', '--profile', 'strict-interactive'], { cwd, env: NO_CHROMIUM });
    expect(demo.code).toBe(2);
    expect(errorLine(demo)).toBe('error: ERR_BROWSER_MISSING no Chromium at /nonexistent/chromium');
    expect(demo.stdout).not.toMatch(/^register /m);
    expect(existsSync(join(cwd, '.obflow', 'demo', 'registrations'))).toBe(false);
  }, 60_000);
});
