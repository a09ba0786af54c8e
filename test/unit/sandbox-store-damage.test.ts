// What the emulator's store detects of a damaged sandbox.db (src/sandbox/store/db.ts; docs/sandbox.md "State", each
// claim there held by a case here): random bytes written into the file are refused at the start or change nothing the
// store answers; a value changed in place (pages intact, which SQLite's checks pass) and an index entry changed (which
// quick_check passes) are refused at the start; a row changed by hand without its checksum is refused on the read that
// meets it; a store of schema version 1 gets its checksums at its first open. Not detected: damage to sandbox.db-wal
// (SQLite drops the commits from the damaged frame on, without an error).

import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { SandboxDataError } from '../../src/sandbox/contracts.js';
import { openSqlite, retainNative, SandboxDb } from '../../src/sandbox/store/db.js';
import type { CollectionSpec } from '../../src/sandbox/store/db.js';
import { tempDirSync } from '../helpers/temp.js';

interface Item {
  clientId: string;
  scopes: string[];
  expiresAt: string;
  n: number;
  note: string;
}

const SPEC: CollectionSpec<Item> = { name: 'tokens', expiresAt: (item) => Date.parse(item.expiresAt), tag: (item) => item.clientId };
const COUNT = 150;
const keyOf = (n: number): string => `key-${String(n).padStart(4, '0')}`;
const item = (n: number): Item => ({
  clientId: `client-${n % 7}`,
  scopes: ['accounts', 'payments'],
  expiresAt: '2999-01-01T00:00:00.000Z',
  n,
  note: `item number ${n} `.repeat(12),
});
/** Every tenth item is deleted after it was written: the file has free space in its pages, as a used store does. */
const KEPT = Array.from({ length: COUNT }, (_, n) => n).filter((n) => n % 10 !== 0);

const opened: SandboxDb[] = [];
afterAll(() => {
  for (const db of opened) db.close();
});

function open(dataDir: string): SandboxDb {
  const db = SandboxDb.open(dataDir);
  opened.push(db);
  return db;
}

/** A data folder whose sandbox.db holds the items (closed: everything is in sandbox.db, nothing in a -wal). Always the
 *  same bytes: the same writes in the same order. */
function storedFolder(): { dataDir: string; file: string } {
  const dataDir = tempDirSync('obflow-store-damage-');
  const db = SandboxDb.open(dataDir);
  const items = db.collection(SPEC);
  for (let n = 0; n < COUNT; n += 1) items.set(keyOf(n), item(n));
  for (let n = 0; n < COUNT; n += 10) items.delete(keyOf(n));
  db.close();
  return { dataDir, file: join(dataDir, 'sandbox.db') };
}

/** A copy of `dataDir` with `damage` applied to its sandbox.db's bytes. */
function damagedCopy(dataDir: string, damage: (bytes: Buffer) => void): { dataDir: string; file: string } {
  const copy = tempDirSync('obflow-store-damaged-');
  cpSync(dataDir, copy, { recursive: true });
  const file = join(copy, 'sandbox.db');
  const bytes = readFileSync(file);
  damage(bytes);
  writeFileSync(file, bytes);
  return { dataDir: copy, file };
}

/** Every kept item as the store answers it now: reads that throw throw. */
function readBack(db: SandboxDb): Map<number, unknown> {
  const items = db.collection(SPEC);
  return new Map(KEPT.map((n) => [n, items.get(keyOf(n))]));
}

const expected = new Map(KEPT.map((n) => [n, item(n)]));

function refusalOf(dataDir: string): SandboxDataError {
  let caught: unknown;
  try {
    open(dataDir);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SandboxDataError);
  return caught as SandboxDataError;
}

/** The byte offsets of `text` in `bytes`, and the type of the B-tree page each is in (sqlite.org/fileformat2.html
 *  §1.6: 13 a table leaf, 10 an index leaf; page 1's header follows the 100-byte file header). */
function occurrences(bytes: Buffer, text: string): Array<{ offset: number; pageType: number }> {
  const pageSize = bytes.readUInt16BE(16);
  const found: Array<{ offset: number; pageType: number }> = [];
  for (let offset = bytes.indexOf(text); offset !== -1; offset = bytes.indexOf(text, offset + 1)) {
    const page = Math.floor(offset / pageSize);
    found.push({ offset, pageType: bytes[page * pageSize + (page === 0 ? 100 : 0)] ?? -1 });
  }
  return found;
}

/** What SQLite's own check says of `file` (read-only, a connection of its own). */
function sqliteCheck(file: string, check: 'integrity_check' | 'quick_check'): unknown {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  const statement = retainNative(db.prepare(`PRAGMA ${check}`).pluck());
  try {
    return statement.get();
  } finally {
    db.close();
  }
}

/** A small seeded generator (mulberry32): the same damage on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('damage written into sandbox.db', () => {
  it('64 random bytes mid-file, 60 times: each refused at the start (SandboxDataError naming the file) or changing nothing the store answers', () => {
    const { dataDir } = storedFolder();
    const random = seeded(34);
    const outcomes = { refused: 0, unchanged: 0 };
    for (let trial = 0; trial < 60; trial += 1) {
      const copy = damagedCopy(dataDir, (bytes) => {
        const offset = Math.floor(bytes.length / 4 + random() * (bytes.length / 2));
        for (let index = 0; index < 64; index += 1) bytes[offset + index] = Math.floor(random() * 256);
      });
      let db: SandboxDb;
      try {
        db = open(copy.dataDir);
      } catch (error) {
        expect(error, `trial ${trial}`).toBeInstanceOf(SandboxDataError);
        expect((error as SandboxDataError).file).toBe(copy.file);
        outcomes.refused += 1;
        continue;
      }
      // Opened: the bytes fell where nothing stored lives (a page's free space), so every item reads as written.
      expect(readBack(db), `trial ${trial}`).toEqual(expected);
      outcomes.unchanged += 1;
    }
    // Both outcomes occur with these bytes (a test that only ever refused, or never did, would prove less).
    expect(outcomes.refused).toBeGreaterThan(10);
    expect(outcomes.unchanged).toBeGreaterThan(0);
  });

  it("a value changed in place, the file's structure intact (integrity_check passes it): refused at the start by the row's checksum", () => {
    const { dataDir } = storedFolder();
    const copy = damagedCopy(dataDir, (bytes) => {
      const [inTable] = occurrences(bytes, '"n":42,');
      expect(inTable?.pageType).toBe(13);
      bytes.write('"n":43,', inTable!.offset);
    });
    expect(sqliteCheck(copy.file, 'integrity_check')).toBe('ok');
    const refusal = refusalOf(copy.dataDir);
    expect(refusal.file).toBe(copy.file);
    expect(refusal.problem).toMatch(/^row \d+ \(tokens\) is not what was written: it fails its checksum/);
    // The key is not named: a token is stored under its hash, and a message is no place for either.
    expect(refusal.message).not.toContain(keyOf(42));
  });

  it('an index entry changed, the table intact (quick_check passes it, and the row would be lost): refused at the start', () => {
    const { dataDir } = storedFolder();
    const copy = damagedCopy(dataDir, (bytes) => {
      const inIndex = occurrences(bytes, keyOf(42)).filter((found) => found.pageType === 10);
      expect(inIndex).toHaveLength(1);
      bytes.write(keyOf(9042).slice(-4), inIndex[0]!.offset + 4);
    });
    expect(sqliteCheck(copy.file, 'quick_check')).toBe('ok');
    expect(refusalOf(copy.dataDir).problem).toMatch(/index|row/);
  });
});

describe('a row changed by hand while the store is open (an sqlite3 shell, without the checksum)', () => {
  function handEdited(): { db: SandboxDb; edit: (n: number) => void } {
    const { dataDir, file } = storedFolder();
    const db = open(dataDir);
    const shell = openSqlite(file, { fileMustExist: true });
    const update = retainNative(shell.prepare('UPDATE records SET value = ? WHERE collection = ? AND key = ?'));
    return { db, edit: (n) => void update.run(JSON.stringify({ ...item(n), scopes: ['accounts'] }), 'tokens', keyOf(n)) };
  }

  it('is refused on the read that meets it (SandboxDataError: the request answers 500), not answered as stored', () => {
    const { db, edit } = handEdited();
    const items = db.collection(SPEC);
    edit(41);
    expect(() => items.get(keyOf(41))).toThrow(SandboxDataError);
    expect(items.get(keyOf(43))).toEqual(item(43));
  });

  it('is refused by a lookup by tag too', () => {
    const { db, edit } = handEdited();
    const items = db.collection(SPEC);
    edit(42);
    expect(() => items.withTag(item(42).clientId)).toThrow(SandboxDataError);
    expect(items.withTag(item(43).clientId).map(([key]) => key)).toContain(keyOf(43));
  });
});

describe('a store of schema version 1 (rows without checksums)', () => {
  it('gets every row its checksum at its first open: read as before, and damaged later, refused', () => {
    const dataDir = tempDirSync('obflow-store-v1-');
    mkdirSync(dataDir, { recursive: true });
    // The tables as version 1 made them.
    const v1 = openSqlite(join(dataDir, 'sandbox.db'));
    v1.exec(
      'PRAGMA journal_mode = WAL;' +
        'CREATE TABLE records (collection TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at INTEGER, tag TEXT, UNIQUE (collection, key));' +
        'CREATE INDEX records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;' +
        'CREATE INDEX records_tag ON records (collection, tag) WHERE tag IS NOT NULL;' +
        "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '1');",
    );
    const insert = retainNative(v1.prepare('INSERT INTO records VALUES (?, ?, ?, ?, ?)'));
    for (const n of KEPT) insert.run('tokens', keyOf(n), JSON.stringify(item(n)), Date.parse(item(n).expiresAt), item(n).clientId);
    v1.close();

    const db = open(dataDir);
    expect(readBack(db)).toEqual(expected);
    expect(db.collection(SPEC).withTag('client-1')).toHaveLength(KEPT.filter((n) => n % 7 === 1).length);
    db.close();
    const copy = damagedCopy(dataDir, (bytes) => {
      const [inTable] = occurrences(bytes, '"n":42,');
      bytes.write('"n":43,', inTable!.offset);
    });
    expect(refusalOf(copy.dataDir).problem).toMatch(/fails its checksum/);
    // Version 2 now: opened again, nothing to migrate.
    const again = open(dataDir);
    expect(readBack(again)).toEqual(expected);
  });
});

describe('not detected: damage to sandbox.db-wal (the commits a kill left unmerged)', () => {
  it('SQLite reads the log up to the first frame that fails its own checksum: the commits from there on are gone, without an error', () => {
    const dataDir = tempDirSync('obflow-store-wal-');
    const db = open(dataDir);
    const items = db.collection(SPEC);
    for (let n = 0; n < 20; n += 1) items.set(keyOf(n), item(n));
    // What a kill -9 leaves: sandbox.db and its -wal, copied while the store is open (nothing merged into sandbox.db).
    const copy = tempDirSync('obflow-store-wal-copy-');
    copyFileSync(join(dataDir, 'sandbox.db'), join(copy, 'sandbox.db'));
    const wal = readFileSync(join(dataDir, 'sandbox.db-wal'));
    const pageSize = wal.readUInt32BE(8);
    const frames = (wal.length - 32) / (24 + pageSize);
    expect(frames).toBeGreaterThan(10);
    // One byte of a frame's page in the middle of the log (sqlite.org/walformat.html §1: a 32-byte header, then frames
    // of a 24-byte header and a page).
    const middle = 32 + Math.floor(frames / 2) * (24 + pageSize) + 24 + 100;
    wal[middle] = (wal[middle] ?? 0) ^ 0xff;
    writeFileSync(join(copy, 'sandbox.db-wal'), wal);

    const reopened = open(copy);
    const read = reopened.collection(SPEC);
    const present = Array.from({ length: 20 }, (_, n) => n).filter((n) => read.get(keyOf(n)) !== undefined);
    // The first commits are there, the last are not, and nothing said so.
    expect(present[0]).toBe(0);
    expect(present.length).toBeLessThan(20);
    expect(present).toEqual(Array.from({ length: present.length }, (_, n) => n));
  });
});
