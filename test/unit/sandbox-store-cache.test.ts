// The store's decoded-value cache (src/sandbox/store/db.ts; without it the emulator read the same token, client and
// consent from SQLite and parsed them on every request): a read never returns what the database no longer holds —
// after this connection's own set, delete or prune, after another connection's commit (a second process on the same
// data folder: SQLite's data_version; checked once per request as it arrives) — and a cached value cannot
// be changed in place by a handler.

import { afterAll, describe, expect, it } from 'vitest';

import { AuthStore, hashSecret } from '../../src/sandbox/store/auth-store.js';
import type { StoredClient, TokenRecord } from '../../src/sandbox/store/auth-store.js';
import { SandboxDb } from '../../src/sandbox/store/db.js';
import type { Collection } from '../../src/sandbox/store/db.js';
import { tempDirSync } from '../helpers/temp.js';

interface Token {
  clientId: string;
  scopes: string[];
  expiresAt: string;
  revoked: boolean;
}

const opened: SandboxDb[] = [];
afterAll(() => {
  for (const db of opened) db.close();
});

function open(): { dataDir: string; db: SandboxDb; tokens: Collection<Token> } {
  const dataDir = tempDirSync('obflow-store-cache-');
  const db = SandboxDb.open(dataDir);
  opened.push(db);
  const tokens = db.collection<Token>({ name: 'tokens', expiresAt: (token) => Date.parse(token.expiresAt) });
  return { dataDir, db, tokens };
}

/** Another connection to the same database, as a second sandbox process on the same data folder holds. */
function other(dataDir: string): { db: SandboxDb; tokens: Collection<Token> } {
  const db = SandboxDb.open(dataDir);
  opened.push(db);
  return { db, tokens: db.collection<Token>({ name: 'tokens', expiresAt: (token) => Date.parse(token.expiresAt) }) };
}

const token = (overrides: Partial<Token> = {}): Token => ({
  clientId: 'client-1',
  scopes: ['accounts'],
  expiresAt: '2999-01-01T00:00:00.000Z',
  revoked: false,
  ...overrides,
});

describe("the store's cache never answers with what the database no longer holds", () => {
  it("this connection's set and delete are read back at once", () => {
    const { tokens } = open();
    tokens.set('t', token());
    expect(tokens.get('t')?.revoked).toBe(false);
    tokens.set('t', { ...token(), revoked: true });
    expect(tokens.get('t')?.revoked).toBe(true);
    expect(tokens.delete('t')).toBe(true);
    expect(tokens.get('t')).toBeUndefined();
    expect(tokens.has('t')).toBe(false);
  });

  it("another connection's commit (a second process on the same data folder) is seen by the next read", () => {
    const { dataDir, tokens } = open();
    tokens.set('t', token());
    expect(tokens.get('t')?.revoked).toBe(false);
    const second = other(dataDir).tokens;
    second.set('t', token({ revoked: true }));
    expect(tokens.get('t')?.revoked).toBe(true);
    second.delete('t');
    expect(tokens.has('t')).toBe(false);
    expect(tokens.get('t')).toBeUndefined();
  });

  it("a request's refresh sees every commit made before it; the reads of its turn skip their own checks; the next turn checks again", async () => {
    const { dataDir, db, tokens } = open();
    tokens.set('t', token());
    expect(tokens.get('t')?.revoked).toBe(false);
    const second = other(dataDir).tokens;
    second.set('t', token({ revoked: true }));
    // What the emulator does as a request arrives (index.ts): committed before it, so seen by its reads.
    db.refresh();
    expect(tokens.get('t')?.revoked).toBe(true);
    // Committed after the request arrived, in the same turn: this request's reads keep the snapshot of its arrival.
    second.set('t', token({ scopes: ['payments'] }));
    expect(tokens.get('t')?.scopes).toEqual(['accounts']);
    await new Promise((done) => setImmediate(done));
    expect(tokens.get('t')?.scopes).toEqual(['payments']);
  });

  it('a pruned row is gone from reads too', () => {
    const { db, tokens } = open();
    tokens.set('old', token({ expiresAt: '2000-01-01T00:00:00.000Z' }));
    expect(tokens.get('old')).toBeDefined();
    expect(db.pruneBatch(Date.parse('2001-01-01T00:00:00.000Z'))).toBe(1);
    expect(tokens.get('old')).toBeUndefined();
  });

  it('a value read is frozen all the way down: changing it in place throws and the next read is unchanged', () => {
    const { tokens } = open();
    tokens.set('t', token());
    const read = tokens.get('t') as Token;
    expect(() => {
      read.revoked = true;
    }).toThrow(TypeError);
    expect(() => read.scopes.push('payments')).toThrow(TypeError);
    expect(tokens.get('t')).toEqual(token());
  });
});

describe("another connection's commits", () => {
  it('many commits by another connection between reads are each seen (data_version moves with every one)', () => {
    const { dataDir, tokens } = open();
    tokens.set('t', token());
    const second = other(dataDir).tokens;
    for (const scopes of [['a'], ['b'], ['c']]) {
      second.set('t', token({ scopes }));
      expect(tokens.get('t')?.scopes).toEqual(scopes);
    }
  });
});

// AuthStore.verify keeps the store key of the tokens presented last: the token is hashed once, but what the
// key finds is read and checked on every request.
describe('a presented token is looked up by its kept key and still checked on every request', () => {
  const client = {
    clientId: 'client-1',
    profile: 'strict-headless',
    softwareId: 's',
    orgId: 'o',
    redirectUris: [],
    certificateThumbprints: [],
  };
  const access = (overrides: Partial<TokenRecord> = {}): TokenRecord => ({
    kind: 'access',
    clientId: 'client-1',
    profile: 'strict-headless',
    grant: 'authorization_code',
    scopes: ['accounts'],
    expiresAt: '2999-01-01T00:00:00.000Z',
    revoked: false,
    ...overrides,
  });

  function store(): { dataDir: string; auth: AuthStore } {
    const dataDir = tempDirSync('obflow-store-verify-');
    const db = SandboxDb.open(dataDir);
    opened.push(db);
    const auth = new AuthStore(db, () => new Date('2026-01-01T00:00:00.000Z'));
    auth.clients.set('client-1', client as unknown as StoredClient);
    return { dataDir, auth };
  }

  it('a token revoked by another process after it was presented is refused the next time', async () => {
    const { dataDir, auth } = store();
    auth.tokens.set(hashSecret('token-a'), access());
    expect((await auth.verify('token-a'))?.clientId).toBe('client-1');
    new AuthStore(other(dataDir).db, () => new Date('2026-01-01T00:00:00.000Z')).tokens.set(
      hashSecret('token-a'),
      access({ revoked: true }),
    );
    expect(await auth.verify('token-a')).toBeUndefined();
  });

  it('more tokens than it keeps keys for: every one still verifies, an unknown one does not', async () => {
    const { auth } = store();
    const values = Array.from({ length: 300 }, (_, index) => `token-${index}`);
    for (const value of values) auth.tokens.set(hashSecret(value), access({ scopes: [value] }));
    for (const round of [1, 2]) {
      const scopes = await Promise.all(values.map(async (value) => (await auth.verify(value))?.scopes[0]));
      expect(scopes, `round ${round}`).toEqual(values);
    }
    expect(await auth.verify('token-unknown')).toBeUndefined();
  });
});
