// `obflow --version` prints the version (not "Name a command"), and a switch given a value it does not take is refused
// as OBFLOW_* refuses the same word (src/config/load.ts), never read as false: `run all --skips=maybe` ran as
// --no-skips. The built CLI in its own process.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const cwd = tempDirSync('obflow-version-switches-');
const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('obflow --version', () => {
  it("prints package.json's version, exit 0; with --json as an object", async () => {
    expect(await runCliProcess(['--version'], { cwd })).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(await runCliProcess(['--version', '--json'], { cwd })).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ version })}\n`,
      stderr: '',
    });
  });
});

describe('a switch with a value', () => {
  it.each([
    [['run', 'all', '--skips=maybe'], 'skips'],
    [['run', 'all', '--no-skips=1'], 'skips'],
    [['run', 'all', '--verbose=yes'], 'verbose'],
    [['run', 'all', '--insecure=no'], 'insecure'],
    [['register', '--dry-run=please'], 'dry-run'],
    [['workspace', '--run=maybe'], 'run'],
    [['init', '--force=x'], 'force'],
    [['doctor', '--quiet=0'], 'quiet'],
  ])('%j is ERR_USAGE naming the switch, before anything runs', async (argv, name) => {
    const result = await runCliProcess(argv, { cwd });
    expect(result.code).toBe(2);
    const value = /=(.*)$/.exec(argv[argv.length - 1] ?? '')?.[1] ?? '';
    expect(result.stderr.split('\n')[0]).toBe(`error: ERR_USAGE --${name} is a switch (true or false), not "${value}"`);
    expect(result.stderr).toContain(`hint: Use --${name} or --no-${name} (or --${name}=true / --${name}=false).`);
    expect(result.stdout).toBe('');
  });

  it('true and false are taken as they say (the config and flags agree)', async () => {
    // --skips=false with a missing sandbox: parsed, then the run's own error (not a usage error about the switch).
    const result = await runCliProcess(['run', 'all', '--skips=false'], { cwd });
    expect(result.stderr).not.toContain('is a switch');
  });
});
