// `obflow config-schema`: print (or write) the JSON Schema of obflow.config.json, generated from the config schema.

import type { CommandModule } from 'yargs';
import { ObflowError } from '../../errors.js';
import { resolve } from 'node:path';
import { loadLightCore, type CommandState } from '../context.js';

export const configSchemaCommand = (state: CommandState): CommandModule => ({
  command: 'config-schema',
  describe: 'Print the JSON Schema of obflow.config.json (for editors)',
  builder: (yargs) =>
    yargs
      .option('write', { type: 'string', describe: 'Write it to this file instead of printing it' })
      .example('$0 config-schema --write obflow.config.schema.json', 'refresh the published schema'),
  handler: async (argv) => {
    if (argv.write === '') {
      throw new ObflowError('ERR_USAGE', '--write needs a file name', { hint: 'obflow config-schema --write obflow.config.schema.json' });
    }
    const core = await loadLightCore();
    const text = `${JSON.stringify(core.configJsonSchema(), null, 2)}\n`;
    if (typeof argv.write === 'string') {
      await core.writeFileAtomic(resolve(state.io.cwd, argv.write), text);
      state.output.line(`wrote ${argv.write}`);
    } else {
      state.io.stdout.write(text);
    }
  },
});
