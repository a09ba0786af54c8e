// `obflow sandbox --apis` and config sandbox.apis (docs/sandbox.md, "API families"): the emulator in its own process
// serves the families named, so its issuers publish the message-signing key beside the ID-token key once payments are
// served; an unknown family is a usage error naming it. The config key reaches the embedded emulator too.

import { get } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runCli, startSandboxProcess, useSandboxProcess } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

/** How many keys an issuer's JWKS lists (the emulator's own server certificate is the test directory's: not checked). */
function jwksSize(issuer: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${issuer}/jwks`, { rejectUnauthorized: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve((JSON.parse(text) as { keys: unknown[] }).keys.length));
    }).on('error', reject);
  });
}

const issuerOf = (firstLine: string): string =>
  (JSON.parse(firstLine) as { profiles: Record<string, { auth_url: string }> }).profiles['strict-headless']?.auth_url ?? '';

const flagged = useSandboxProcess('obflow-apis-', ['--apis', 'accounts,payments,funds']);

describe('obflow sandbox --apis', () => {
  it('an unknown family is a usage error naming it', async () => {
    const result = await runCli(['sandbox', '--apis', 'accounts,cards'], { cwd: tempDirSync('obflow-apis-bad-') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERR_USAGE.*cards/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('serves payments: the issuers publish the message-signing key beside the ID-token key', async () => {
    expect(await jwksSize(issuerOf(flagged.sandbox.firstLine))).toBe(2);
  });

  it('config sandbox.apis does the same without the flag; without either, the accounts-only bank publishes one key', async () => {
    const cwd = tempDirSync('obflow-apis-config-');
    const init = await runCli(['init', '--json'], { cwd });
    expect(init.code, init.stderr).toBe(0);
    writeFileSync(join(cwd, 'obflow.config.json'), JSON.stringify({ sandbox: { apis: ['accounts', 'payments'] } }));
    const configured = await startSandboxProcess(cwd);
    try {
      expect(await jwksSize(issuerOf(configured.firstLine))).toBe(2);
    } finally {
      await configured.stop();
    }
    const plainCwd = tempDirSync('obflow-apis-plain-');
    expect((await runCli(['init', '--json'], { cwd: plainCwd })).code).toBe(0);
    const plain = await startSandboxProcess(plainCwd);
    try {
      expect(await jwksSize(issuerOf(plain.firstLine))).toBe(1);
    } finally {
      await plain.stop();
    }
  }, 60_000);
});
