// The command modules of the CLI, in the order `obflow --help` lists them (the flow's order).

import type { CommandModule } from 'yargs';
import type { CommandState } from '../context.js';
import { configSchemaCommand } from './config-schema.js';

export type CommandFactory = (state: CommandState) => CommandModule;

const factories: CommandFactory[] = [configSchemaCommand];

export function commandModules(state: CommandState): CommandModule[] {
  return factories.map((factory) => factory(state));
}
