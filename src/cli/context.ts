// What every command handler shares: the output, the process seams, the one lazy boundary into the core
// (src/pipeline/index.ts), and loading the config from file, OBFLOW_* variables and this command's flags.

import type { Overrides } from '../config/overrides.js';
import type { ObflowConfig } from '../config/schema.js';
import type * as CoreModule from '../pipeline/index.js';
import type * as LightCoreModule from '../pipeline/light.js';
import type { SessionSeams } from '../pipeline/session.js';
import type { RunSubscriber } from '../run/events.js';
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

/** The light core (config and generator only): for commands that never talk to a bank or read the identity. */
export type LightCore = typeof LightCoreModule;

export function loadLightCore(): Promise<LightCore> {
  return import('../pipeline/light.js');
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
  const core = await loadCore();
  return { core, ...openConfig(core, state, argv, options) };
}

/** A command that needs only the light core (`obflow generate`): the config without the PKI, registration and run. */
export async function openLightCommand(
  state: CommandState,
  argv: Readonly<Record<string, unknown>>,
): Promise<{ core: LightCore; config: ObflowConfig; overrides: Overrides }> {
  const core = await loadLightCore();
  return { core, ...openConfig(core, state, argv, {}) };
}

function openConfig(
  core: LightCore,
  state: CommandState,
  argv: Readonly<Record<string, unknown>>,
  options: { checkFiles?: boolean },
): { config: ObflowConfig; overrides: Overrides } {
  const overrides = commandOverrides(argv);
  const configFile = typeof argv.config === 'string' ? argv.config : undefined;
  const { config } = core.loadConfig({
    cwd: state.io.cwd,
    env: state.io.env,
    configFile,
    flags: { ...core.configOverrides(overrides) },
    checkFiles: options.checkFiles !== false,
  });
  return { config, overrides };
}

/** A session's seams at the terminal: progress lines to the output, manual consent pasted at the prompt. */
export function sessionSeams(state: CommandState): Partial<SessionSeams> {
  return { log: (line) => state.output.line(line), ask: pasteRedirect(state.io), onInterrupt, env: state.io.env };
}

/** The live line of a long run step (src/run/subscribers/live-line.ts): only when stdout is a terminal, never with
 *  --json or --quiet — CI logs and piped output stay a line per step. */
export function liveLineFor(state: CommandState, core: Pick<Core, 'createLiveLine'>): RunSubscriber | undefined {
  const { stdout } = state.io;
  if (state.output.json || state.output.quiet || stdout.isTTY !== true) return undefined;
  const { columns } = stdout as { columns?: number };
  return core.createLiveLine({ write: (text) => void stdout.write(text), ...(columns !== undefined ? { columns } : {}) });
}

/** liveLineFor as runStage's option: absent off a terminal. */
export function liveLineOption(state: CommandState, core: Pick<Core, 'createLiveLine'>): { liveLine?: RunSubscriber } {
  const liveLine = liveLineFor(state, core);
  return liveLine === undefined ? {} : { liveLine };
}
