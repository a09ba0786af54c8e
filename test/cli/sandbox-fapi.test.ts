// `obflow sandbox --fapi` and config `sandbox.fapi` (docs/sandbox.md), as a user starts the emulator: the flag and the config
// key reach the emulator (its discovery says FAPI 2.0), and FAPI 2.0 beside a PAR setting other than required stops
// with one coded line naming both settings, before anything starts.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SANDBOX_FAPI_OPTION } from '../../src/fapi-profile.js';
import { FAPI_MODES } from '../../src/sandbox/contracts.js';
import { configJsonSchema } from '../../src/config/schema.js';
import { runCli, startSandboxProcess } from '../helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'obflow-fapi-'));

beforeAll(async () => {
  const init = await runCli(['init', '--json'], { cwd });
  expect(init.code, init.stderr).toBe(0);
}, 60_000);

afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

/** The line `obflow sandbox <args>` (built dist/, its own process, as a user starts it) says once it is ready. */
async function readyLine(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js'), 'sandbox', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OBFLOW_'))),
  });
  try {
    for await (const line of createInterface({ input: child.stdout })) if (line.startsWith('sandbox ready')) return line;
    return '';
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
  }
}

/** The strict-headless issuer's discovery document of `obflow sandbox` started with `args` and `env`. */
async function discoveryOf(args: readonly string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const processEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('OBFLOW_')) processEnv[key] = value;
  const sandbox = await startSandboxProcess(cwd, args, { ...processEnv, ...env });
  // Discovery needs no client certificate; the server's certificate is the local identity's, not checked here.
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const urls = JSON.parse(sandbox.firstLine) as { profiles: Record<string, { auth_url: string }> };
    const issuer = urls.profiles['strict-headless']?.auth_url ?? '';
    const answer = await request(`${issuer}/.well-known/openid-configuration`, { dispatcher: agent });
    return (await answer.body.json()) as Record<string, unknown>;
  } finally {
    await agent.close();
    await sandbox.stop();
  }
}

describe('obflow sandbox --fapi', () => {
  it('the flag offers exactly the emulator’s modes, and the config key the same', () => {
    const sandbox = (configJsonSchema().properties as Record<string, { properties: Record<string, { enum?: string[] }> }>).sandbox;
    expect(sandbox?.properties.fapi?.enum).toEqual([...FAPI_MODES]);
    // obflow's list of the emulator's modes (src/fapi-profile.ts) is the emulator's table's (src/sandbox/auth/fapi.ts).
    expect(SANDBOX_FAPI_OPTION.choices).toEqual(FAPI_MODES);
  });

  it.each([
    [[], 'interface'],
    [['--fapi', '1-advanced'], '1-advanced'],
    [['--fapi', '2.0'], '2.0'],
  ] as const)(
    'its start line says the FAPI mode it runs in: %j → %s',
    async (args, mode) => {
      expect(await readyLine(args)).toMatch(
        new RegExp(`^sandbox ready \\(data in .+\\), FAPI mode ${mode.replace('.', '\\.')}; Ctrl-C stops it$`),
      );
    },
    60_000,
  );

  it('an unknown --fapi is a usage error', async () => {
    const result = await runCli(['sandbox', '--fapi', '3.0'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE.*3\.0/);
  });

  it.each(['off', 'optional'])('--fapi 2.0 --par %s is ERR_USAGE naming both flags', async (par) => {
    const result = await runCli(['sandbox', '--fapi', '2.0', '--par', par], { cwd });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
    expect(line).toContain('ERR_USAGE');
    expect(line).toContain(`--par ${par}`);
    expect(line).toContain('--fapi 2.0');
  });

  it('config sandbox.fapi "2.0" beside --par off is ERR_USAGE naming both', async () => {
    const result = await runCli(['sandbox', '--par', 'off'], { cwd, env: { OBFLOW_SANDBOX__FAPI: '2.0' } });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
    expect(line).toContain('ERR_USAGE');
    expect(line).toContain('--par off contradicts sandbox.fapi "2.0"');
  });

  it('--fapi 2.0 with --token-auth client_secret_basic alone is ERR_USAGE naming both', async () => {
    const result = await runCli(['sandbox', '--fapi', '2.0', '--token-auth', 'client_secret_basic'], { cwd });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
    expect(line).toContain('ERR_USAGE');
    expect(line).toMatch(/--fapi 2\.0 accepts private_key_jwt or tls_client_auth, and --token-auth has only client_secret_basic/);
  });

  it('config sandbox.fapi "2.0" with sandbox.tokenAuth client_secret_basic alone is ERR_CONFIG_INVALID naming both', async () => {
    const result = await runCli(['sandbox'], {
      cwd,
      env: { OBFLOW_SANDBOX__FAPI: '2.0', OBFLOW_SANDBOX__TOKEN_AUTH: 'client_secret_basic' },
    });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
    expect(line).toContain('ERR_CONFIG_INVALID');
    expect(line).toMatch(/sandbox\.tokenAuth.*sandbox\.fapi "2\.0"/);
  });

  it('config sandbox.fapi "2.0" with sandbox.par "optional" is ERR_CONFIG_INVALID naming both keys', async () => {
    const result = await runCli(['sandbox'], { cwd, env: { OBFLOW_SANDBOX__FAPI: '2.0', OBFLOW_SANDBOX__PAR: 'optional' } });
    expect(result.code).toBe(2);
    const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
    expect(line).toContain('ERR_CONFIG_INVALID');
    expect(line).toMatch(/sandbox\.par.*sandbox\.fapi "2\.0"/);
  });

  // The sandbox's --fapi is the emulator's mode (sandbox.fapi); the other commands' --fapi (flow.fapi) must not claim it.
  it('--fapi interface is the emulator’s mode, not the TPP’s flow.fapi (which has no "interface")', async () => {
    const doc = await discoveryOf(['--fapi', 'interface']);
    expect(doc.response_types_supported).toEqual(['code', 'code id_token']);
  }, 60_000);

  it('a TPP configured for FAPI 2.0: the sandbox follows it, and --par off contradicts it (ERR_USAGE naming flow.fapi)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'obflow-fapi-follow-'));
    try {
      const config = { bank: { token_endpoint_auth_method: 'private_key_jwt' }, flow: { fapi: '2.0', responseType: 'code' } };
      writeFileSync(join(folder, 'obflow.config.json'), JSON.stringify(config));
      const result = await runCli(['sandbox', '--par', 'off'], { cwd: folder });
      expect(result.code).toBe(2);
      const line = result.stderr.split('\n').find((text) => text.startsWith('error:')) ?? '';
      expect(line).toContain('ERR_USAGE');
      expect(line).toContain('--par off contradicts flow.fapi "2.0" (the embedded sandbox follows it)');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('an unknown --refresh-tokens is a usage error', async () => {
    const result = await runCli(['sandbox', '--refresh-tokens', 'never'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE.*never/);
  });

  it('--fapi 2.0 reaches the emulator: discovery is FAPI 2.0 with PAR required', async () => {
    const doc = await discoveryOf(['--fapi', '2.0']);
    expect(doc.authorization_response_iss_parameter_supported).toBe(true);
    expect(doc.require_pushed_authorization_requests).toBe(true);
    expect(doc.response_types_supported).toEqual(['code']);
  }, 60_000);

  it('config sandbox.fapi "2.0" reaches the embedded emulator (as obflow demo starts it) with PAR required', async () => {
    const doc = await discoveryOf([], { OBFLOW_SANDBOX__FAPI: '2.0' });
    expect(doc.authorization_response_iss_parameter_supported).toBe(true);
    expect(doc.require_pushed_authorization_requests).toBe(true);
    expect(doc.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt', 'tls_client_auth']);
  }, 60_000);

  it('by default the emulator is the interface: no FAPI 2.0 in discovery', async () => {
    const doc = await discoveryOf([]);
    expect(doc).not.toHaveProperty('authorization_response_iss_parameter_supported');
    expect(doc.response_types_supported).toEqual(['code', 'code id_token']);
  }, 60_000);
});
