// One command of the CLI as data — its name, options (rows of the shared table by name, and its own), examples and
// handler — made into the yargs command module main.ts mounts, so no command file repeats yargs' builder.

import type { ArgumentsCamelCase, Argv, CommandModule, Options, PositionalOptions } from 'yargs';
import type { CommandState } from './context.js';
import { SHARED_OPTIONS, type SharedOptionName } from './options.js';

/** A command's options in its --help order: a row of src/cli/options.ts by name, or options of the command's own. */
export type CommandOptions = readonly (SharedOptionName | Readonly<Record<string, Options>>)[];

export interface CommandDefinition {
  /** The name and its positional arguments, as yargs reads them (`run [step]`). */
  command: string;
  describe: string;
  positionals?: Readonly<Record<string, PositionalOptions>>;
  options?: CommandOptions;
  /** What yargs is told beyond the options, after them: conflicts, subcommands. */
  refine?: (yargs: Argv, state: CommandState) => Argv;
  /** `[command line, what it shows]`, in the order --help lists them. */
  examples?: readonly (readonly [string, string])[];
  handler: (argv: ArgumentsCamelCase, state: CommandState) => void | Promise<void>;
}

/** A command module for the output and process seams of one CLI call. */
export type CommandFactory = (state: CommandState) => CommandModule;

export function defineCommand(definition: CommandDefinition): CommandFactory {
  const { positionals = {}, options = [], refine, examples = [], handler } = definition;
  return (state) => ({
    command: definition.command,
    describe: definition.describe,
    builder: (yargs) => {
      let built: Argv = yargs;
      for (const [name, positional] of Object.entries(positionals)) built = built.positional(name, positional);
      for (const [name, option] of options.flatMap(optionEntries)) built = built.option(name, option);
      if (refine !== undefined) built = refine(built, state);
      for (const [line, text] of examples) built = built.example(line, text);
      return built;
    },
    handler: (argv) => handler(argv, state),
  });
}

function optionEntries(entry: CommandOptions[number]): [string, Options][] {
  return typeof entry === 'string' ? [[entry, SHARED_OPTIONS[entry]]] : Object.entries(entry);
}
