// Each command-line option is declared once: an option more than one command takes is a row of src/cli/options.ts,
// and every command takes that very row — none declares it again, with the table's words or its own. A command's
// options are read by running its builder (src/cli/command.ts) against a stand-in that records what yargs is told.

import { PassThrough } from 'node:stream';
import type { Argv, CommandModule, Options } from 'yargs';
import { describe, expect, it } from 'vitest';

import { defineCommand } from '../../src/cli/command.js';
import { commandModules } from '../../src/cli/commands/index.js';
import type { CommandState } from '../../src/cli/context.js';
import { SHARED_OPTIONS } from '../../src/cli/options.js';
import { createOutput } from '../../src/cli/output.js';
import { FAPI_OPTION, SANDBOX_FAPI_OPTION } from '../../src/fapi-profile.js';

interface Declaration {
  command: string;
  name: string;
  option: Options;
}

/** Every call the builder makes on yargs, in order: [method, ...arguments]. */
function builderCalls(module: CommandModule): [string, ...unknown[]][] {
  const calls: [string, ...unknown[]][] = [];
  const recorder: Argv = new Proxy({} as Argv, {
    get:
      (_target, method) =>
      (...args: unknown[]) => {
        calls.push([String(method), ...args]);
        return recorder;
      },
  });
  if (typeof module.builder === 'function') void module.builder(recorder);
  return calls;
}

/** The options each command declares, its subcommands' included (`report merge`). */
function declarations(modules: readonly CommandModule[], parent = ''): Declaration[] {
  return modules.flatMap((module) => {
    const command = `${parent}${String(module.command).split(' ')[0] ?? ''}`;
    return builderCalls(module).flatMap(([method, ...args]): Declaration[] => {
      if (method === 'option') return [{ command, name: String(args[0]), option: args[1] as Options }];
      if (method === 'command') return declarations([args[0] as CommandModule], `${command} `);
      if (method === 'options') throw new TypeError(`${command}: .options() hides its names from this check; use .option()`);
      return [];
    });
  });
}

function state(): CommandState {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: '/work' };
  return { io, output: createOutput(io, { json: false, quiet: true }) };
}

/** A name that means another option in each command listed: declared there, never taken from the table. */
const OWN_MEANINGS: Readonly<Record<string, readonly string[]>> = {
  // init replaces the identity, register registers again, workspace replaces its folder or zip.
  force: ['init', 'register', 'workspace'],
  // run prints every request and check; the emulator logs bodies.
  verbose: ['run', 'sandbox'],
  // The workspace's folder; the merged page's folder.
  out: ['workspace', 'report merge'],
  // The emulator's: the families it serves and its FAPI mode (demo's --sandbox-fapi), not the flow's.
  apis: ['sandbox'],
  fapi: ['sandbox'],
};

/** What breaks the rule in these declarations: a shared option declared again, or one option declared in two commands. */
function violations(found: readonly Declaration[]): string[] {
  const table: Readonly<Record<string, Options>> = SHARED_OPTIONS;
  const own = (entry: Declaration) => OWN_MEANINGS[entry.name]?.includes(entry.command) === true;
  const redeclared = found
    .filter((entry) => entry.name in table && entry.option !== table[entry.name] && !own(entry))
    .map((entry) => `${entry.command} declares --${entry.name} again: take the row of src/cli/options.ts`);
  const commandsOf = new Map<string, string[]>();
  for (const entry of found)
    if (!(entry.name in table) && !own(entry)) commandsOf.set(entry.name, [...(commandsOf.get(entry.name) ?? []), entry.command]);
  const unshared = [...commandsOf]
    .filter(([, commands]) => commands.length > 1)
    .map(([name, commands]) => `--${name} is declared by ${commands.join(', ')}: make it a row of src/cli/options.ts`);
  return [...redeclared, ...unshared];
}

describe('each command-line option is declared once', () => {
  const found = declarations(commandModules(state()));

  it('reads the options of every command, subcommands included (the stand-in sees what yargs is told)', () => {
    const commands = new Set(found.map((entry) => entry.command));
    for (const command of ['init', 'sandbox', 'register', 'environment', 'generate', 'run', 'workspace', 'report merge', 'demo'])
      expect(commands, command).toContain(command);
    expect(found.filter((entry) => entry.command === 'run').map((entry) => entry.name)).toContain('out-reports');
  });

  it('no command declares an option of the table again, and no option is declared in two commands', () => {
    expect(violations(found)).toEqual([]);
  });

  it('the check fails on a shared option declared again (same words or not) and on one option said in two commands', () => {
    const profile = { type: 'string', describe: 'Sandbox client profile' } as const;
    expect(violations([...found, { command: 'run', name: 'profile', option: profile }])).toEqual([
      'run declares --profile again: take the row of src/cli/options.ts',
    ]);
    expect(violations([...found, { command: 'init', name: 'insecure', option: { ...SHARED_OPTIONS.insecure } }])).toHaveLength(1);
    const maxPages = found.find((entry) => entry.name === 'max-pages');
    expect(maxPages).toBeDefined();
    expect(violations([...found, { ...(maxPages as Declaration), command: 'demo' }])).toEqual([
      '--max-pages is declared by run, demo: make it a row of src/cli/options.ts',
    ]);
  });

  it('a name of several meanings is listed only where it means another option', () => {
    for (const [name, commands] of Object.entries(OWN_MEANINGS)) {
      const options = found.filter((entry) => entry.name === name && commands.includes(entry.command));
      expect(options.map((entry) => entry.command).sort(), name).toEqual([...commands].sort());
      const words = options.map((entry) => entry.option.describe);
      if (name in SHARED_OPTIONS) words.push(SHARED_OPTIONS[name as keyof typeof SHARED_OPTIONS].describe);
      expect(new Set(words).size, `--${name} means something else in each`).toBe(words.length);
    }
  });

  it('every row of the table is taken by more than one command (one command’s option stays in its file)', () => {
    for (const name of Object.keys(SHARED_OPTIONS)) {
      const commands = found.filter((entry) => entry.name === name && entry.option === SHARED_OPTIONS[name as keyof typeof SHARED_OPTIONS]);
      expect(commands.length, name).toBeGreaterThan(1);
    }
  });

  it("--fapi is the TPP's profile where a command speaks the flow, and the emulator's mode where one starts it", () => {
    const fapi = found
      .filter((entry) => entry.name === 'fapi' || entry.name === 'sandbox-fapi')
      .map(
        (entry) =>
          `${entry.command} --${entry.name}: ${entry.option === FAPI_OPTION ? 'FAPI_OPTION' : entry.option === SANDBOX_FAPI_OPTION ? 'SANDBOX_FAPI_OPTION' : 'inline'}`,
      );
    expect(fapi.sort()).toEqual([
      'demo --fapi: FAPI_OPTION',
      'demo --sandbox-fapi: SANDBOX_FAPI_OPTION',
      'environment --fapi: FAPI_OPTION',
      'generate --fapi: FAPI_OPTION',
      'register --fapi: FAPI_OPTION',
      'run --fapi: FAPI_OPTION',
      'sandbox --fapi: SANDBOX_FAPI_OPTION',
    ]);
  });
});

describe('defineCommand', () => {
  it('tells yargs the positionals, the options in the order given, the refinements, then the examples', () => {
    const own = { type: 'number', describe: 'own' } as const;
    const module = defineCommand({
      command: 'x [step]',
      describe: 'x',
      positionals: { step: { type: 'string' } },
      options: ['insecure', { own }, 'profile'],
      refine: (yargs) => yargs.conflicts('own', 'profile'),
      examples: [['$0 x', 'an example']],
      handler: () => undefined,
    })(state());
    expect(builderCalls(module)).toEqual([
      ['positional', 'step', { type: 'string' }],
      ['option', 'insecure', SHARED_OPTIONS.insecure],
      ['option', 'own', own],
      ['option', 'profile', SHARED_OPTIONS.profile],
      ['conflicts', 'own', 'profile'],
      ['example', '$0 x', 'an example'],
    ]);
  });

  it('hands the handler the parsed arguments and the state of the call', async () => {
    const seen: unknown[] = [];
    const given = state();
    const module = defineCommand({ command: 'x', describe: 'x', handler: (argv, callState) => void seen.push(argv, callState) })(given);
    const argv = { _: [], $0: 'obflow' };
    await module.handler(argv);
    expect(seen).toEqual([argv, given]);
    expect(seen[1]).toBe(given);
  });
});
