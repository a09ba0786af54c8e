// Resolving the target, before any request: the sandbox refuses a PSU who is not one of its test users (alex, sam,
// jo) whatever the consent mode; a bank's `server_ca` files that are folders, missing or not PEM are coded errors; the
// sandbox addresses file names its owner's pid: a live owner keeps it, a dead one's file is stale.

import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { configSchema } from '../../src/config/schema.js';
import { isObflowError } from '../../src/errors.js';
import { bankTarget, sandboxPsuUser, sandboxTarget } from '../../src/pipeline/target.js';
import {
  assertNoRunningSandbox,
  processAlive,
  readSandboxAddresses,
  removeSandboxAddresses,
  runningSandboxPid,
  sandboxAddressesPath,
  writeSandboxAddresses,
  type SandboxAddresses,
} from '../../src/state/addresses.js';
import { getTestIdentity } from '../helpers/identity.js';
import { tempDir } from '../helpers/temp.js';
import { errorOf } from '../helpers/errors.js';
import { BANK_IDENTITY } from '../helpers/config-fixtures.js';

const urls = {
  auth_url: 'https://127.0.0.1:2/strict-headless',
  token_url: 'https://127.0.0.1:2/strict-headless/token',
  discovery_url: 'https://127.0.0.1:2/strict-headless/.well-known/openid-configuration',
  authorization_endpoint: 'https://127.0.0.1:2/strict-headless/authorize',
};
const addresses: SandboxAddresses = {
  sandbox_base_url: 'https://127.0.0.1:1',
  registration_endpoint: 'https://127.0.0.1:1/dynamic-client-registration/v3.2/register',
  environment_helper: 'https://127.0.0.1:1/sandbox-helper/v1.0/postman/environment',
  aisp_base_url: 'https://127.0.0.1:1/open-banking/v3.1/aisp',
  profiles: { 'strict-headless': urls },
};

describe('sandbox PSU user', () => {
  it.each(['alex', 'sam', 'jo', undefined])('accepts %s (undefined → alex)', (psuUser) => {
    const config = configSchema.parse(psuUser === undefined ? {} : { flow: { psuUser } });
    expect(sandboxPsuUser(config).username).toBe(psuUser ?? 'alex');
    expect(sandboxTarget(config, addresses, []).consent).toBe('headless');
  });

  it.each(['nobody', 'toString', 'Alex'])('refuses %s with ERR_CONFIG_INVALID naming flow.psuUser, headless too', (psuUser) => {
    const config = configSchema.parse({ flow: { psuUser, consent: 'headless' } });
    let error: unknown;
    try {
      sandboxTarget(config, addresses, []);
    } catch (caught) {
      error = caught;
    }
    expect(isObflowError(error) && error.code).toBe('ERR_CONFIG_INVALID');
    expect(String((error as Error).message)).toContain('flow.psuUser');
  });
});

describe('bank target: bank.server_ca', () => {
  const bankConfig = (serverCa: string[]) =>
    configSchema.parse({
      target: 'bank',
      bank: { auth_url: 'https://auth.bank.example', sandbox_base_url: 'https://api.bank.example', server_ca: serverCa },
      identity: BANK_IDENTITY,
    });
  async function failure(serverCa: string[]): Promise<{ code: string; message: string } | undefined> {
    try {
      await bankTarget(bankConfig(serverCa));
    } catch (error) {
      if (isObflowError(error)) return { code: error.code, message: error.message };
      throw error;
    }
    return undefined;
  }

  it('a folder, a missing file or a non-PEM file is a coded error naming bank.server_ca.N', async () => {
    const { pem } = await getTestIdentity();
    const dir = await tempDir('obflow-server-ca-');
    const good = join(dir, 'root.pem');
    await writeFile(good, pem.rootCa);
    await writeFile(join(dir, 'notes.txt'), 'not a certificate');
    expect(await failure([good, dir])).toMatchObject({
      code: 'ERR_FILE_UNREADABLE',
      message: expect.stringContaining('bank.server_ca.1') as unknown,
    });
    expect(await failure([join(dir, 'none.pem')])).toMatchObject({
      code: 'ERR_FILE_MISSING',
      message: expect.stringContaining('bank.server_ca.0') as unknown,
    });
    expect(await failure([join(dir, 'notes.txt')])).toMatchObject({
      code: 'ERR_FILE_UNREADABLE',
      message: expect.stringContaining('bank.server_ca.0') as unknown,
    });
    const target = await bankTarget(bankConfig([good]));
    expect(target.serverCaPem).toEqual([pem.rootCa]);
  });
});

describe('sandbox addresses file: owned by a live pid', () => {
  // A pid that is not running: a child that has already exited (spawnSync waits for it).
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;
  const fileOf = async (stateDir: string) => JSON.parse(await readFile(sandboxAddressesPath(stateDir), 'utf8')) as Record<string, unknown>;

  it('processAlive: this process yes, an exited child and non-pids (0 would mean the process group) no', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(deadPid())).toBe(false);
    for (const pid of [0, -1, Number.NaN, 1.5]) expect(processAlive(pid)).toBe(false);
  });

  it('the file records the pid; read gives back the addresses without it; removal only by the owner', async () => {
    const stateDir = await tempDir('obflow-addresses-');
    await writeSandboxAddresses(stateDir, addresses);
    expect(await fileOf(stateDir)).toEqual({ ...addresses, pid: process.pid });
    expect(await readSandboxAddresses(stateDir)).toEqual(addresses);
    expect(await runningSandboxPid(stateDir)).toBe(process.pid);
    await assertNoRunningSandbox(stateDir);
    expect(await removeSandboxAddresses(stateDir, process.pid + 1)).toBe(false);
    expect(await removeSandboxAddresses(stateDir)).toBe(true);
    expect(await runningSandboxPid(stateDir)).toBeUndefined();
    expect(await errorOf(readSandboxAddresses(stateDir))).toMatchObject({ code: 'ERR_REMOTE_UNREACHABLE' });
  });

  it('a live other owner (the test runner, our parent) is refused with ERR_SANDBOX_START naming its pid, file untouched', async () => {
    const stateDir = await tempDir('obflow-addresses-');
    const owner = process.ppid;
    await writeSandboxAddresses(stateDir, addresses, owner);
    const mine = { ...addresses, sandbox_base_url: 'https://127.0.0.1:9' };
    const refused = await errorOf(writeSandboxAddresses(stateDir, mine));
    expect(refused).toMatchObject({ code: 'ERR_SANDBOX_START', message: expect.stringContaining(`pid ${owner}`) as unknown });
    expect(refused?.hint).toContain(`kill -INT ${owner}`);
    expect(await errorOf(assertNoRunningSandbox(stateDir))).toMatchObject({ code: 'ERR_SANDBOX_START' });
    expect(await removeSandboxAddresses(stateDir)).toBe(false);
    expect(await fileOf(stateDir)).toEqual({ ...addresses, pid: owner });
    expect(await readSandboxAddresses(stateDir)).toEqual(addresses);
  });

  it('a stale file (dead pid, or no pid at all) is no running sandbox and is taken over silently', async () => {
    const stateDir = await tempDir('obflow-addresses-');
    const dead = deadPid();
    await writeSandboxAddresses(stateDir, addresses, dead);
    const stale = await errorOf(readSandboxAddresses(stateDir));
    expect(stale).toMatchObject({ code: 'ERR_REMOTE_UNREACHABLE', message: expect.stringContaining(`pid ${dead}`) as unknown });
    expect(stale?.message).toMatch(/^no running sandbox found/);
    expect(await runningSandboxPid(stateDir)).toBeUndefined();
    await assertNoRunningSandbox(stateDir);
    await writeSandboxAddresses(stateDir, addresses);
    expect(await runningSandboxPid(stateDir)).toBe(process.pid);

    await writeFile(sandboxAddressesPath(stateDir), JSON.stringify(addresses));
    expect(await errorOf(readSandboxAddresses(stateDir))).toMatchObject({ code: 'ERR_REMOTE_UNREACHABLE' });
    await writeSandboxAddresses(stateDir, addresses);
    expect(await readSandboxAddresses(stateDir)).toEqual(addresses);
  });
});

describe('target details', () => {
  it('a live sandbox whose addresses file lost its profiles: a coded error, not a TypeError later', async () => {
    const stateDir = await tempDir('obflow-addresses-shape-');
    await writeSandboxAddresses(stateDir, { ...addresses, profiles: {} });
    await expect(readSandboxAddresses(stateDir)).rejects.toMatchObject({ code: 'ERR_FILE_UNREADABLE' });
  });

  it('a bank target builds its registration and helper URLs with the shared builders and keeps bank.token_url', async () => {
    const config = configSchema.parse({
      target: 'bank',
      bank: {
        auth_url: 'https://auth.bank.example/',
        sandbox_base_url: 'https://api.bank.example/sandbox/',
        token_url: 'https://mtls.bank.example:4201/token',
        environment_helper_path: '/helper/v1.0/postman/environment?x=1',
      },
      identity: BANK_IDENTITY,
    });
    const target = await bankTarget(config);
    expect(target.registrationEndpoint).toBe('https://api.bank.example/sandbox/dynamic-client-registration/v3.2/register');
    expect(target.environmentHelperUrl).toBe('https://api.bank.example/sandbox/helper/v1.0/postman/environment');
    expect(target.tokenUrl).toBe('https://mtls.bank.example:4201/token');
    expect(target.discoveryUrl).toBe('https://auth.bank.example/.well-known/openid-configuration');
  });
});
