// Resolving the target, before any request: the sandbox refuses a PSU who is not one of its test users (alex, sam,
// jo) whatever the consent mode; a bank's `server_ca` files that are folders, missing or not PEM are coded errors.

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { configSchema } from '../../src/config/schema.js';
import { isObflowError } from '../../src/errors.js';
import { bankTarget, sandboxPsuUser, sandboxTarget, type SandboxAddresses } from '../../src/pipeline/target.js';
import { getTestIdentity } from '../helpers/identity.js';

const urls = { auth_url: 'https://127.0.0.1:2/strict-headless', token_url: 'https://127.0.0.1:2/strict-headless/token', discovery_url: 'https://127.0.0.1:2/strict-headless/.well-known/openid-configuration', authorization_endpoint: 'https://127.0.0.1:2/strict-headless/authorize' };
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
  const bankConfig = (serverCa: string[]) => configSchema.parse({ target: 'bank', bank: { auth_url: 'https://auth.bank.example', sandbox_base_url: 'https://api.bank.example', server_ca: serverCa }, identity: {
    softwareStatement: 's.jwt', transport: { cert: 'c.pem', key: 'k.pem' }, signing: { key: 'k.pem', kid: 'k' }, directoryRoots: ['r.pem'], directoryIssuing: ['i.pem'], directoryJwks: 'j.json',
  } });
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
    const dir = await mkdtemp(join(tmpdir(), 'obflow-server-ca-'));
    const good = join(dir, 'root.pem');
    await writeFile(good, pem.rootCa);
    await writeFile(join(dir, 'notes.txt'), 'not a certificate');
    expect(await failure([good, dir])).toMatchObject({ code: 'ERR_FILE_UNREADABLE', message: expect.stringContaining('bank.server_ca.1') as unknown });
    expect(await failure([join(dir, 'none.pem')])).toMatchObject({ code: 'ERR_FILE_MISSING', message: expect.stringContaining('bank.server_ca.0') as unknown });
    expect(await failure([join(dir, 'notes.txt')])).toMatchObject({ code: 'ERR_FILE_UNREADABLE', message: expect.stringContaining('bank.server_ca.0') as unknown });
    const target = await bankTarget(bankConfig([good]));
    expect(target.serverCaPem).toEqual([pem.rootCa]);
  });
});
