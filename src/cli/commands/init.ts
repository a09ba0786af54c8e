// `obflow init`: issue the local test identity (trust directory, transport certificate, signing key, software
// statement, emulator server certificate) into the state folder and name every file written.

import { defineCommand } from '../command.js';
import { openCommand } from '../context.js';
import { resolve } from 'node:path';

export const initCommand = defineCommand({
  command: 'init',
  describe: 'Create the local test identity (directory CAs, transport cert, signing key, software statement)',
  options: [{ force: { type: 'boolean', describe: 'Replace an existing identity' } }],
  examples: [
    ['$0 init', 'issue a test identity into .obflow/identity'],
    ['$0 init --json', 'name every file as one JSON object, for scripts'],
  ],
  handler: async (argv, state) => {
    const { core, config } = await openCommand(state, argv);
    const dir = core.localIdentityDir(config);
    await core.protectStateDir(config.stateDir);
    const manifest = await core.issueLocalIdentity({ dir, overwrite: argv.force === true });
    // Every file written: the identity's own, the directory's private material (it issues further statements), and
    // the manifest that names them all.
    const written: [string, string][] = [
      ...Object.entries(manifest.files),
      ...Object.entries(manifest.directory_private ?? {}).map(([name, rel]): [string, string] => [`directory_private_${name}`, rel]),
      ['manifest', core.MANIFEST_FILE],
    ];
    const files = Object.fromEntries(written.map(([name, rel]) => [name, resolve(dir, rel)]));
    state.output.result({ dir, software_id: manifest.software_id, org_id: manifest.org_id, kid: manifest.kid, files });
    state.output.line(`issued a test identity for software statement ${manifest.software_id} (kid ${manifest.kid}) in ${dir}:`);
    for (const [name, path] of Object.entries(files)) state.output.line(`  ${name.padEnd(38)} ${path}`);
  },
});
