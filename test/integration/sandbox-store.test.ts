// The emulator's store: a data folder that cannot be read stops the start naming the file
// (keys.json, sandbox.db, a store of the earlier JSON format), through startSandbox and through `obflow sandbox`
// (ERR_SANDBOX_DATA, exit 2, a repair-or-remove hint, no port hint); a folder of the earlier format is migrated and
// cleaned; expired rows are pruned while the sandbox runs; and a sandbox killed with SIGKILL in the middle of a burst
// of writes loses none that it acknowledged.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { getTestIdentity } from '../helpers/identity.js';
import { spawnSandbox } from '../helpers/sandbox-process.js';
import { SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { RegisteredClient, TestSandbox } from '../helpers/sandbox-client.js';
import { SandboxDataError } from '../../src/sandbox/index.js';
import { openSqlite, retainNative } from '../../src/sandbox/store/db.js';
import { tempDirSync } from '../helpers/temp.js';

/** The built CLI, for `obflow sandbox` as its own process. */
const MAIN_CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
});

/** Rows of one collection in a data folder's database (read-only, beside a running sandbox: WAL allows it). */
function rows(dataDir: string, collection: string): Array<{ key: string; value: string }> {
  const db = openSqlite(join(dataDir, 'sandbox.db'), { readonly: true, fileMustExist: true });
  try {
    const statement = retainNative(
      db.prepare<[string], { key: string; value: string }>('SELECT key, value FROM records WHERE collection = ? ORDER BY rowid'),
    );
    return statement.all(collection);
  } finally {
    db.close();
  }
}

/** A data folder with one registered client, a client-credentials token and a consent, written by a real sandbox. */
async function populatedFolder(): Promise<{ dataDir: string; client: RegisteredClient; token: string; consentId: string }> {
  const sandbox = await startTestSandbox();
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity);
  const client = await tpp.register();
  const token = await tpp.clientCredentials();
  const created = await tpp.createConsentRaw(token);
  expect(created.status).toBe(201);
  await tpp.close();
  await sandbox.stop();
  return { dataDir: sandbox.dataDir, client, token, consentId: created.json<{ Data: { ConsentId: string } }>().Data.ConsentId };
}

async function refusal(dataDir: string): Promise<SandboxDataError> {
  const error: unknown = await startTestSandbox({ dataDir }).then(
    async (started) => {
      opened.push(started);
      return undefined;
    },
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(SandboxDataError);
  return error as SandboxDataError;
}

describe('a data folder that cannot be read stops the start, naming the file', () => {
  const damaged: Array<[string, (dataDir: string) => string]> = [
    // The damage a probe of the emulator first found, as it found it.
    ['keys.json cut short', (dataDir) => write(join(dataDir, 'keys.json'), '{"id-token":{"kty":"RSA"')],
    ['keys.json that holds no usable key', (dataDir) => write(join(dataDir, 'keys.json'), '{"id-token":{"kty":"RSA","kid":"k"}}')],
    ['keys.json that is not an object', (dataDir) => write(join(dataDir, 'keys.json'), '[]')],
    // The damage a probe found in a store of the earlier format, in the format it was found in (migrated on start).
    [
      'a truncated consents.json of the earlier format',
      (dataDir) => write(join(dataDir, 'consents.json'), '{"c1":{"ConsentId":"c1","Status":"Awaiting'),
    ],
    ['a tokens.json of the earlier format that is an array', (dataDir) => write(join(dataDir, 'tokens.json'), '[]')],
    ['a sandbox.db that is not a database', (dataDir) => write(join(dataDir, 'sandbox.db'), 'consents and tokens, in prose'.repeat(200))],
  ];
  it.each(damaged)('%s', async (_label, damage) => {
    const dataDir = tempDirSync('obflow-store-damaged-');
    const file = damage(dataDir);
    const before = readFileSync(file);
    const error = await refusal(dataDir);
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    // Refused, not repaired behind the user's back: the file is as it was.
    expect(readFileSync(file)).toEqual(before);
  });

  it('a truncated sandbox.db', async () => {
    const { dataDir } = await populatedFolder();
    const file = join(dataDir, 'sandbox.db');
    expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0);
    truncateSync(file, 1500);
    const error = await refusal(dataDir);
    expect(error.file).toBe(file);
  });

  it('a sandbox.db truncated to 0 bytes beside keys.json: refused, not opened as a new store', async () => {
    const { dataDir, client } = await populatedFolder();
    const file = join(dataDir, 'sandbox.db');
    truncateSync(file, 0);
    const error = await refusal(dataDir);
    expect(error.file).toBe(file);
    expect(error.problem).toContain('keys.json');
    expect(error.problem).toMatch(/restore .* or remove it/);
    // Nothing written into it: the refusal leaves the file for the user to restore.
    expect(statSync(file).size).toBe(0);
    // Removed (what the hint offers), the folder starts again with the same key and no clients.
    rmSync(file);
    const restarted = await startTestSandbox({ dataDir });
    opened.push(restarted);
    const tpp = new SandboxTpp(restarted.urls, restarted.identity);
    opened.push(tpp);
    tpp.client = client;
    expect((await tpp.token({ grant_type: 'client_credentials', scope: 'accounts' })).status).toBe(401);
  });

  it('a first start is told by the folder: a new folder, and an empty sandbox.db with nothing beside it, start', async () => {
    const fresh = tempDirSync('obflow-store-first-');
    const interrupted = tempDirSync('obflow-store-first-');
    // What a first start killed between creating the file and writing its header leaves.
    write(join(interrupted, 'sandbox.db'), '');
    for (const dataDir of [fresh, interrupted]) {
      const started = await startTestSandbox({ dataDir });
      opened.push(started);
      const tpp = new SandboxTpp(started.urls, started.identity);
      opened.push(tpp);
      await tpp.register();
      expect(statSync(join(dataDir, 'sandbox.db')).size).toBeGreaterThan(0);
    }
  });

  it('`obflow sandbox` in its own process refuses a 0-byte sandbox.db beside keys.json: exit 2, one error line naming it', async () => {
    if (!existsSync(MAIN_CLI)) throw new Error('build first (npm run build): this test runs `obflow sandbox` from dist in its own process');
    const cwd = tempDirSync('obflow-store-empty-cli-');
    expect((await runCli(['init', '--json'], { cwd })).code).toBe(0);
    const { dataDir } = await populatedFolder();
    const file = join(dataDir, 'sandbox.db');
    truncateSync(file, 0);
    const result = spawnSync(process.execPath, [MAIN_CLI, 'sandbox', '--data-dir', dataDir], { cwd, encoding: 'utf8', timeout: 20_000 });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: ERR_SANDBOX_DATA /);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toContain('keys.json');
    expect(lines[1]).toMatch(/^hint: Repair or remove /);
    expect(statSync(file).size).toBe(0);
  });

  it('`obflow sandbox` refuses a sandbox.db whose stored consent was changed in place (pages intact): ERR_SANDBOX_DATA, exit 2', async () => {
    if (!existsSync(MAIN_CLI)) throw new Error('build first (npm run build): this test runs `obflow sandbox` from dist in its own process');
    const cwd = tempDirSync('obflow-store-changed-cli-');
    expect((await runCli(['init', '--json'], { cwd })).code).toBe(0);
    const { dataDir, consentId } = await populatedFolder();
    const file = join(dataDir, 'sandbox.db');
    // One byte of the consent's stored JSON (its ConsentId inside the value), as random damage would change it: the
    // value still parses, SQLite's checks pass it (test/unit/sandbox-store-damage.test.ts), only its checksum does not.
    const bytes = readFileSync(file);
    const offset = bytes.indexOf(`"ConsentId":"${consentId}"`);
    expect(offset).toBeGreaterThan(0);
    const at = offset + '"ConsentId":"'.length;
    bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61;
    writeFileSync(file, bytes);
    const result = spawnSync(process.execPath, [MAIN_CLI, 'sandbox', '--data-dir', dataDir], { cwd, encoding: 'utf8', timeout: 20_000 });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: ERR_SANDBOX_DATA .*sandbox\.db.* fails its checksum/);
    expect(lines[0]).toContain(file);
    expect(lines[1]).toMatch(/^hint: Repair or remove /);
    // Refused, not repaired: the file is as the damage left it.
    expect(readFileSync(file)).toEqual(bytes);
  });

  it('`obflow sandbox` says ERR_SANDBOX_DATA with the file and a repair-or-remove hint (exit 2, no port hint)', async () => {
    const cwd = tempDirSync('obflow-store-cli-');
    expect((await runCli(['init', '--json'], { cwd })).code).toBe(0);
    const cases: Array<[string, string]> = [
      ['keys.json', '{"id-token":{"kty":"RSA"'],
      ['consents.json', '{"c1":{"ConsentId":"c1","Status":"Awaiting'],
    ];
    for (const [name, text] of cases) {
      const dataDir = join(cwd, `data-${name}`);
      mkdirSync(dataDir);
      write(join(dataDir, name), text);
      const result = await runCli(['sandbox', '--data-dir', dataDir], { cwd });
      expect(result.code, result.stderr).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines[0]).toMatch(/^error: ERR_SANDBOX_DATA /);
      expect(lines[0]).toContain(join(dataDir, name));
      expect(lines[1]).toMatch(/^hint: Repair or remove /);
      expect(lines[1]).toContain(join(dataDir, name));
      expect(result.stderr).not.toMatch(/port/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('a data folder of the earlier JSON format', () => {
  it('is migrated on start: clients, tokens and consents keep working, the JSON files and stray temporaries go', async () => {
    const { dataDir: source, client, token, consentId } = await populatedFolder();
    // Write what the earlier format kept: one `<collection>.json` object per collection (the values are unchanged).
    const dataDir = tempDirSync('obflow-store-legacy-');
    const legacy = ['clients', 'registration-jtis', 'grants', 'interactions', 'tokens', 'consents'];
    for (const name of legacy) {
      const entries: Record<string, unknown> = Object.fromEntries(
        rows(source, name).map((row) => [row.key, JSON.parse(row.value) as unknown]),
      );
      if (name === 'tokens')
        entries['expired-long-ago'] = {
          kind: 'access',
          clientId: client.client_id,
          profile: 'strict-headless',
          grant: 'client_credentials',
          scopes: ['accounts'],
          expiresAt: '2001-01-01T00:00:00.000Z',
          revoked: false,
        };
      write(join(dataDir, `${name}.json`), JSON.stringify(entries));
    }
    write(join(dataDir, 'keys.json'), readFileSync(join(source, 'keys.json'), 'utf8'));
    // What a kill in the middle of the earlier format's atomic replace left behind (the pid is long gone).
    write(join(dataDir, 'tokens.json.999999999.tmp'), '{"half":');

    const sandbox: TestSandbox = await startTestSandbox({ dataDir });
    opened.push(sandbox);
    expect(
      readdirSync(dataDir)
        .filter((name) => name.endsWith('.json') || name.endsWith('.tmp'))
        .sort(),
    ).toEqual(['keys.json']);
    expect(rows(dataDir, 'tokens').map((row) => row.key)).not.toContain('expired-long-ago');
    // Client secrets inside: owner-only, as the JSON files were.
    expect(statSync(join(dataDir, 'sandbox.db')).mode & 0o777).toBe(0o600);

    const tpp = new SandboxTpp(sandbox.urls, sandbox.identity);
    opened.push(tpp);
    tpp.client = client;
    expect((await tpp.createConsentRaw(token)).status).toBe(201);
    expect(await tpp.clientCredentials()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const consent = await tpp.fetch('GET', `${sandbox.urls.aisp_base_url}/account-access-consents/${consentId}`, {
      headers: { authorization: `Bearer ${token}`, 'x-fapi-financial-id': '0015800001041RHAAY', accept: 'application/json' },
    });
    expect(consent.status).toBe(200);
    expect(consent.json<{ Data: { Status: string } }>().Data.Status).toBe('AwaitingAuthorisation');

    // A second start finds nothing left to migrate and the same data.
    await sandbox.stop();
    const again = await startTestSandbox({ dataDir });
    opened.push(again);
    expect(rows(dataDir, 'clients').map((row) => row.key)).toEqual([client.client_id]);
  });
});

describe('expired rows are pruned while the sandbox runs, not only at start', () => {
  it('tokens, interactions and consents past their expiry (and the grace hour) leave the database; clients stay', async () => {
    let offset = 0;
    const sandbox = await startTestSandbox({ now: () => new Date(Date.now() + offset), pruneIntervalMs: 50 });
    opened.push(sandbox);
    const tpp = new SandboxTpp(sandbox.urls, sandbox.identity);
    opened.push(tpp);
    await tpp.register();
    const token = await tpp.clientCredentials();
    const created = await tpp.fetch('POST', `${sandbox.urls.aisp_base_url}/account-access-consents`, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-fapi-financial-id': '0015800001041RHAAY',
      },
      body: JSON.stringify({
        Data: { Permissions: ['ReadAccountsBasic'], ExpirationDateTime: new Date(Date.now() + 60_000).toISOString() },
        Risk: {},
      }),
    });
    expect(created.status).toBe(201);
    const kept = await tpp.fetch('POST', `${sandbox.urls.aisp_base_url}/account-access-consents`, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-fapi-financial-id': '0015800001041RHAAY',
      },
      body: JSON.stringify({ Data: { Permissions: ['ReadAccountsBasic'] }, Risk: {} }),
    });
    expect(kept.status).toBe(201);
    // Still there within the grace hour after expiry.
    offset = 30 * 60_000;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rows(sandbox.dataDir, 'tokens')).toHaveLength(1);
    expect(rows(sandbox.dataDir, 'consents')).toHaveLength(2);

    offset = 3 * 60 * 60_000;
    const deadline = Date.now() + 10_000;
    while (rows(sandbox.dataDir, 'tokens').length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rows(sandbox.dataDir, 'tokens')).toHaveLength(0);
    expect(rows(sandbox.dataDir, 'registration-jtis')).toHaveLength(0);
    expect(rows(sandbox.dataDir, 'consents').map((row) => row.key)).toEqual([kept.json<{ Data: { ConsentId: string } }>().Data.ConsentId]);
    expect(rows(sandbox.dataDir, 'clients')).toHaveLength(1);
  });
});

describe("the store's native objects are never left to the garbage collector", () => {
  const DB_MODULE = join(import.meta.dirname, '..', '..', 'dist', 'sandbox', 'store', 'db.js');
  // Node.js ≥ 24.19: better-sqlite3 12's objects are node::ObjectWrap, whose destructor asserts a Node.js context; a
  // GC run from a platform task between event-loop turns has none, and the process aborts (exit 134) — what `obflow
  // demo` did after `environment`. Databases opened, written and closed, then garbage made across turns: the process
  // must live to say so. (On Node.js 20 and 22 it passes either way; .ci/run's Node.js 24 and 26 passes prove it.)
  const SCRIPT = `
    import { mkdtempSync } from 'node:fs';
    import { join } from 'node:path';
    import { setImmediate as turn } from 'node:timers/promises';
    const { SandboxDb } = await import(process.argv[1]);
    for (let i = 0; i < 20; i += 1) {
      const db = SandboxDb.open(mkdtempSync(join(process.argv[2], 'db-')));
      db.collection({ name: 'records' }).set('key', { i });
      db.close();
    }
    for (let round = 0; round < 200; round += 1) {
      let garbage = [];
      for (let i = 0; i < 20000; i += 1) garbage.push({ i, text: 'x'.repeat(50) });
      garbage = null;
      await turn();
    }
    console.log('alive');`;

  it('databases opened and closed, then garbage collected between event-loop turns: the process lives on', async () => {
    if (!existsSync(DB_MODULE)) throw new Error('build first (npm run build): this test runs the store from dist in its own process');
    const dir = tempDirSync('obflow-store-gc-');
    const result = await new Promise<{ code: number | null; signal: string | null; output: string }>((done) => {
      const process_ = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, DB_MODULE, dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      process_.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      process_.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      process_.on('close', (code, signal) => done({ code, signal, output }));
    });
    expect(result.output.trim().split('\n').slice(-3).join('\n')).toContain('alive');
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
  });
});

describe('kill -9 in the middle of writes', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('loses no acknowledged registration, token or consent, on a store already holding 20,000 tokens and 3,000 clients', async () => {
    const identity = await getTestIdentity();
    const dataDir = tempDirSync('obflow-store-kill-');
    soakFolder(dataDir, identity.softwareStatement);
    const { process: running, urls } = await spawnSandbox(dataDir);
    child = running;

    const acknowledged = {
      clients: [] as RegisteredClient[],
      tokens: [] as Array<{ client: RegisteredClient; token: string }>,
      consents: [] as Array<{ token: string; consentId: string }>,
    };
    let killed = false;
    // Four workers write as fast as the sandbox answers; only answers that arrived count as acknowledged.
    const worker = async (): Promise<void> => {
      const tpp = new SandboxTpp(urls, identity);
      try {
        while (!killed) {
          const client = await tpp.register();
          acknowledged.clients.push(client);
          const token = await tpp.clientCredentials();
          acknowledged.tokens.push({ client, token });
          const created = await tpp.createConsentRaw(token);
          if (created.status !== 201) throw new Error(`consent ${created.status}`);
          acknowledged.consents.push({ token, consentId: created.json<{ Data: { ConsentId: string } }>().Data.ConsentId });
        }
      } catch (error) {
        // The kill cuts requests in flight; anything else is a real failure.
        if (!killed) throw error;
      } finally {
        await tpp.agent.destroy();
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    const enough = Date.now() + 20_000;
    while (acknowledged.consents.length < 12 && Date.now() < enough) await new Promise((resolve) => setTimeout(resolve, 20));
    const exited = new Promise((resolve) => running.once('exit', resolve));
    killed = true;
    running.kill('SIGKILL');
    await exited;
    await Promise.all(workers);
    expect(running.signalCode).toBe('SIGKILL');
    expect(acknowledged.consents.length).toBeGreaterThanOrEqual(12);

    const restarted = await startTestSandbox({ dataDir });
    opened.push(restarted);
    // At least what was acknowledged: a write committed just before the kill may not have been answered.
    expect(rows(dataDir, 'clients').length).toBeGreaterThanOrEqual(SOAK_CLIENTS + acknowledged.clients.length);
    expect(rows(dataDir, 'tokens').length).toBeGreaterThanOrEqual(SOAK_TOKENS + acknowledged.tokens.length);
    const tpp = new SandboxTpp(restarted.urls, identity);
    opened.push(tpp);
    for (const client of acknowledged.clients) {
      tpp.client = client;
      expect((await tpp.token({ grant_type: 'client_credentials', scope: 'accounts' })).status, client.client_id).toBe(200);
    }
    for (const { token } of acknowledged.tokens) expect((await tpp.createConsentRaw(token)).status).toBe(201);
    for (const { token, consentId } of acknowledged.consents) {
      const read = await tpp.fetch('GET', `${restarted.urls.aisp_base_url}/account-access-consents/${consentId}`, {
        headers: { authorization: `Bearer ${token}`, 'x-fapi-financial-id': '0015800001041RHAAY', accept: 'application/json' },
      });
      expect(read.status, consentId).toBe(200);
    }
  }, 90_000);
});

const SOAK_TOKENS = 20_000;
const SOAK_CLIENTS = 3_000;

/** A data folder of the earlier format holding what a long-lived CI sandbox holds: 3,000 clients, 20,000 live tokens. */
function soakFolder(dataDir: string, statement: string): void {
  const clients: Record<string, unknown> = {};
  const ids: string[] = [];
  for (let i = 0; i < SOAK_CLIENTS; i++) {
    const clientId = `soak-client-${i}`;
    ids.push(clientId);
    clients[clientId] = {
      clientId,
      profile: 'strict-headless',
      softwareId: `soak-${i}`,
      orgId: 'soak',
      redirectUris: ['https://tpp.example/cb'],
      certificateThumbprints: [`thumb-${i}`],
      clientSecret: `secret-${i}`,
      clientIdIssuedAt: 0,
      scopes: ['openid', 'accounts'],
      grantTypes: ['client_credentials'],
      responseTypes: ['code'],
      requestObjectSigningAlg: 'none',
      softwareJwks: { keys: [] },
      metadata: { client_id: clientId, software_statement: statement },
    };
  }
  const tokens: Record<string, unknown> = {};
  const expiresAt = new Date(Date.now() + 90 * 86_400_000).toISOString();
  for (let i = 0; i < SOAK_TOKENS; i++) {
    tokens[`soak-token-${i}`] = {
      kind: 'refresh',
      clientId: ids[i % SOAK_CLIENTS],
      profile: 'strict-headless',
      grant: 'authorization_code',
      scopes: ['accounts'],
      consentId: `consent-${i}`,
      codeHash: `code-${i}`,
      expiresAt,
      revoked: false,
    };
  }
  write(join(dataDir, 'clients.json'), JSON.stringify(clients));
  write(join(dataDir, 'tokens.json'), JSON.stringify(tokens));
}

function write(file: string, text: string): string {
  writeFileSync(file, text);
  return file;
}
