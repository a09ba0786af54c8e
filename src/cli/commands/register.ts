// `obflow register`: dynamic client registration v3.2 with a PS256-signed JWT over mTLS; stores the client (0600).

import type { CommandModule } from 'yargs';
import type { CommandState } from '../context.js';
import { openCommand, sessionSeams } from '../context.js';

export const registerCommand = (state: CommandState): CommandModule => ({
  command: 'register',
  describe: 'Register with the bank (DCR v3.2): signed JWT over mutual TLS; keeps the client id and secret',
  builder: (yargs) =>
    yargs
      .option('dry-run', { type: 'boolean', describe: 'Print the signed JWT and its decoded header and claims; send nothing' })
      .option('force', { type: 'boolean', describe: 'Register again even if a client is stored for this statement and target' })
      .option('profile', { type: 'string', describe: 'Sandbox client profile (strict|permissive)-(headless|interactive)' })
      .example('$0 register --dry-run', 'show exactly what would be sent')
      .example('$0 register --config obflow.config.json', "register with a real bank's sandbox"),
  handler: async (argv) => {
    const { core, config, overrides } = await openCommand(state, argv);
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      const result = await core.registerStage(session, { force: argv.force === true, dryRun: argv['dry-run'] === true });
      if (result.kind === 'dry-run') {
        const { jwt, header, claims } = result.request;
        state.output.result({ jwt, header, claims });
        if (!state.output.json)
          state.io.stdout.write(`${jwt}\n\nheader: ${JSON.stringify(header, null, 2)}\nclaims: ${JSON.stringify(claims, null, 2)}\n`);
        return;
      }
      const { registration, path } = result;
      state.output.result({
        status: result.kind,
        client_id: registration.client_id,
        target: registration.target,
        profile: registration.profile,
        auth_url: registration.auth_url,
        file: path,
      });
      state.output.line(
        `${result.kind === 'reused' ? 're-using' : 'registered'} client ${registration.client_id} at ${registration.auth_url} (stored in ${path}, mode 0600)`,
      );
    } finally {
      await session.close();
    }
  },
});
