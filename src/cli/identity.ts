// Which identity a command uses: the local test identity in the state folder for the embedded sandbox, or the TPP's
// own files named by the config for a real bank.

import { join } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import type { IdentityPaths, LocalIdentityManifest } from '../pki/types.js';

export function localIdentityDir(config: ObflowConfig): string {
  return join(config.stateDir, 'identity');
}

/** Issues the local test identity unless the state folder has one; returns the new manifest, or undefined if kept. */
export async function ensureLocalIdentity(config: ObflowConfig): Promise<LocalIdentityManifest | undefined> {
  const { existsSync } = await import('node:fs');
  const { protectStateDir } = await import('./session.js');
  await protectStateDir(config.stateDir);
  if (existsSync(join(localIdentityDir(config), 'identity.json'))) return undefined;
  const { issueLocalIdentity } = await import('../pki/issue.js');
  return issueLocalIdentity({ dir: localIdentityDir(config) });
}

/** One file of the local identity (a manifest key), as text; missing or unreadable → a coded error naming it. */
export async function readLocalIdentityFile(local: { dir: string; manifest: LocalIdentityManifest }, name: keyof LocalIdentityManifest['files']): Promise<string> {
  const { resolve } = await import('node:path');
  const { readMaterialFile } = await import('../pki/load.js');
  return (await readMaterialFile(resolve(local.dir, local.manifest.files[name]), `local identity ${name}`)).toString('utf8');
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
