// The running sandbox's addresses file (`<stateDir>/sandbox/addresses.json`): `obflow sandbox` announces where it
// listens and its pid, so register/environment/run (target "sandbox") find it, and a second sandbox on the same state
// folder is refused.

import { link, readFile, rename, rm } from 'node:fs/promises';
import { ObflowError } from '../errors.js';
import { writeTemporary, type TemporaryFile } from '../fs.js';
import { stateLayout } from './layout.js';

/** The emulator's addresses as `obflow sandbox --json` prints them (the wire-level shape; no import of src/sandbox). */
export interface SandboxAddresses {
  sandbox_base_url: string;
  registration_endpoint: string;
  environment_helper: string;
  aisp_base_url: string;
  profiles: Record<string, { auth_url: string; token_url: string; discovery_url: string; authorization_endpoint: string }>;
}

export function sandboxAddressesPath(stateDir: string): string {
  return stateLayout(stateDir).sandboxAddresses;
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
  let temporary: TemporaryFile | undefined;
  try {
    temporary = await writeTemporary(path, `${JSON.stringify({ ...addresses, pid }, null, 2)}\n`);
    try {
      await link(temporary.tmp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await assertNoRunningSandbox(stateDir, pid);
      await rename(temporary.tmp, path);
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
    await temporary?.discard();
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
  if (
    typeof addresses.sandbox_base_url !== 'string' ||
    urls.length === 0 ||
    urls.some((profile) => typeof profile?.auth_url !== 'string')
  ) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} does not name the sandbox's addresses`, {
      hint: 'Restart `obflow sandbox`: it rewrites the file.',
    });
  }
  return addresses;
}
