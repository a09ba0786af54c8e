#!/usr/bin/env node
// The obflow command line: a yargs root over command modules. This is the only place that turns errors into
// `error:`/`hint:` lines and exit codes: 0 ok, 1 checks failed, 2 usage or configuration, 3 remote refused/unreachable.

import { readFileSync, realpathSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import { EXIT_CODES, isObflowError, ObflowError } from '../errors.js';
import { commandModules } from './commands/index.js';
import type { CommandState } from './context.js';
import { removeTemporaryFiles, requestStop, runInterruptCleanups, type InterruptSignal } from '../interrupt.js';
import { enableCompileCache } from './compile-cache.js';
import { installDeferredRequires } from './deferred-requires.js';
import { closestName } from '../config/suggest.js';
import { createOutput } from './output.js';
import { applyHeapPolicy, heapFlags, heapPolicyName, processHeap } from './heap.js';
import type { CliIo } from './output.js';
import type { Argv, CommandModule } from 'yargs';

/** `processEnv`: obflow's own process passes its environment, and main sets the process up from it before loading a
 *  command — V8's heap (OBFLOW_HEAP, src/cli/heap.ts), then the compile cache kept for that heap's flags, then the
 *  deferred requires (OBFLOW_DEFER_REQUIRES, src/cli/deferred-requires.ts). */
export async function main(
  argv: readonly string[],
  io: CliIo = processIo(),
  options: { processEnv?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const wantsJson = argv.includes('--json');
  const state: CommandState = { io, output: createOutput(io, { json: wantsJson, quiet: argv.includes('--quiet') }) };
  if (options.processEnv !== undefined) {
    try {
      const command = firstPositional(argv);
      const heap = heapPolicyName(options.processEnv, command);
      applyHeapPolicy(heap, processHeap, command);
      // Before the lazy imports (newman, the sandbox, playwright-core), which are most of what a start compiles.
      enableCompileCache(options.processEnv, heapFlags(heap));
      // Packages newman's tree uses on demand load at their first use (stand-ins in require's cache); a start that
      // only prints help or the version runs no command and loads none of them.
      installDeferredRequires(options.processEnv, command !== undefined && !asksHelp(argv));
    } catch (error) {
      return report(error, state);
    }
  }
  // `obflow --version` (no command): the version of package.json, exit 0 — not "Name a command".
  if (argv.includes('--version') && firstPositional(argv) === undefined) {
    const version = packageVersion();
    state.output.result({ version });
    state.output.line(version);
    return EXIT_CODES.ok;
  }
  const modules = commandModules(state);
  const unknown = unknownCommand(argv, modules);
  if (unknown !== undefined) {
    const near = closestName(unknown, commandNames(modules));
    return report(new UsageError(`unknown command "${unknown}"${near === undefined ? '' : ` (did you mean "${near}"?)`}`), state);
  }
  const parser = cliParser(argv, modules);
  try {
    // The parse callback hands help and usage text to us instead of console.log, so it goes to io.stdout.
    let printed = '';
    await parser.parseAsync([...argv], {}, (_error, _parsed, output) => {
      printed = output;
    });
    if (printed !== '') io.stdout.write(`${printed}\n`);
    return EXIT_CODES.ok;
  } catch (error) {
    return report(error, state);
  }
}

/** The yargs root over the command modules: global flags, help, strict parsing; errors thrown, never printed. */
export function cliParser(argv: readonly string[], modules: CommandModule[]): Argv {
  const root = withoutHelpCache(exampleRows(yargs([...argv])));
  return root
    .scriptName('obflow')
    .usage('$0 <command> [options]\n\nFrom a UK open-banking software statement to verified account data, as Postman collections.')
    .option('config', { type: 'string', describe: 'Config file (default: ./obflow.config.json if present)', global: true })
    .option('json', { type: 'boolean', describe: 'Machine-readable output (one JSON document)', global: true })
    .option('quiet', { type: 'boolean', describe: 'Only problems: errors and failed checks', global: true })
    .option('state-dir', { type: 'string', describe: 'State folder (identity, registrations, secrets)', global: true })
    .command(modules)
    .middleware(() => checkSwitchValues(argv, (root as unknown as YargsOptions).getOptions().boolean ?? []), true)
    .demandCommand(1, 'Name a command: obflow <command>; `obflow --help` lists them.')
    .example('$0 demo', 'the whole flow against the embedded sandbox (what `npm start` runs)')
    .example('$0 doctor --config obflow.config.json', "check a real bank's prerequisites")
    .recommendCommands()
    .strict()
    .help()
    .alias('h', 'help')
    .version(false)
    .wrap(Math.min(110, process.stdout.columns || 110))
    .exitProcess(false)
    .fail((message, error) => {
      // The instance holds the options of the command being parsed when it fails (getOptions is not in the types).
      throw error ?? new UsageError(withFlagSuggestions(message, (root as unknown as YargsOptions).getOptions().key));
    });
}

/**
 * Every `.example(command, description)` of the root and the commands as two rows of the full width, as a shell script
 * reads: the description as a `#` comment, then the command on a line of its own (yargs would put it in a column of
 * half the width and wrap it there, splitting a flag from its value or a name in two). A command a person copies stays
 * whole.
 */
function exampleRows(parser: Argv): Argv {
  const example = parser.example.bind(parser);
  const rows = (command: string, description?: string): void => {
    if (description !== undefined && description !== '') example(`# ${description}`, '');
    example(command, '');
  };
  parser.example = ((command: string | readonly [string, string?][], description?: string) => {
    if (typeof command === 'string') rows(command, description);
    else for (const [line, text] of command) rows(line, text);
    return parser;
  }) as Argv['example'];
  return parser;
}

/**
 * yargs renders the whole help text of the command it runs (cliui's layout, string widths) right after starting the
 * command's handler, in case the handler asks for help later (showHelp, getHelp): ~14 ms of every command's start
 * (docs/notes.md). obflow's handlers never ask, and its parser throws on failure instead of printing help (fail above), so
 * the parser skips that render; `--help` and usage errors render as before. A yargs without these internals is left
 * as it is.
 */
function withoutHelpCache(parser: Argv): Argv {
  const internals = parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } };
  const usage = internals.getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
  return parser;
}

class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** yargs' "Unknown argument(s): a, b" with the flag each most likely meant, from the flags of the command parsed. */
interface YargsOptions {
  getOptions(): { key: Record<string, unknown>; boolean?: string[] };
}

/**
 * yargs reads any value but `true` of a boolean flag as false: `run all --skips=maybe` ran as `--no-skips`, while the
 * same word in OBFLOW_FLOW__ALLOW_SKIPS is refused (src/config/load.ts). Every switch of the command parsed (and the
 * global ones) takes no value, or true or false: anything else is ERR_USAGE naming the flag.
 */
function checkSwitchValues(argv: readonly string[], switches: readonly string[]): void {
  for (const arg of argv) {
    if (arg === '--') return;
    const given = /^--(?:no-)?([^=]+)=(.*)$/s.exec(arg);
    if (given === null) continue;
    const [, name = '', value = ''] = given;
    if (!switches.includes(name) || value === 'true' || value === 'false') continue;
    throw new ObflowError('ERR_USAGE', `--${name} is a switch (true or false), not "${value}"`, {
      hint: `Use --${name} or --no-${name} (or --${name}=true / --${name}=false).`,
    });
  }
}

function withFlagSuggestions(message: string, options: Record<string, unknown>): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const known = Object.keys(options).filter((key) => key.length > 1 && !/[A-Z]/.test(key));
  const named = unknown.split(', ').map((arg) => {
    const near = closestName(arg, known);
    return near === undefined ? arg : `${arg} (did you mean --${near}?)`;
  });
  return `Unknown argument${named.length > 1 ? 's' : ''}: ${named.join(', ')}`;
}

function commandNames(modules: readonly CommandModule[]): string[] {
  return modules.map((module) => String(module.command).split(' ')[0] ?? '');
}

/** The first positional argument when it names no command (yargs would print the root help for `x --help`). */
function unknownCommand(argv: readonly string[], modules: readonly CommandModule[]): string | undefined {
  const first = firstPositional(argv);
  return first === undefined || new Set(commandNames(modules)).has(first) ? undefined : first;
}

/** The first argument that is neither a flag nor a global flag's value: the command's name, if any. */
/** obflow's version: package.json's, two folders up from this module (src/cli/ and dist/cli/ alike). */
function packageVersion(): string {
  const json = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof json.version === 'string' ? json.version : 'unknown';
}

function firstPositional(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    if (arg === '--config' || arg === '--state-dir') {
      index += 1;
      continue;
    }
    if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** `--help` or `-h` before any `--`: yargs prints help and runs no command. */
function asksHelp(argv: readonly string[]): boolean {
  const options = argv.indexOf('--') < 0 ? argv : argv.slice(0, argv.indexOf('--'));
  return options.includes('--help') || options.includes('-h');
}

function report(error: unknown, state: CommandState): number {
  const { output, io } = state;
  if (isObflowError(error)) {
    output.error(error.code, error.message, error.hint);
    if (io.env.OBFLOW_DEBUG && error.cause) io.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
    return EXIT_CODES[error.exitClass];
  }
  if (error instanceof UsageError || (error instanceof Error && error.name === 'YError')) {
    // yargs puts the detail of a validation message on its next lines ("Invalid values:\n  Argument: …"): one line.
    const message = error.message.replace(/\s*\n\s*/g, ' ').trim() || 'bad usage';
    output.error('ERR_USAGE', message, 'Run `obflow --help` or `obflow <command> --help`.');
    return EXIT_CODES.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  output.error(
    'ERR_UNEXPECTED',
    message.split('\n')[0] ?? 'unexpected failure',
    'This is a bug in obflow: rerun with OBFLOW_DEBUG=1 and report the stack trace.',
  );
  if (io.env.OBFLOW_DEBUG) io.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  return EXIT_CODES.checks;
}

function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/**
 * Ctrl-C (SIGINT) and SIGTERM end a command with 128 + the signal's number — 130 and 143, as shells report a process a
 * signal ended — after the command's cleanups (the embedded sandbox stopped, its temporary data folder removed) and
 * with the temporary files of unfinished writes removed: nothing half-written is left. `obflow sandbox` takes the
 * signal as its stop command instead. A second signal ends the process at once.
 */
function installInterruptHandlers(json: boolean): void {
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const satisfies readonly InterruptSignal[]) {
    process.on(signal, () => {
      const code = 128 + constants.signals[signal];
      if (interrupted) {
        removeTemporaryFiles();
        process.exit(code);
      }
      if (requestStop(signal)) return;
      interrupted = true;
      void runInterruptCleanups().finally(() => {
        // With --json one JSON line, like an error; on a terminal the line holds the echoed ^C: start a fresh one.
        process.stderr.write(
          json
            ? `${JSON.stringify({ interrupted: { signal, exit: code } })}\n`
            : `${process.stderr.isTTY ? '\n' : ''}interrupted by ${signal}: stopped cleanly, nothing half-written was left (exit ${code})\n`,
        );
        process.exit(code);
      });
    });
  }
}

function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  // `obflow … | head`: a closed pipe is the reader's choice, not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  installInterruptHandlers(process.argv.includes('--json'));
  const code = await main(process.argv.slice(2), processIo(), { processEnv: process.env });
  // Let pending output drain, then leave even if a dependency keeps a handle open.
  process.exitCode = code;
  setTimeout(() => process.exit(code), 50).unref();
}
