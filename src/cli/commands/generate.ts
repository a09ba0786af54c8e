// `obflow generate`: write the Postman v2.1 collections (one per flow step + the whole flow), deterministically.

import { defineCommand } from '../command.js';
import { openLightCommand } from '../context.js';
import { familiesOf } from '../../api-families.js';
import { apiLabel, assertOneVersion } from '../../generate/api-versions.js';

export const generateCommand = defineCommand({
  command: 'generate',
  describe: 'Write the Postman collections for every step of the flow of each API family (flow.apis)',
  options: ['api-version', 'apis', 'fapi', 'out-collections'],
  examples: [
    ['$0 generate', 'write collections/*.postman_collection.json'],
    ['$0 generate --out-collections /tmp/c --json', 'elsewhere, listing the files as JSON'],
    ['$0 generate --api-version 4.0', 'the AIS v4.0 collections, in collections/v4.0/'],
    ['$0 generate --apis payments,funds', 'the payments and funds collections, in collections/payments/ and collections/funds/'],
  ],
  handler: async (argv, state) => {
    const { core, config, overrides } = await openLightCommand(state, argv);
    assertOneVersion(overrides.apiVersions, 'generate');
    const version = config.flow.apiVersion;
    const par = core.parForGeneration(config, await core.savedDiscoveryRequiresPar(config));
    const files: string[] = [];
    let written = false;
    for (const family of familiesOf(config.flow.apis)) {
      const generated = await core.generateStage(config.output.collections, {
        version,
        family,
        par,
        jarm: config.flow.jarm,
        fapi: config.flow.fapi,
        vrp: config.flow.vrp,
      });
      files.push(...generated.paths);
      written ||= generated.written;
      const dir = core.collectionsDirOf(config.output.collections, version, family);
      const api = apiLabel(family, version);
      state.output.line(
        generated.written
          ? `wrote ${generated.paths.length} ${api} collections to ${dir}`
          : `${generated.paths.length} ${api} collections in ${dir} are current (same inputs; nothing rewritten)`,
      );
    }
    state.output.result({ files, written });
  },
});
