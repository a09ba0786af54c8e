// What every command handler shares: the output, the process seams, and loading the config from file, OBFLOW_*
// variables and this command's flags (flags mapped to dotted config keys here, once).

import type { ObflowConfig } from '../config/schema.js';
import type { CliIo, Output } from './output.js';

export interface CommandState {
  io: CliIo;
  output: Output;
}

/** Global and per-command flags that override config keys (kebab-case flag → dotted key). */
export const FLAG_TO_CONFIG: Record<string, string> = {
  'state-dir': 'stateDir',
  profile: 'sandbox.profile',
  seed: 'sandbox.seed',
  'resource-port': 'sandbox.resourcePort',
  'auth-port': 'sandbox.authPort',
  'response-type': 'flow.responseType',
  consent: 'flow.consent',
  'psu-user': 'flow.psuUser',
  'max-pages': 'flow.maxPages',
  'out-collections': 'output.collections',
  'out-reports': 'output.reports',
};


/** `checkFiles: false` for doctor, which reports a missing identity file as a failed check instead. */
export async function loadCommandConfig(state: CommandState, argv: Record<string, unknown>, options: { checkFiles?: boolean } = {}): Promise<ObflowConfig> {
  const { loadConfig, setPath } = await import('../config/load.js');
  const configFile = typeof argv.config === 'string' ? argv.config : undefined;
  const flags: Record<string, unknown> = {};
  for (const [flag, key] of Object.entries(FLAG_TO_CONFIG)) if (argv[flag] !== undefined) setPath(flags, key.split('.'), argv[flag]);
  return loadConfig({ cwd: state.io.cwd, env: state.io.env, configFile, flags, checkFiles: options.checkFiles !== false }).config;
}
