// State survives a restart: register, stop the sandbox, start it again on the same data directory,
// and the registered client still authenticates, while a refused secret stays refused and replayed jtis stay replays.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';

const opened: Array<{ close(): Promise<void> }> = [];

afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
});

describe('restart with the same data directory', () => {
  it('keeps registered clients, their tokens and the ID-token key', async () => {
    const first: TestSandbox = await startTestSandbox();
    const before = new SandboxTpp(first.urls, first.identity, 'strict-headless');
    const registered = await before.register();
    const jwt = await before.signRegistration(before.registrationClaims());
    expect((await before.registerRaw(jwt)).status).toBe(201);
    const tokenBefore = await before.clientCredentials();
    const jwksBefore = (await before.fetch('GET', `${before.issuer}/jwks`)).json();
    await before.close();
    await first.stop();

    // Nothing secret in clear in the data directory but the client secret the bank must compare.
    const files = await readdir(first.dataDir);
    const everything = (await Promise.all(files.map((f) => readFile(join(first.dataDir, f), 'utf8')))).join('\n');
    expect(everything).not.toContain(tokenBefore);

    // Same ports, as `obflow sandbox` with fixed ports restarts: the issuers (and so the registration aud) are the same.
    const second: TestSandbox = await startTestSandbox({
      dataDir: first.dataDir,
      resourcePort: Number(new URL(first.urls.sandbox_base_url).port),
      authPort: Number(new URL(first.urls.profiles['strict-headless'].auth_url).port),
    });
    opened.push(second);
    const after = new SandboxTpp(second.urls, second.identity, 'strict-headless');
    opened.push(after);
    after.client = registered;
    expect(await after.clientCredentials()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect((await after.token({ grant_type: 'client_credentials', scope: 'accounts' }, { secret: 'wrong' })).status).toBe(401);
    expect((await after.fetch('GET', `${after.issuer}/jwks`)).json()).toEqual(jwksBefore);
    const replay = await after.registerRaw(jwt);
    expect(replay.status).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_client_metadata' });
    expect(String(replay.json().error_description)).toMatch(/jti/);
    const helper = await after.fetch('GET', `${second.urls.environment_helper}?client_id=${registered.client_id}`);
    expect(helper.status).toBe(200);
  });
});
