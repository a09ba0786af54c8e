// Reads and validates the local identity manifest (`identity.json`) and turns its relative paths into IdentityPaths.

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { ObflowError } from '../errors.js';
import type { IdentityPaths, LocalIdentityManifest } from './types.js';

export const MANIFEST_FILE = 'identity.json';

const FILE_KEYS = [
  'directory_root_ca',
  'directory_issuing_ca',
  'directory_jwks',
  'transport_certificate',
  'transport_key',
  'signing_key',
  'signing_jwks',
  'software_statement',
  'server_certificate',
  'server_key',
] as const satisfies readonly (keyof LocalIdentityManifest['files'])[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Structural check of a parsed manifest; returns the first problem as a dotted path, or undefined. */
export function manifestProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the manifest is not a JSON object';
  if (value.version !== 1) return 'version must be 1';
  for (const key of ['software_id', 'org_id', 'kid'] as const) {
    if (typeof value[key] !== 'string') return `${key} must be a string`;
  }
  if (!isStringArray(value.redirect_uris)) return 'redirect_uris must be an array of strings';
  const files = value.files;
  if (!isRecord(files)) return 'files must be an object';
  for (const key of FILE_KEYS) {
    if (typeof files[key] !== 'string') return `files.${key} must be a string`;
  }
  return undefined;
}

/** The IdentityPaths (absolute) of a local identity folder described by `manifest`. */
export function identityPathsFromManifest(dir: string, manifest: LocalIdentityManifest): IdentityPaths {
  const at = (rel: string): string => resolve(dir, rel);
  return {
    softwareStatement: at(manifest.files.software_statement),
    transport: { cert: at(manifest.files.transport_certificate), key: at(manifest.files.transport_key) },
    signing: { key: at(manifest.files.signing_key), kid: manifest.kid },
    directoryRoots: [at(manifest.files.directory_root_ca)],
    directoryIssuing: [at(manifest.files.directory_issuing_ca)],
    directoryJwks: at(manifest.files.directory_jwks),
    redirectUris: [...manifest.redirect_uris],
  };
}

/**
 * Loads the local identity that `obflow init` wrote into `identityDir` (its `identity.json`; the state folder's
 * `identity/`, src/state/layout.ts).
 * Missing → ERR_IDENTITY_MISSING; unreadable or malformed manifest → ERR_FILE_UNREADABLE naming the file (and the field).
 */
export async function loadLocalIdentity(identityDir: string): Promise<{ manifest: LocalIdentityManifest; paths: IdentityPaths }> {
  const dir = resolve(identityDir);
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const missing = (cause as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ObflowError(
      missing ? 'ERR_IDENTITY_MISSING' : 'ERR_FILE_UNREADABLE',
      missing ? `no local identity at ${file}` : `the local identity file ${file} cannot be read (${(cause as Error).message})`,
      {
        hint: missing ? 'run `obflow init` to issue a local test identity' : `check the permissions of ${file}`,
        cause,
      },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `the local identity file ${file} is not valid JSON`, {
      hint: 'run `obflow init --force` to issue a fresh local identity',
      cause,
    });
  }
  const problem = manifestProblem(parsed);
  if (problem !== undefined) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `the local identity file ${file} is damaged: ${problem}`, {
      hint: 'run `obflow init --force` to issue a fresh local identity',
    });
  }
  const manifest = parsed as LocalIdentityManifest;
  return { manifest, paths: identityPathsFromManifest(dir, manifest) };
}
