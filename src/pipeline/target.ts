// The bank a command talks to, resolved once: the embedded sandbox (its addresses from the running emulator) or a real
// bank's addresses from the config (docs/bank-interface.md placeholders {sandbox_base_url}, {base_url}, {auth_url}).

import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import type { SandboxAddresses } from '../state/addresses.js';
import { environmentHelperUrl } from '../environment/download.js';
import { registrationEndpointOf } from '../registration/register.js';

export interface Target {
  /** Registration key and file names: `sandbox`, or the bank's name. */
  name: string;
  /** The sandbox client profile, or the bank environment (`sandbox`/`production`). */
  profile: string;
  authUrl: string;
  discoveryUrl: string;
  registrationEndpoint: string;
  environmentHelperUrl: string;
  /** The registration JWT's `aud` when the bank expects another form than {auth_url} (bank.registration_aud). */
  registrationAudience?: string;
  /** A token endpoint the config names ({token_url}); else the one discovery publishes. */
  tokenUrl?: string;
  /** The resource server origin the AIS calls go to (overrides the helper file's `rs` for production). */
  resourceBaseUrl: string;
  /** PEM texts that verify the bank's server certificates; empty → the system roots. */
  serverCaPem: string[];
  insecure: boolean;
  /** How the PSU consents: one redirect (headless), the sandbox pages in Chromium (browser), or a person at any browser
   *  who pastes the redirect back (manual). */
  consent: 'headless' | 'browser' | 'manual';
}

/** The sandbox's public test users (README) and their passwords: the PSU is one of them in every flow (login_hint
 *  when headless, the login page when in the browser). */
export const SANDBOX_TEST_USERS: Readonly<Record<string, string>> = { alex: 'alex-sandbox-1', sam: 'sam-sandbox-2', jo: 'jo-sandbox-3' };

/** `flow.psuUser` must be a sandbox test user (default alex): anyone else ends as a refused consent deep in the run,
 *  so it is refused here, before any request. Returns the user and password. */
export function sandboxPsuUser(config: Pick<ObflowConfig, 'flow'>): { username: string; password: string } {
  const username = config.flow.psuUser ?? 'alex';
  const password = Object.hasOwn(SANDBOX_TEST_USERS, username) ? SANDBOX_TEST_USERS[username] : undefined;
  if (password === undefined) {
    throw new ObflowError('ERR_CONFIG_INVALID', `flow.psuUser "${username}" is not a sandbox test user`, {
      hint: `Use one of: ${Object.keys(SANDBOX_TEST_USERS).join(', ')} (--psu-user).`,
    });
  }
  return { username, password };
}

export function sandboxTarget(config: ObflowConfig, addresses: SandboxAddresses, serverCaPem: string[]): Target {
  sandboxPsuUser(config);
  const profile = config.sandbox.profile;
  const urls = addresses.profiles[profile];
  if (!urls) {
    throw new ObflowError('ERR_REMOTE_RESPONSE', `the running sandbox has no profile ${profile}`, {
      hint: `Pick one of: ${Object.keys(addresses.profiles).join(', ')}.`,
    });
  }
  const consent = config.flow.consent === 'auto' ? (profile.endsWith('-interactive') ? 'browser' : 'headless') : config.flow.consent;
  return {
    name: 'sandbox',
    profile,
    authUrl: urls.auth_url,
    discoveryUrl: urls.discovery_url,
    registrationEndpoint: addresses.registration_endpoint,
    environmentHelperUrl: addresses.environment_helper,
    resourceBaseUrl: addresses.sandbox_base_url,
    serverCaPem,
    insecure: false,
    consent,
  };
}

/** One PEM file of `bank.server_ca` (root or issuing CA of the bank's server certificates), checked to parse as
 *  X.509 so a wrong file is named here and not as a TLS failure later. `key` is the dotted config path with index. */
async function readServerCa(file: string, key: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ObflowError('ERR_FILE_MISSING', `${key}: no file at ${file}`, {
        hint: "Point it at the bank's CA certificate (PEM); relative paths resolve from the config file's folder.",
        cause,
      });
    }
    throw new ObflowError('ERR_FILE_UNREADABLE', `${key}: cannot read ${file} (${code ?? (cause as Error).message})`, {
      hint: "Point it at a readable PEM file with the bank's CA certificate (not a folder).",
      cause,
    });
  }
  try {
    new X509Certificate(pem);
  } catch (cause) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${key}: ${file} is not a PEM certificate`, {
      hint: "Use the bank's CA certificate as PEM (-----BEGIN CERTIFICATE-----).",
      cause,
    });
  }
  return pem;
}

export async function bankTarget(config: ObflowConfig): Promise<Target> {
  const bank = config.bank;
  if (!bank) throw new TypeError('config validation guarantees bank for target bank');
  const production = bank.environment === 'production';
  const resourceBaseUrl = production ? bank.base_url : bank.sandbox_base_url;
  if (resourceBaseUrl === undefined) {
    const key = production ? 'bank.base_url' : 'bank.sandbox_base_url';
    throw new ObflowError('ERR_CONFIG_INVALID', `${key} is required for the ${bank.environment} environment`, {
      hint: `Set ${key} to the bank's resource server address.`,
    });
  }
  const base = resourceBaseUrl.replace(/\/+$/, '');
  if (bank.auth_url === undefined) throw new TypeError('config validation guarantees bank.auth_url for target bank');
  const authUrl = bank.auth_url.replace(/\/+$/, '');
  const serverCaPem = await Promise.all(bank.server_ca.map((file, index) => readServerCa(file, `bank.server_ca.${index}`)));
  return {
    name: bank.name,
    profile: bank.environment,
    authUrl,
    discoveryUrl: `${authUrl}/.well-known/openid-configuration`,
    ...(bank.token_url === undefined ? {} : { tokenUrl: bank.token_url }),
    ...(bank.registration_aud === undefined ? {} : { registrationAudience: bank.registration_aud }),
    registrationEndpoint: registrationEndpointOf(base),
    environmentHelperUrl: environmentHelperUrl(base, bank.environment_helper_path),
    resourceBaseUrl: base,
    serverCaPem,
    insecure: bank.insecure,
    consent: config.flow.consent === 'auto' ? 'headless' : config.flow.consent,
  };
}
