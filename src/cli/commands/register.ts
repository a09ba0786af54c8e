// `obflow register`: dynamic client registration v3.2 with a PS256-signed JWT over mTLS; stores the client (0600).

import { defineCommand } from '../command.js';
import type { CommandState } from '../context.js';
import { openCommand, sessionSeams } from '../context.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ObflowError } from '../../errors.js';

/** The secret of `--client-id`: the file named by --client-secret-file, else OBFLOW_CLIENT_SECRET, else none. */
async function clientSecretOf(state: CommandState, file: unknown): Promise<string | undefined> {
  if (typeof file === 'string') {
    try {
      return (await readFile(resolve(state.io.cwd, file), 'utf8')).trim();
    } catch (cause) {
      throw new ObflowError('ERR_FILE_UNREADABLE', `cannot read the client secret file ${file}`, { hint: 'Name a readable file.', cause });
    }
  }
  const value = state.io.env.OBFLOW_CLIENT_SECRET;
  return value === undefined || value === '' ? undefined : value;
}

export const registerCommand = defineCommand({
  command: 'register',
  describe: 'Register with the bank (DCR v3.2): signed JWT over mutual TLS; keeps the client id and secret',
  options: [
    {
      'dry-run': { type: 'boolean', describe: 'Print the signed JWT and its decoded header and claims; send nothing' },
      force: {
        type: 'boolean',
        describe: 'Register again (or, with --client-id, store another client) even if a client is stored for this statement and target',
      },
    },
    'profile',
    'fapi',
    // The families the client will call: their scopes are asked and their roles checked against the statement.
    'apis',
    {
      'client-id': {
        type: 'string',
        describe: 'Store a client registered elsewhere (portal, CI secret) without calling the bank; its secret from OBFLOW_CLIENT_SECRET',
      },
      show: { type: 'boolean', describe: "Print the bank's record of the stored client (DCR v3.2 GET /register/{ClientId})" },
      update: {
        type: 'boolean',
        describe: 'Send the registration again for the stored client (DCR v3.2 PUT /register/{ClientId})',
      },
      delete: {
        type: 'boolean',
        describe: 'Delete the stored client at the bank and here (DCR v3.2 DELETE /register/{ClientId})',
      },
      'client-secret-file': {
        type: 'string',
        describe: 'With --client-id: a file holding the client secret (instead of OBFLOW_CLIENT_SECRET)',
      },
    },
  ],
  // One of show, update and delete at a time, and none of them with what only a new registration takes.
  refine: (yargs) =>
    yargs
      .conflicts('show', ['update', 'delete', 'client-id', 'dry-run', 'force'])
      .conflicts('update', ['delete', 'client-id', 'dry-run', 'force'])
      .conflicts('delete', ['client-id', 'dry-run', 'force']),
  examples: [
    ['$0 register --dry-run', 'show exactly what would be sent'],
    ['$0 register --config obflow.config.json', "register with a real bank's sandbox"],
    ['$0 register --show', "the bank's record of the stored client"],
    ['OBFLOW_CLIENT_SECRET=… $0 register --client-id 5f2c…', 'reuse a client registered once (e.g. in a CI job)'],
  ],
  handler: async (argv, state) => {
    // An empty --client-id (in CI: `--client-id "$OBFLOW_CLIENT_ID"` with the secret unset) is a mistake, never "no flag".
    if (argv['client-id'] === '') {
      throw new ObflowError('ERR_USAGE', '--client-id is empty', {
        hint: 'Give the client id the bank issued (in CI the secret OBFLOW_CLIENT_ID of this bank and profile: docs/ci.md), or leave the flag out to register.',
      });
    }
    const { core, config, overrides } = await openCommand(state, argv);
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      if (typeof argv['client-id'] === 'string') {
        const secret = await clientSecretOf(state, argv['client-secret-file']);
        const { registration, path } = await core.externalRegistrationStage(session, {
          clientId: argv['client-id'],
          force: argv.force === true,
          ...(secret !== undefined ? { clientSecret: secret } : {}),
        });
        state.output.result({
          status: 'stored',
          client_id: registration.client_id,
          target: registration.target,
          profile: registration.profile,
          file: path,
        });
        state.output.line(
          `stored client ${registration.client_id} for ${registration.auth_url} (in ${path}, mode 0600); the bank was not called`,
        );
        return;
      }
      const action = argv.show === true ? 'show' : argv.update === true ? 'update' : argv.delete === true ? 'delete' : undefined;
      if (action !== undefined) {
        // The bank's record without its secrets (src/registration/manage.ts shownRegistration).
        const shown = await core.manageRegistrationStage(session, action);
        state.output.result({
          status: action === 'delete' ? 'deleted' : action === 'update' ? 'updated' : 'shown',
          registration: shown ?? null,
        });
        state.output.line(action === 'delete' ? 'deleted the client at the bank and here' : JSON.stringify(shown, null, 2));
        return;
      }
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
