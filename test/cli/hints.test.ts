// Every obflow command a hint or message in src/ suggests (`obflow run psu-consent`, `(obflow init --force)`) parses
// with the CLI's own parser: a hint that names a flag or command obflow does not have is a usage error waiting.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CommandModule } from 'yargs';
import { describe, expect, it } from 'vitest';

import { commandModules } from '../../src/cli/commands/index.js';
import type { CommandState } from '../../src/cli/context.js';
import { cliParser } from '../../src/cli/main.js';
import { createOutput } from '../../src/cli/output.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Literal suggestions only: `obflow …` in backticks or parentheses, without template holes or placeholders. */
const SUGGESTION =
  /[`(]obflow ((?:[a-z][a-z0-9-]*|--[a-z][a-z0-9-]*|[a-z0-9,-]+)(?: (?:[a-z][a-z0-9-]*|--[a-z][a-z0-9-]*|[a-z0-9,.-]+))*)[`)]/g;

function suggestions(): { file: string; argv: string[] }[] {
  return sources(SRC).flatMap(
    (file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line)) // code, not comments (those name flags, not commands)
        .flatMap((line) => [...line.matchAll(SUGGESTION)].map((match) => ({ file, argv: (match[1] ?? '').split(' ') })))
        .filter(({ argv }) => argv[0] !== '--help'), // help prints and runs no command
  );
}

/** Parses argv with the real root and command modules; handlers only record that they were reached. */
async function parses(argv: string[]): Promise<string> {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: '/work' };
  const state: CommandState = { io, output: createOutput(io, { json: false, quiet: true }) };
  let reached = false;
  const modules = commandModules(state).map((module): CommandModule => ({ ...module, handler: () => void (reached = true) }));
  try {
    await cliParser(argv, modules).parseAsync();
  } catch (error) {
    return (error as Error).message;
  }
  return reached ? 'ok' : 'no command ran';
}

describe('hints name commands obflow has', () => {
  const found = suggestions();

  it('finds the suggestions (the scan itself works)', () => {
    expect(found.length).toBeGreaterThan(10);
    expect(found.map((entry) => entry.argv.join(' '))).toContain('run psu-consent');
  });

  it('a suggestion with a flag run does not have is refused by the parser (the check can fail)', async () => {
    expect(await parses(['run', 'psu-consent', '--loud'])).not.toBe('ok');
  });

  it('every suggested command parses', async () => {
    const failing: string[] = [];
    for (const { file, argv } of found) {
      const outcome = await parses(argv);
      if (outcome !== 'ok') failing.push(`${file.slice(SRC.length + 1)}: obflow ${argv.join(' ')} → ${outcome}`);
    }
    expect(failing).toEqual([]);
  });
});

describe("the parser's help text", () => {
  type Internals = { getInternalMethods(): { getUsageInstance(): { hasCachedHelpMessage(): boolean } } };
  const run = async (argv: string[]) => {
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: '/work' };
    const state: CommandState = { io, output: createOutput(io, { json: false, quiet: true }) };
    const modules = commandModules(state).map((module): CommandModule => ({ ...module, handler: async () => undefined }));
    const parser = cliParser(argv, modules);
    let printed = '';
    await parser.parseAsync([...argv], {}, (_error, _parsed, output) => {
      printed = output;
    });
    return { printed, cached: (parser as unknown as Internals).getInternalMethods().getUsageInstance().hasCachedHelpMessage() };
  };

  it('is not rendered for a command that runs (yargs would, ~14 ms of every start), and is for --help', async () => {
    expect(await run(['generate'])).toEqual({ printed: '', cached: false });
    const help = await run(['generate', '--help']);
    expect(help.printed).toContain('obflow generate');
  });
});
