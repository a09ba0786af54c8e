// An ID-token key given to the emulator (SandboxOptions.idTokenKey: the demo's, kept in the state folder) is the one
// its JWKS publishes and its ID tokens are signed with, and the data folder's keys.json is then neither read nor
// written; without one, a first start makes keys.json as before (sandbox-restart.test.ts keeps it across restarts).
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { newIdTokenKey } from '../../src/sandbox/auth/keys.js';
import { SandboxTpp, startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';

const opened: Array<{ close(): Promise<void> }> = [];

afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
});

async function publishedKids(sandbox: TestSandbox): Promise<string[]> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-headless');
  opened.push(tpp);
  return (await tpp.fetch('GET', `${tpp.issuer}/jwks`)).json<{ keys: { kid: string; d?: string }[] }>().keys.map((key) => {
    expect(key.d).toBeUndefined();
    return key.kid;
  });
}

describe("the emulator's ID-token key", () => {
  it('given: published in the JWKS, and no keys.json in the data folder', async () => {
    const key = await newIdTokenKey();
    const sandbox = await startTestSandbox({ idTokenKey: key });
    opened.push(sandbox);
    expect(await publishedKids(sandbox)).toEqual([key.kid]);
    expect(await readdir(sandbox.dataDir)).not.toContain('keys.json');
  });

  it('not given: a first start makes its own and keeps it in keys.json', async () => {
    const sandbox = await startTestSandbox();
    opened.push(sandbox);
    const kids = await publishedKids(sandbox);
    expect(kids).toHaveLength(1);
    expect(await readdir(sandbox.dataDir)).toContain('keys.json');
  });
});
