// The command modules of the CLI, in the order `obflow --help` lists them (the flow's order).

import type { CommandModule } from 'yargs';
import type { CommandFactory } from '../command.js';
import type { CommandState } from '../context.js';
import { configSchemaCommand } from './config-schema.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { environmentCommand } from './environment.js';
import { generateCommand } from './generate.js';
import { initCommand } from './init.js';
import { registerCommand } from './register.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { sandboxCommand } from './sandbox.js';
import { workspaceCommand } from './workspace.js';

const factories: CommandFactory[] = [
  initCommand,
  doctorCommand,
  sandboxCommand,
  registerCommand,
  environmentCommand,
  generateCommand,
  runCommand,
  workspaceCommand,
  reportCommand,
  demoCommand,
  configSchemaCommand,
];

export function commandModules(state: CommandState): CommandModule[] {
  return factories.map((factory) => factory(state));
}
