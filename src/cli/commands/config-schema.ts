// `obflow config-schema`: print (or write) the JSON Schema of obflow.config.json, generated from the config schema.

import { ObflowError } from '../../errors.js';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { loadLightCore } from '../context.js';

export const configSchemaCommand = defineCommand({
  command: 'config-schema',
  describe: 'Print the JSON Schema of obflow.config.json (for editors)',
  options: [{ write: { type: 'string', describe: 'Write it to this file instead of printing it' } }],
  examples: [['$0 config-schema --write obflow.config.schema.json', 'refresh the published schema']],
  handler: async (argv, state) => {
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
