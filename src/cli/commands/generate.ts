// `obflow generate`: write the Postman v2.1 collections (one per flow step + the whole flow), deterministically.

import type { CommandModule } from 'yargs';
import type { CommandState } from '../context.js';
import { openLightCommand } from '../context.js';

export const generateCommand = (state: CommandState): CommandModule => ({
  command: 'generate',
  describe: 'Write the Postman collections for every step of the account-information flow',
  builder: (yargs) =>
    yargs
      .option('out-collections', { type: 'string', describe: 'Output folder (default: collections)' })
      .example('$0 generate', 'write collections/*.postman_collection.json')
      .example('$0 generate --out-collections /tmp/c --json', 'elsewhere, listing the files as JSON'),
  handler: async (argv) => {
    const { core, config } = await openLightCommand(state, argv);
    const { paths: files, written } = await core.generateStage(config.output.collections, {
      par: core.parForGeneration(config),
      jarm: config.flow.jarm,
    });
    state.output.result({ files, written });
    state.output.line(
      written
        ? `wrote ${files.length} collections to ${config.output.collections}`
        : `${files.length} collections in ${config.output.collections} are current (same inputs; nothing rewritten)`,
    );
  },
});
