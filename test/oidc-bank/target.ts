// The suite's oidc-provider bank as obflow meets it: started with the test identity's certificates and directory
// keys, and a folder whose obflow.config.json points target "bank" at it (the same block every such test wrote).

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { TestIdentity } from '../helpers/identity.js';
import { startOidcBank, type OidcBank, type OidcBankOptions } from './index.js';

/** The bank serving the test identity's server certificate, trusting its CAs and its directory's keys. */
export function startBankFor(identity: TestIdentity, options: Pick<OidcBankOptions, 'profile' | 'requirePar'>): Promise<OidcBank> {
  return startOidcBank({
    ...options,
    tls: { cert: identity.pem.serverCert, key: identity.pem.serverKey, clientCa: [identity.pem.rootCa, identity.pem.issuingCa] },
    directoryJwks: identity.directoryJwks,
  });
}

/** Writes `cwd`/obflow.config.json: target "bank" at `bank`, state, collections and reports inside `cwd`; `extra`
 *  adds bank keys and other sections (flow, registration). */
export async function writeBankConfig(
  cwd: string,
  bank: OidcBank,
  identity: TestIdentity,
  extra: { bank?: Record<string, unknown>; [section: string]: unknown } = {},
): Promise<void> {
  const { bank: bankKeys, ...sections } = extra;
  const config = {
    target: 'bank',
    stateDir: join(cwd, 'state'),
    output: { collections: join(cwd, 'collections'), reports: join(cwd, 'reports') },
    bank: {
      name: 'oidc-bank',
      sandbox_base_url: bank.url,
      auth_url: bank.url,
      server_ca: identity.paths.directoryRoots.concat(identity.paths.directoryIssuing),
      ...bankKeys,
    },
    identity: identity.paths,
    ...sections,
  };
  await writeFile(join(cwd, 'obflow.config.json'), JSON.stringify(config));
}
