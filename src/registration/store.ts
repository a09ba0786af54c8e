// Registrations kept in the state folder (they hold the client secret: mode 0600, atomic), one file per software id +
// target + profile, so registering twice re-uses the client unless forced (docs/bank-interface.md §5.2: register once).

import { readFile } from 'node:fs/promises';
import { DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD } from '../client-auth.js';
import { ObflowError } from '../errors.js';
import { DEFAULT_FAPI_PROFILE, FAPI_PROFILES, type FapiProfile, type FapiProfileName } from '../fapi-profile.js';
import { writeFileAtomic } from '../fs.js';
import { stateLayout, type RegistrationKey } from '../state/layout.js';
import type { TokenEndpointAuthMethod } from './claims.js';
import type { RegistrationResponse } from './register.js';

export type { RegistrationKey } from '../state/layout.js';

export interface StoredRegistration {
  version: 1;
  software_id: string;
  target: string;
  profile: string;
  /** The `aud` it was registered for and where. */
  auth_url: string;
  registration_endpoint: string;
  registered_at: string;
  client_id: string;
  client_secret?: string;
  /** How the client authenticates at the token endpoint, as registered (absent in older files: client_secret_basic). */
  token_endpoint_auth_method?: TokenEndpointAuthMethod;
  /** How its request objects are signed, as registered (absent in older files: none). */
  request_object_signing_alg?: 'none' | 'PS256';
  /** The FAPI profile it was registered under (flow.fapi); absent: the default profile (FAPI 1 Advanced), as every
   *  file written before the setting, and every default-profile registration since (byte for byte as before). */
  fapi?: FapiProfileName;
  /** The bank's full registration response (RFC 7591 §3.2.1). */
  metadata: RegistrationResponse;
}

/** The row of the profile a stored client was registered under (what its bank requires of its assertions). */
export function profileOfRegistration(registration: Pick<StoredRegistration, 'fapi'>): FapiProfile {
  return FAPI_PROFILES[registration.fapi ?? DEFAULT_FAPI_PROFILE];
}

/** The stored form of a profile: its name, left out for the default profile. */
export function storedProfile(fapi: FapiProfile): Pick<StoredRegistration, 'fapi'> {
  return fapi.name === DEFAULT_FAPI_PROFILE ? {} : { fapi: fapi.name };
}

export function registrationPath(stateDir: string, key: RegistrationKey): string {
  return stateLayout(stateDir).registration(key);
}

export async function readStoredRegistration(stateDir: string, key: RegistrationKey): Promise<StoredRegistration | undefined> {
  const path = registrationPath(stateDir, key);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ObflowError('ERR_FILE_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, {
      hint: 'Check the state folder permissions, or register again with --force.',
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} is not valid JSON`, { hint: 'Register again with --force.', cause: error });
  }
  const record = parsed as Partial<StoredRegistration>;
  if (record.version !== 1 || typeof record.client_id !== 'string' || record.software_id !== key.softwareId) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} is not an obflow registration`, { hint: 'Register again with --force.' });
  }
  return record as StoredRegistration;
}

/** Like readStoredRegistration, but a missing registration is ERR_NOT_REGISTERED (for `environment` and `run`). */
export async function requireStoredRegistration(stateDir: string, key: RegistrationKey): Promise<StoredRegistration> {
  const record = await readStoredRegistration(stateDir, key);
  if (record === undefined) {
    throw new ObflowError('ERR_NOT_REGISTERED', `no registration for software ${key.softwareId} at ${key.target} (${key.profile})`, {
      hint: 'Run `obflow register` first.',
    });
  }
  return record;
}

export async function writeStoredRegistration(stateDir: string, record: StoredRegistration): Promise<string> {
  const path = registrationPath(stateDir, { softwareId: record.software_id, target: record.target, profile: record.profile });
  await writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, { secret: true });
  return path;
}

/** The method a stored registration authenticates with (older files: client_secret_basic, §2.1). */
export function authMethodOf(registration: Pick<StoredRegistration, 'token_endpoint_auth_method'>): TokenEndpointAuthMethod {
  return registration.token_endpoint_auth_method ?? DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD;
}
