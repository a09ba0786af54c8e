// `obflow environment`: download the bank's helper environment for the client and merge it with obflow's variables.

import { isAbsolute, relative } from 'node:path';
import type { PostmanCertificates } from '../../pipeline/environment.js';
import { defineCommand } from '../command.js';
import { openCommand, sessionSeams } from '../context.js';

export const environmentCommand = defineCommand({
  command: 'environment',
  describe: "Download the bank's environment file for the client and merge it into one Postman environment",
  // The families' variables are the environment's (a payment's state, the signing variables of a family that signs).
  options: ['profile', 'response-type', 'fapi', 'psu-user', 'apis'],
  examples: [
    ['$0 environment', 'write .obflow/environments/<target>-<profile>.postman_environment.json'],
    ['$0 environment --response-type code', 'plain authorization code flow'],
  ],
  handler: async (argv, state) => {
    const { core, config, overrides } = await openCommand(state, argv);
    const session = await core.openSession(config, overrides, { seams: sessionSeams(state) });
    try {
      const { path, environment } = await core.environmentStage(session, await core.storedRegistration(session));
      const certificates = core.postmanCertificates(session, environment);
      state.output.result({ file: path, variables: environment.values.length, postmanCertificates: certificates });
      const held = core.environmentSecretsHeld(environment);
      state.output.line(
        `wrote ${path} (${environment.values.length} variables; ` +
          (held.length === 0
            ? 'no client secret or key in it: the transport certificate is the credential)'
            : `it holds ${held.join(' and ')}: keep it out of version control)`),
      );
      for (const line of postmanLines(certificates, state.io.cwd)) state.output.line(line);
    } finally {
      await session.close();
    }
  },
});

/** The client certificate settings for the Postman app, one row per bank origin (docs/postman-certificates.md): what
 *  the workspace's guide shows, for this config's own hosts and files. Paths relative to the working folder. */
export function postmanLines(certificates: PostmanCertificates, cwd: string): string[] {
  const shown = (path: string) => {
    const near = relative(cwd, path);
    return near !== '' && !near.startsWith('..') && !isAbsolute(near) ? near : path;
  };
  const files =
    'pfx' in certificates.transport
      ? `PFX file ${shown(certificates.transport.pfx)} (its passphrase in Postman's Passphrase field)`
      : `CRT file ${shown(certificates.transport.cert)}, KEY file ${shown(certificates.transport.key)}`;
  const width = Math.max(...certificates.rows.map((row) => row.role.length));
  return [
    'Postman (Settings → Certificates → Add Certificate, one per row; host and port exactly as shown; docs/postman-certificates.md):',
    ...certificates.rows.map((row) => `  ${row.role.padEnd(width)}  host ${row.host}  port ${row.port}  ${files}`),
    certificates.ca.length === 0
      ? "  CA certificates: off (the bank's server certificate is from a public CA your system trusts)"
      : `  CA certificates: on, PEM file ${certificates.ca.map(shown).join(' + ')}` +
        (certificates.ca.length > 1 ? ' (Postman takes one file: put them in one, e.g. `cat` them into bank-ca.pem)' : ''),
    '  Settings → General → SSL certificate verification: on',
  ];
}
