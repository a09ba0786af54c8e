// tools/check.js, `npm test`'s checks run side by side: every check runs even when one fails, each one's output is
// written whole in the checks' order (not interleaved), and the exit code is the first failing check's.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';

type Check = { name: string; command: string; args: string[] };
const { checksNamed, runChecks } = (await import(pathToFileURL(join(REPO_ROOT, 'tools', 'check.js')).href)) as {
  checksNamed(names: string[]): Check[] | undefined;
  runChecks(checks: Check[], write: (text: string) => void): Promise<number>;
};

const node = (name: string, source: string): Check => ({ name, command: process.execPath, args: ['-e', source] });

describe('tools/check.js', () => {
  it('runs every check, writes each output whole in order, and exits with the first failure', async () => {
    let written = '';
    const code = await runChecks(
      [
        node('slow pass', "setTimeout(() => console.log('a1'), 300); setTimeout(() => console.log('a2'), 400)"),
        node('fails', "console.error('b1'); process.exit(3)"),
        node('fails too', 'process.exit(5)'),
        node('quick pass', "process.stdout.write('d1')"),
      ],
      (text) => (written += text),
    );
    expect(code).toBe(3);
    expect(written).toBe('> slow pass\na1\na2\n> fails (exit 3)\nb1\n> fails too (exit 5)\n> quick pass\nd1\n');
  });

  it('exits 0 when every check passes', async () => {
    expect(await runChecks([node('one', ''), node('two', '')], () => undefined)).toBe(0);
  });

  it('runs the checks named, in the table’s order; every check when none is named; none for a name that is not one', () => {
    expect(checksNamed(['prettier', 'eslint'])?.map((check) => check.name)).toEqual(['eslint', 'prettier']);
    expect(checksNamed([])?.map((check) => check.name)).toEqual(['typecheck', 'eslint', 'prettier']);
    expect(checksNamed(['eslint', 'lint'])).toBeUndefined();
  });
});
