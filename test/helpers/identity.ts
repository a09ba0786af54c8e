// Test identities from the local trust directory, issued once per test process (RSA key generation is slow):
// 'default', further TPPs under the same directory (e.g. 'second-tpp'), and a foreign identity from another directory.

import { rmSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { issueLocalIdentity, type IssueLocalIdentityOptions } from '../../src/pki/issue.js';
import { identityPathsFromManifest } from '../../src/pki/manifest.js';
import type { IdentityPaths, LocalIdentityManifest, PublicJwk } from '../../src/pki/types.js';
import { processAlive as alive } from '../../src/state/addresses.js';

export interface TestIdentity {
  dir: string;
  manifest: LocalIdentityManifest;
  paths: IdentityPaths;
  pem: {
    rootCa: string;
    issuingCa: string;
    serverCert: string;
    serverKey: string;
    transportCert: string;
    transportKey: string;
    signingKey: string;
  };
  directoryJwks: { keys: PublicJwk[] };
  signingJwks: { keys: PublicJwk[] };
  /** The software statement assertion (compact JWT, no trailing newline). */
  softwareStatement: string;
}

let root: Promise<string> | undefined;
const cache = new Map<string, Promise<TestIdentity>>();

const PREFIX = 'obflow-test-identity-';

/** Test workers are often ended by a signal, so 'exit' cleanup does not always run: remove folders of dead pids. */
async function removeStaleRoots(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^obflow-test-identity-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid)) {
      await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/** One temp folder per test process (named after its pid), removed when the process exits or by a later process. */
function workRoot(): Promise<string> {
  root ??= (async () => {
    await removeStaleRoots();
    const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })();
  return root;
}

/** Reads back everything an identity folder holds, as tests want it. */
export async function readTestIdentity(dir: string, manifest: LocalIdentityManifest): Promise<TestIdentity> {
  const text = (rel: string): Promise<string> => readFile(join(dir, rel), 'utf8');
  const f = manifest.files;
  return {
    dir,
    manifest,
    paths: identityPathsFromManifest(dir, manifest),
    pem: {
      rootCa: await text(f.directory_root_ca),
      issuingCa: await text(f.directory_issuing_ca),
      serverCert: await text(f.server_certificate),
      serverKey: await text(f.server_key),
      transportCert: await text(f.transport_certificate),
      transportKey: await text(f.transport_key),
      signingKey: await text(f.signing_key),
    },
    directoryJwks: JSON.parse(await text(f.directory_jwks)) as { keys: PublicJwk[] },
    signingJwks: JSON.parse(await text(f.signing_jwks)) as { keys: PublicJwk[] },
    softwareStatement: (await text(f.software_statement)).trim(),
  };
}

async function issue(name: string, directoryFrom: string | undefined): Promise<TestIdentity> {
  const dir = join(await workRoot(), name);
  const manifest = await issueLocalIdentity(directoryFrom === undefined ? { dir } : { dir, directoryFrom });
  return readTestIdentity(dir, manifest);
}

/**
 * The identity called `name`, issued once per test process. 'default' creates the local trust directory; any other
 * name (e.g. 'second-tpp') is another TPP of that same directory: its own statement, transport certificate and
 * signing key, the same CAs, directory JWKS and emulator server certificate.
 */
export function getTestIdentity(name = 'default'): Promise<TestIdentity> {
  let identity = cache.get(name);
  if (identity === undefined) {
    identity = name === 'default' ? issue('default', undefined) : getTestIdentity('default').then((base) => issue(`tpp-${name}`, base.dir));
    cache.set(name, identity);
  }
  return identity;
}

/** A complete identity from an unrelated trust directory: its CA is not trusted and its SSA key is unknown. */
export function getForeignIdentity(): Promise<TestIdentity> {
  let identity = cache.get('\0foreign');
  if (identity === undefined) {
    identity = issue('foreign', undefined);
    cache.set('\0foreign', identity);
  }
  return identity;
}

/** A fresh folder under this process's identity root (removed with it), for tests that write files. */
export async function scratchDir(label: string): Promise<string> {
  return mkdtemp(join(await workRoot(), `${label}-`));
}

/**
 * A one-off identity issued by the default test directory with options (not memoised): e.g. an expired transport
 * certificate (`transportValidity`), an expired statement (`statementExpiresAt`), other redirect URIs or roles.
 */
export async function issueVariantIdentity(options: Omit<IssueLocalIdentityOptions, 'dir' | 'directoryFrom'>): Promise<TestIdentity> {
  const base = await getTestIdentity();
  const dir = await scratchDir('variant');
  const manifest = await issueLocalIdentity({ ...options, dir, directoryFrom: base.dir });
  return readTestIdentity(dir, manifest);
}
