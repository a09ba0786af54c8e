// What every command handler shares: the output, the process seams, the one lazy boundary into the core
// (src/pipeline/index.ts), and loading the config from file, OBFLOW_* variables and this command's flags.

import type { Overrides } from '../config/overrides.js';
import type { ObflowConfig } from '../config/schema.js';
import type * as CoreModule from '../pipeline/index.js';
import type { SessionSeams } from '../pipeline/session.js';
import { commandOverrides } from './flags.js';
import type { CliIo, Output } from './output.js';
import { onInterrupt } from '../interrupt.js';
import { pasteRedirect } from './prompt.js';

export interface CommandState {
  io: CliIo;
  output: Output;
}

export type Core = typeof CoreModule;

/** The core, loaded on a command's first need: `obflow --help` and usage errors never load it. */
export function loadCore(): Promise<Core> {
  return import('../pipeline/index.js');
}

export interface CommandContext {
  core: Core;
  config: ObflowConfig;
  /** What this command's flags set, built once: the config loader took it, and so does the session. */
  overrides: Overrides;
}

/** `checkFiles: false` for doctor, which reports a missing identity file as a failed check instead. */
export async function openCommand(
  state: CommandState,
  argv: Readonly<Record<string, unknown>>,
  options: { checkFiles?: boolean } = {},
): Promise<CommandContext> {
  const overrides = commandOverrides(argv);
  const core = await loadCore();
  const configFile = typeof argv.config === 'string' ? argv.config : undefined;
  const { config } = core.loadConfig({
    cwd: state.io.cwd,
    env: state.io.env,
    configFile,
    flags: { ...core.configOverrides(overrides) },
    checkFiles: options.checkFiles !== false,
  });
  return { core, config, overrides };
}

/** A session's seams at the terminal: progress lines to the output, manual consent pasted at the prompt. */
export function sessionSeams(state: CommandState): Partial<SessionSeams> {
  return { log: (line) => state.output.line(line), ask: pasteRedirect(state.io), onInterrupt, env: state.io.env };
}
