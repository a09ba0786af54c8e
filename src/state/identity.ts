// Which identity a command uses: the local test identity in the state folder for the embedded sandbox, or the TPP's
// own files named by the config for a real bank.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import type * as IssueModule from '../pki/issue.js';
import { readMaterialFile } from '../pki/load.js';
import { loadLocalIdentity, MANIFEST_FILE } from '../pki/manifest.js';
import type { IdentityPaths, LocalIdentityManifest } from '../pki/types.js';
import { stateLayout } from './layout.js';
import { protectStateDir } from './protect.js';

export function localIdentityDir(config: Pick<ObflowConfig, 'stateDir'>): string {
  return stateLayout(config.stateDir).identity;
}

/** Issues a local test identity. Its module (@peculiar/x509 and its ASN.1 stack, ~0.2 s to load) loads only when an
 *  identity is issued: a start with the identity present never pays for it. */
export async function issueLocalIdentity(
  ...args: Parameters<typeof IssueModule.issueLocalIdentity>
): ReturnType<typeof IssueModule.issueLocalIdentity> {
  return (await import('../pki/issue.js')).issueLocalIdentity(...args);
}

/** Issues the local test identity unless the state folder has one; returns the new manifest, or undefined if kept. */
export async function ensureLocalIdentity(config: ObflowConfig): Promise<LocalIdentityManifest | undefined> {
  await protectStateDir(config.stateDir);
  const dir = localIdentityDir(config);
  if (existsSync(resolve(dir, MANIFEST_FILE))) return undefined;
  return issueLocalIdentity({ dir });
}

/** One file of the local identity (a manifest key), as text; missing or unreadable → a coded error naming it. */
export async function readLocalIdentityFile(local: LocalIdentity, name: keyof LocalIdentityManifest['files']): Promise<string> {
  return (await readMaterialFile(resolve(local.dir, local.manifest.files[name]), `local identity ${name}`)).toString('utf8');
}

export interface LocalIdentity {
  dir: string;
  manifest: LocalIdentityManifest;
}

export interface ResolvedIdentity {
  paths: IdentityPaths;
  /** Present for the local test identity (target sandbox). */
  local?: LocalIdentity;
}

export async function resolveIdentity(config: ObflowConfig): Promise<ResolvedIdentity> {
  if (config.target === 'sandbox') {
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
