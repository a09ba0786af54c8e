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
  'consent-timeout': 'flow.browser.timeoutSeconds',
  'max-pages': 'flow.maxPages',
  'out-collections': 'output.collections',
  'out-reports': 'output.reports',
};


/** Flags that name a file or folder: given without a value (`--config` last, or before another flag) yargs reads an
 *  empty string, which would silently mean "no config" or "the working directory". */
const PATH_FLAGS = ['config', 'state-dir', 'out-collections', 'out-reports', 'data-dir'] as const;

/** `checkFiles: false` for doctor, which reports a missing identity file as a failed check instead. */
export async function loadCommandConfig(state: CommandState, argv: Record<string, unknown>, options: { checkFiles?: boolean } = {}): Promise<ObflowConfig> {
  const empty = PATH_FLAGS.find((flag) => argv[flag] === '');
  if (empty !== undefined) {
    const { ObflowError } = await import('../errors.js');
    throw new ObflowError('ERR_USAGE', `--${empty} needs a path`, { hint: `Give it a value (\`--${empty} <path>\`), or leave the flag out.` });
  }
  const { loadConfig, setPath } = await import('../config/load.js');
  const configFile = typeof argv.config === 'string' ? argv.config : undefined;
  const flags: Record<string, unknown> = {};
  for (const [flag, key] of Object.entries(FLAG_TO_CONFIG)) if (argv[flag] !== undefined) setPath(flags, key.split('.'), argv[flag]);
  return loadConfig({ cwd: state.io.cwd, env: state.io.env, configFile, flags, checkFiles: options.checkFiles !== false }).config;
}
