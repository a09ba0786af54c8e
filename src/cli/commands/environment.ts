// `obflow environment`: download the bank's helper environment for the client and merge it with obflow's variables.

import type { CommandModule } from 'yargs';
import { FAPI_OPTION, RESPONSE_TYPE_OPTION } from '../../fapi-profile.js';
import type { CommandState } from '../context.js';
import { openCommand, sessionSeams } from '../context.js';

export const environmentCommand = (state: CommandState): CommandModule => ({
  command: 'environment',
  describe: "Download the bank's environment file for the client and merge it into one Postman environment",
  builder: (yargs) =>
    yargs
      .option('profile', { type: 'string', describe: 'Sandbox client profile' })
      .option('response-type', RESPONSE_TYPE_OPTION)
      .option('fapi', FAPI_OPTION)
      .option('psu-user', { type: 'string', describe: 'Test user who consents (login_hint)' })
      .example('$0 environment', 'write .obflow/environments/<target>-<profile>.postman_environment.json')
      .example('$0 environment --response-type code', 'plain authorization code flow'),
  handler: async (argv) => {
    const { core, config, overrides } = await openCommand(state, argv);
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      const { path, environment } = await core.environmentStage(session, await core.storedRegistration(session));
      state.output.result({ file: path, variables: environment.values.length });
      state.output.line(
        `wrote ${path} (${environment.values.length} variables; it holds the client secret: keep it out of version control)`,
      );
    } finally {
      await session.close();
    }
  },
});
