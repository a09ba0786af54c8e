// Which identity a command uses: the local test identity in the state folder for the embedded sandbox, or the TPP's
// own files named by the config for a real bank.

import { join } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import type { IdentityPaths, LocalIdentityManifest } from '../pki/types.js';

export function localIdentityDir(config: ObflowConfig): string {
  return join(config.stateDir, 'identity');
}

export interface ResolvedIdentity {
  paths: IdentityPaths;
  /** Present for the local test identity (target sandbox). */
  local?: { dir: string; manifest: LocalIdentityManifest };
}

export async function resolveIdentity(config: ObflowConfig): Promise<ResolvedIdentity> {
  if (config.target === 'sandbox') {
    const { loadLocalIdentity } = await import('../pki/manifest.js');
    const dir = localIdentityDir(config);
    const { manifest, paths } = await loadLocalIdentity(dir);
    return { paths, local: { dir, manifest } };
  }
  const id = config.identity;
  if (!id) throw new TypeError('config validation guarantees identity for target bank');
  const transport: IdentityPaths['transport'] =
    'pfx' in id.transport
      ? { pfx: id.transport.pfx, ...(id.transport.passphrase === undefined ? {} : { passphrase: id.transport.passphrase }) }
      : { cert: id.transport.cert, key: id.transport.key };
  return {
    paths: {
      softwareStatement: id.softwareStatement,
      transport,
      signing: { key: id.signing.key, kid: id.signing.kid },
      directoryRoots: id.directoryRoots,
      directoryIssuing: id.directoryIssuing,
      directoryJwks: id.directoryJwks,
      redirectUris: id.redirectUris,
    },
  };
}
