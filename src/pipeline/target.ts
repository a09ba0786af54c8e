// The bank a command talks to, resolved once: the embedded sandbox (its addresses from the running emulator) or a real
// bank's addresses from the config (docs/bank-interface.md placeholders {sandbox_base_url}, {base_url}, {auth_url}).

import { X509Certificate, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import { markUnfinished } from '../fs.js';
import { environmentHelperUrl } from '../environment/download.js';
import { registrationEndpointOf } from '../registration/register.js';

/** The emulator's addresses as `obflow sandbox --json` prints them (the wire-level shape; no import of src/sandbox). */
export interface SandboxAddresses {
  sandbox_base_url: string;
  registration_endpoint: string;
  environment_helper: string;
  aisp_base_url: string;
  profiles: Record<string, { auth_url: string; token_url: string; discovery_url: string; authorization_endpoint: string }>;
}

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

const SANDBOX_ADDRESSES_FILE = 'addresses.json';

export function sandboxAddressesPath(stateDir: string): string {
  return join(stateDir, 'sandbox', SANDBOX_ADDRESSES_FILE);
}

/** Whether process `pid` is alive: signal 0 checks without sending (EPERM: alive, another user's). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The addresses file as written: the addresses plus the pid of the `obflow sandbox` that owns it. */
interface SandboxAddressesFile {
  addresses: SandboxAddresses;
  pid: number | undefined;
}

async function readAddressesFile(path: string): Promise<SandboxAddressesFile> {
  const { pid, ...addresses } = JSON.parse(await readFile(path, 'utf8')) as SandboxAddresses & { pid?: unknown };
  return { addresses, pid: typeof pid === 'number' ? pid : undefined };
}

/** The pid of the live `obflow sandbox` that owns `<stateDir>/sandbox/addresses.json`; undefined when there is no
 *  file, it cannot be read, or it names no live process (a stale file left by a crash). */
export async function runningSandboxPid(stateDir: string): Promise<number | undefined> {
  const file = await readAddressesFile(sandboxAddressesPath(stateDir)).catch(() => undefined);
  return file?.pid !== undefined && processAlive(file.pid) ? file.pid : undefined;
}

function sandboxRunning(stateDir: string, pid: number): ObflowError {
  return new ObflowError('ERR_SANDBOX_START', `a sandbox (pid ${pid}) is already running for the state folder ${stateDir}`, {
    hint: `Use that one, or stop it first (Ctrl-C in its terminal, or \`kill -INT ${pid}\`), or start this one with another --state-dir.`,
  });
}

/** Refuses (ERR_SANDBOX_START) when a live sandbox other than `pid` owns the state folder's addresses file: a second
 *  one would share its data folder and hide it from register/environment/run. A stale file is no obstacle. */
export async function assertNoRunningSandbox(stateDir: string, pid: number = process.pid): Promise<void> {
  const owner = await runningSandboxPid(stateDir);
  if (owner !== undefined && owner !== pid) throw sandboxRunning(stateDir, owner);
}

/**
 * `obflow sandbox` announces where it listens so other commands (register, environment, run) can find it. The file
 * also records the owner's pid and is claimed atomically: a hard link of the finished temporary file creates it only
 * if absent; a file of a live other sandbox is refused (ERR_SANDBOX_START), a stale one is replaced by rename.
 */
export async function writeSandboxAddresses(stateDir: string, addresses: SandboxAddresses, pid: number = process.pid): Promise<string> {
  const path = sandboxAddressesPath(stateDir);
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const finished = markUnfinished(tmp);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    await writeFile(tmp, `${JSON.stringify({ ...addresses, pid }, null, 2)}\n`, { mode: 0o644, flag: 'wx' });
    await chmod(tmp, 0o644);
    try {
      await link(tmp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await assertNoRunningSandbox(stateDir, pid);
      await rename(tmp, path);
    }
    // Two sandboxes taking over the same stale file at once: the last rename wins, the other one learns it here.
    const owner = (await readAddressesFile(path)).pid;
    if (owner !== pid && owner !== undefined && processAlive(owner)) throw sandboxRunning(stateDir, owner);
  } catch (cause) {
    if (cause instanceof ObflowError) throw cause;
    throw new ObflowError('ERR_WRITE_FAILED', `could not write ${path}: ${(cause as Error).message}`, {
      hint: 'Check that the state folder is writable and the disk is not full.',
      cause,
    });
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined);
    finished();
  }
  return path;
}

/** Removes the addresses file when the sandbox `pid` stops, only if it still names that pid (never another's).
 *  Returns whether it was removed. */
export async function removeSandboxAddresses(stateDir: string, pid: number = process.pid): Promise<boolean> {
  const path = sandboxAddressesPath(stateDir);
  const file = await readAddressesFile(path).catch(() => undefined);
  if (file?.pid !== pid) return false;
  await rm(path, { force: true });
  return true;
}

/** The running sandbox's addresses; ERR_REMOTE_UNREACHABLE when there is no file or its sandbox is gone (the file of
 *  a crashed sandbox names a dead pid, or no pid at all). */
export async function readSandboxAddresses(stateDir: string): Promise<SandboxAddresses> {
  const path = sandboxAddressesPath(stateDir);
  let file: SandboxAddressesFile;
  try {
    file = await readAddressesFile(path);
  } catch (cause) {
    throw new ObflowError('ERR_REMOTE_UNREACHABLE', 'no running sandbox found (target is "sandbox")', {
      hint: 'Start `obflow sandbox` in another terminal (same --state-dir), or run `obflow demo` for the whole flow.',
      cause,
    });
  }
  if (file.pid === undefined || !processAlive(file.pid)) {
    const who = file.pid === undefined ? 'names no process' : `names pid ${file.pid}, which is not running`;
    throw new ObflowError('ERR_REMOTE_UNREACHABLE', `no running sandbox found (target is "sandbox"): ${path} ${who}`, {
      hint: 'That sandbox has stopped: start `obflow sandbox` again in another terminal (same --state-dir), or run `obflow demo`.',
    });
  }
  const { addresses } = file;
  const urls = Object.values(addresses.profiles ?? {});
  if (typeof addresses.sandbox_base_url !== 'string' || urls.length === 0 || urls.some((profile) => typeof profile?.auth_url !== 'string')) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} does not name the sandbox's addresses`, {
      hint: 'Restart `obflow sandbox`: it rewrites the file.',
    });
  }
  return addresses;
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
      throw new ObflowError('ERR_FILE_MISSING', `${key}: no file at ${file}`, { hint: "Point it at the bank's CA certificate (PEM); relative paths resolve from the config file's folder.", cause });
    }
    throw new ObflowError('ERR_FILE_UNREADABLE', `${key}: cannot read ${file} (${code ?? (cause as Error).message})`, {
      hint: "Point it at a readable PEM file with the bank's CA certificate (not a folder).",
      cause,
    });
  }
  try {
    new X509Certificate(pem);
  } catch (cause) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${key}: ${file} is not a PEM certificate`, { hint: "Use the bank's CA certificate as PEM (-----BEGIN CERTIFICATE-----).", cause });
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
