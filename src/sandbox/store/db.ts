// The emulator's persistent store: one SQLite database (better-sqlite3, the one typed adapter over it) in the data
// directory, holding every collection as key → JSON value rows with an optional expiry and lookup tag. A write is one
// indexed row (its cost does not grow with what the store holds); expired rows are pruned in small batches as they
// expire; a database or legacy JSON file that cannot be read stops the start with a SandboxDataError naming it, and so
// does a row that is not what was written (each row carries a checksum; docs/sandbox.md "State" says what is detected).
// Durability (docs/sandbox.md "Data directory"): WAL journal, synchronous=NORMAL — a committed write is in the
// operating system's hands before the response leaves, so it survives kill -9 of the sandbox; a power cut may lose the
// last commits but never corrupts the database (https://www.sqlite.org/wal.html, "Durability").

import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Options as SqliteOptions, Statement } from 'better-sqlite3';

import { SandboxDataError, SandboxNativeModuleError } from '../contracts.js';
import { keepAtMost } from '../kept.js';
import { keptSqliteAddon, nativeModuleFailure } from './native.js';

const DATABASE_FILE = 'sandbox.db';

/** Expired rows stay this long before they are pruned, so a late request still gets the precise "expired" answer
 *  (an expired code, a consent past its ExpirationDateTime) instead of "unknown". */
const PRUNE_AFTER_EXPIRY_MS = 60 * 60 * 1000;
/** Rows deleted per prune batch: one batch is a short transaction, so pruning never holds the event loop for long. */
const PRUNE_BATCH = 500;

/** How one collection indexes its values: when a value expires (ms since epoch) and an optional lookup tag. */
export interface CollectionSpec<T> {
  name: string;
  expiresAt?: (value: T) => number | undefined;
  tag?: (value: T) => string | undefined;
}

/** 2: every row carries its checksum (a store of version 1 gets them at its first open, migrateChecksums). */
const SCHEMA_VERSION = '2';

/**
 * Every better-sqlite3 object (database, statement, iterator) this process makes stays reachable until the process
 * exits; none is left to the garbage collector. better-sqlite3 12 wraps them in `node::ObjectWrap`, whose destructor
 * since Node.js 24.19 removes an environment cleanup hook and asserts a Node.js context is entered. A collection run
 * from a V8 platform task (idle or incremental GC, no context entered) then aborts the whole process
 * (`node::RemoveEnvironmentCleanupHook … Assertion failed: (env) != nullptr`, exit 134): `obflow demo` did, right after
 * `environment`, as newman's script sandbox made garbage beside the emulator. Kept here, they are deleted by Node.js's
 * own cleanup hooks at exit, inside the environment. A closed database's objects hold no SQLite handles (close()
 * finalizes its statements), so what stays is a few hundred bytes per sandbox opened.
 *
 * The set hangs from the global object, not from this module: a module can be released before its process exits (a
 * test runner that reuses one process for many files drops each file's modules after it), and a set released with its
 * module leaves its objects to the same garbage collection.
 */
export const RETAINED_NATIVE_KEY = Symbol.for('obflow.sandbox.store.retained-native-objects');
const RETAINED: Set<object> = ((globalThis as { [RETAINED_NATIVE_KEY]?: Set<object> })[RETAINED_NATIVE_KEY] ??= new Set<object>());

/** Keeps a better-sqlite3 object (database, statement, iterator) reachable until the process exits (RETAINED). Every
 *  such object any code of this project makes goes through it, tests and tools included. */
export function retainNative<T extends object>(native: T): T {
  RETAINED.add(native);
  return native;
}

/** A database on `file` with the build of better-sqlite3 kept for this Node.js when there is one (switching runtimes
 *  needs no rebuild), else the package's own, retained (RETAINED). Every database this project opens is opened here,
 *  the tests' included. */
export function openSqlite(file: string, options: Omit<SqliteOptions, 'nativeBinding'> = {}): SqliteDatabase {
  return retainNative(new Database(file, { ...options, nativeBinding: keptSqliteAddon() }));
}

/** db.prepare, with the statement retained for the life of the process (RETAINED). */
function prepare<P extends unknown[] | object, R = unknown>(db: SqliteDatabase, sql: string): Statement<P, R> {
  return retainNative(db.prepare<P, R>(sql));
}

/** Decoded values kept per collection (at most this many, the oldest dropped first): a keep-alive client reading with
 *  one token asks for the same token, client and consent on every request. Values of other collections are kept as
 *  well: every write of this connection goes through set/delete/pruneBatch, which drop what they change (migrateLegacy
 *  writes at open, before anything is read). */
const CACHE_ENTRIES = 1024;

/**
 * What every collection of one database shares to keep decoded values correct: SQLite's `PRAGMA data_version`
 * (https://www.sqlite.org/pragma.html#pragma_data_version) changes when *another* connection (a second process on the
 * same data folder, an `sqlite3` shell) commits, and never for this connection's own commits, which Collection
 * applies to its cache itself. One pragma step (~2 µs, once per request: refresh) replaces a SELECT and a JSON.parse
 * per read (bench: GET /accounts did four of each).
 */
class Freshness {
  private readonly versionStatement: Statement<[], unknown>;
  private seen: unknown;
  private readonly caches = new Set<Map<string, unknown>>();

  constructor(db: SqliteDatabase) {
    this.versionStatement = prepare<[], unknown>(db, 'PRAGMA data_version').pluck();
    this.seen = this.versionStatement.get();
  }

  cache<T>(): Map<string, T> {
    const cache = new Map<string, T>();
    this.caches.add(cache as Map<string, unknown>);
    return cache;
  }

  /** Set by refresh() until the end of this turn of the event loop: reads skip their own check meanwhile. */
  private pinned = false;
  private unpinning = false;

  /**
   * Checks now, then lets the reads of this turn of the event loop skip their checks (a request's handler reads the
   * token, its client and the consent in one turn: one `data_version` step instead of one per read). Called as a
   * request arrives, it keeps the rule that matters: every read of the request sees what any connection committed
   * before the request arrived. Reads in a later turn check again.
   */
  refresh(): void {
    this.pinned = false;
    this.check();
    this.pinned = true;
    if (this.unpinning) return;
    this.unpinning = true;
    setImmediate(() => this.unpin());
  }

  unpin(): void {
    this.pinned = false;
    this.unpinning = false;
  }

  /** Drops every cached value when another connection committed since the last check. */
  check(): void {
    if (this.pinned) return;
    const version = this.versionStatement.get();
    if (version === this.seen) return;
    this.seen = version;
    this.clear();
  }

  /** Drops every cached value (this connection changed rows outside a single key: a prune). */
  clear(): void {
    for (const cache of this.caches) cache.clear();
  }
}

/** Freezes a decoded value all the way down: cached values are shared between requests, so none may be changed in
 *  place (a handler that tried would throw instead of altering what the next request reads). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

export class Collection<T> {
  private readonly cache: Map<string, T>;
  private readonly getStatement: Statement<[string, string], StoredRow>;
  private readonly hasStatement: Statement<[string, string], { found: number }>;
  private readonly setStatement: Statement<Row>;
  private readonly deleteStatement: Statement<[string, string]>;
  private readonly tagStatement: Statement<[string, string], StoredRow>;

  constructor(
    db: SqliteDatabase,
    private readonly spec: CollectionSpec<T>,
    private readonly freshness: Freshness,
    private readonly file: string,
  ) {
    if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) throw new TypeError(`bad collection name ${spec.name}`);
    this.cache = freshness.cache<T>();
    this.getStatement = prepare(db, `SELECT ${STORED_COLUMNS} FROM records WHERE collection = ? AND key = ?`);
    this.hasStatement = prepare(db, 'SELECT 1 AS found FROM records WHERE collection = ? AND key = ?');
    this.setStatement = prepare(
      db,
      'INSERT INTO records (collection, key, value, expires_at, tag, checksum) VALUES (?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, tag = excluded.tag, ' +
        'checksum = excluded.checksum',
    );
    this.deleteStatement = prepare(db, 'DELETE FROM records WHERE collection = ? AND key = ?');
    this.tagStatement = prepare(db, `SELECT ${STORED_COLUMNS} FROM records WHERE collection = ? AND tag = ? ORDER BY rowid`);
  }

  /** The value under `key`, deeply frozen (shared with later reads: copy it to change it, then set()). */
  get(key: string): Readonly<T> | undefined {
    this.freshness.check();
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const row = this.getStatement.get(this.spec.name, key);
    if (row === undefined) return undefined;
    const value = deepFreeze(JSON.parse(verified(this.file, row).value) as T);
    keepAtMost(this.cache, CACHE_ENTRIES, key, value);
    return value;
  }

  /** Whether `key` is present, without reading or parsing its value (the index answers alone). */
  has(key: string): boolean {
    this.freshness.check();
    return this.cache.has(key) || this.hasStatement.get(this.spec.name, key) !== undefined;
  }

  /** Insert or replace; committed (and so kept across a kill) when it returns. */
  set(key: string, value: T): void {
    this.cache.delete(key);
    this.setStatement.run(...rowOf(this.spec, key, value));
  }

  delete(key: string): boolean {
    this.cache.delete(key);
    return this.deleteStatement.run(this.spec.name, key).changes > 0;
  }

  /** [key, value] pairs carrying `tag`, in insertion order (an index lookup, not a scan). */
  withTag(tag: string): Array<[string, T]> {
    return this.tagStatement.all(this.spec.name, tag).map((row) => [row.key, JSON.parse(verified(this.file, row).value) as T]);
  }
}

type Row = [collection: string, key: string, value: string, expiresAt: number | null, tag: string | null, checksum: number];

/** The row a value becomes: its JSON, its expiry (none when absent or not a date), its tag and their checksum. */
function rowOf<T>(spec: CollectionSpec<T>, key: string, value: T): Row {
  const expiresAt = spec.expiresAt?.(value);
  const row = {
    collection: spec.name,
    key,
    value: JSON.stringify(value),
    expires_at: expiresAt === undefined || Number.isNaN(expiresAt) ? null : expiresAt,
    tag: spec.tag?.(value) ?? null,
  };
  return [row.collection, row.key, row.value, row.expires_at, row.tag, checksumOf(row)];
}

/** A row as read back, with the checksum written with it. */
interface StoredRow {
  collection: string;
  key: string;
  value: string;
  expires_at: number | null;
  tag: string | null;
  checksum: number | null;
}

const STORED_COLUMNS = 'collection, key, value, expires_at, tag, checksum';

/**
 * A row's checksum: CRC-32 (RFC 1952 §8, zlib.crc32) over its collection, key, expiry, tag (\u0001 for none) and value,
 * NUL-separated. SQLite's own checks (integrity_check) see a damaged page structure, not a changed byte inside a value
 * or a key: 64 random bytes written into sandbox.db once changed a stored item and passed them (docs/notes.md). A
 * random change goes unseen with odds of 1 in 2^32. One string, one call: ~2 µs a row (the start checks every row).
 */
function checksumOf(row: Omit<StoredRow, 'checksum'>): number {
  return crc32(`${row.collection}\0${row.key}\0${row.expires_at ?? ''}\0${row.tag ?? '\u0001'}\0${row.value}`);
}

/** The row, when its checksum is the one written with it; otherwise SandboxDataError naming the file and the row (its
 *  rowid and collection: a key may be a token's hash). */
function verified(file: string, row: StoredRow & { rowid?: number }): StoredRow {
  if (row.checksum === checksumOf(row)) return row;
  const which = row.rowid === undefined ? `a row of ${row.collection}` : `row ${row.rowid} (${row.collection})`;
  throw new SandboxDataError(file, `${which} is not what was written: it fails its checksum (the file is damaged)`);
}

export class SandboxDb {
  private readonly freshness: Freshness;
  private readonly pruneStatement: Statement<[number, number]>;
  private readonly insertStatement: Statement<Row>;

  private constructor(
    readonly file: string,
    private readonly db: SqliteDatabase,
  ) {
    this.freshness = new Freshness(db);
    this.pruneStatement = prepare(db, 'DELETE FROM records WHERE rowid IN (SELECT rowid FROM records WHERE expires_at < ? LIMIT ?)');
    this.insertStatement = prepare(
      db,
      'INSERT OR REPLACE INTO records (collection, key, value, expires_at, tag, checksum) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  /**
   * Freshness.refresh for this database: the emulator calls it as each request arrives, outside the request's error
   * handling — so it never throws: on a closed database or a failed check the reads check on their own, as before,
   * and fail inside the request's handler.
   */
  refresh(): void {
    if (!this.db.open) return;
    try {
      this.freshness.refresh();
    } catch {
      this.freshness.unpin();
    }
  }

  /**
   * Opens (or creates) the database in `dataDir`, checks it can be read, cleans what a kill left behind and migrates
   * a data directory of the earlier JSON format. Throws SandboxDataError naming the file that cannot be read.
   * `startedBefore` names files of the folder that a first start writes (keys.json): beside any of them an empty
   * sandbox.db is a store that lost its data, refused, not a new one.
   */
  static open(dataDir: string, options: { startedBefore?: readonly string[] } = {}): SandboxDb {
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      removeStrayTemporaries(dataDir);
    } catch (cause) {
      // A data folder that cannot be made, read or cleaned (a file in its place, permissions): named, never "the ports".
      throw new SandboxDataError(dataDir, cause instanceof Error ? cause.message : String(cause), { cause });
    }
    const file = join(dataDir, DATABASE_FILE);
    refuseEmptyStore(dataDir, file, options.startedBefore ?? []);
    let db: SqliteDatabase | undefined;
    try {
      // Created owner-only (it holds client secrets); SQLite gives its -wal and -shm files the database's mode.
      closeSync(openSync(file, 'a', 0o600));
      db = openSqlite(file, { fileMustExist: true });
      // Pragmas through retained statements (db.pragma() would prepare one and drop it: RETAINED).
      prepare<[]>(db, 'PRAGMA journal_mode = WAL').get();
      prepare<[]>(db, 'PRAGMA synchronous = NORMAL').run();
      // A damaged or truncated file is refused now, not on the request that happens to touch the bad page: the whole
      // check, which also holds every index to its table (quick_check does not: a changed index entry hides a row).
      const check = prepare<[], unknown>(db, 'PRAGMA integrity_check').pluck().get();
      if (check !== 'ok') throw new Error(String(check));
      db.exec(
        'CREATE TABLE IF NOT EXISTS records (collection TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at INTEGER, tag TEXT, ' +
          'checksum INTEGER NOT NULL, UNIQUE (collection, key));' +
          'CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;' +
          'CREATE INDEX IF NOT EXISTS records_tag ON records (collection, tag) WHERE tag IS NOT NULL;' +
          'CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);',
      );
      const version = prepare<[], { value: string }>(db, "SELECT value FROM meta WHERE name = 'schema'").get();
      if (version === undefined) prepare<[string]>(db, "INSERT INTO meta (name, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
      else if (version.value === '1') migrateChecksums(db);
      else if (version.value !== SCHEMA_VERSION)
        throw new Error(`schema version ${version.value} is not ${SCHEMA_VERSION} (written by another obflow version)`);
      // Every row against its checksum, once, before anything is served: a damaged row is refused now, whichever
      // request would have read it (a row read later is checked again as it is read: verified). The iterator is a
      // native object too (RETAINED).
      const rows = prepare<[], StoredRow & { rowid: number }>(db, `SELECT rowid, ${STORED_COLUMNS} FROM records`);
      for (const row of retainNative(rows.iterate())) verified(file, row);
    } catch (cause) {
      db?.close();
      // better-sqlite3 loads its addon on the first `new Database`: one built for another Node.js is not damaged data.
      const native = nativeModuleFailure(cause, 'better-sqlite3');
      if (native) throw new SandboxNativeModuleError(native.module, native.problem, { cause });
      if (cause instanceof SandboxDataError) throw cause;
      throw new SandboxDataError(file, cause instanceof Error ? cause.message : String(cause), { cause });
    }
    return new SandboxDb(file, db);
  }

  collection<T>(spec: CollectionSpec<T>): Collection<T> {
    return new Collection(this.db, spec, this.freshness, this.file);
  }

  /**
   * Imports the earlier format's `<name>.json` files into `collections` in one transaction, then removes them. A
   * file that does not parse stops the start (SandboxDataError naming it) and nothing is imported.
   */
  migrateLegacy(dataDir: string, specs: ReadonlyArray<CollectionSpec<never>>): void {
    // The earlier format kept one `<name>.json` object per collection, named as the collections are now.
    const present = specs.filter((spec) => existsSync(join(dataDir, `${spec.name}.json`)));
    if (present.length === 0) return;
    const done = prepare<[], { value: string }>(this.db, "SELECT value FROM meta WHERE name = 'migrated-json'").get() !== undefined;
    if (!done) {
      const parsed = present.map((spec) => ({ spec, entries: Object.entries(readLegacyObject(join(dataDir, `${spec.name}.json`))) }));
      this.db.transaction(() => {
        for (const { spec, entries } of parsed)
          for (const [key, value] of entries) this.insertStatement.run(...rowOf(spec, key, value as never));
        prepare<[string]>(this.db, "INSERT INTO meta (name, value) VALUES ('migrated-json', ?)").run(new Date().toISOString());
      })();
    }
    // Committed: the JSON files are now only a stale copy (a kill before this line removes them on the next start).
    for (const spec of present) rmSync(join(dataDir, `${spec.name}.json`), { force: true });
  }

  /**
   * Runs `work` as one write transaction (BEGIN IMMEDIATE: the write lock is taken first, so no other connection
   * commits in between): its reads see every commit of any connection (the cached values are checked afresh inside),
   * and its writes are committed together before it returns, or none is when it throws. A payment, the consent it uses
   * up, its debit and its idempotency key are one such transaction (docs/sandbox-payments.md, "Idempotency").
   */
  transaction<T>(work: () => T): T {
    this.freshness.unpin();
    try {
      return this.db
        .transaction(() => {
          this.freshness.check();
          return work();
        })
        .immediate();
    } catch (error) {
      // Rolled back: a value read inside after a write of it is not committed, so no cached value is kept.
      this.freshness.clear();
      throw error;
    }
  }

  /** Deletes at most one batch of rows expired before `now - PRUNE_AFTER_EXPIRY_MS`; returns how many. */
  pruneBatch(now: number): number {
    const changes = this.pruneStatement.run(now - PRUNE_AFTER_EXPIRY_MS, PRUNE_BATCH).changes;
    if (changes > 0) this.freshness.clear();
    return changes;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** A store of schema version 1 (rows without checksums) made version 2 in one transaction: each row gets the checksum
 *  of what it holds now — damage done before this open is not seen by it (integrity_check above still applies). */
function migrateChecksums(db: SqliteDatabase): void {
  db.transaction(() => {
    db.exec('ALTER TABLE records ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0');
    const update = prepare<[number, number]>(db, 'UPDATE records SET checksum = ? WHERE rowid = ?');
    const rows = prepare<[], Omit<StoredRow, 'checksum'> & { rowid: number }>(
      db,
      'SELECT rowid, collection, key, value, expires_at, tag FROM records',
    ).all();
    for (const row of rows) update.run(checksumOf(row), row.rowid);
    prepare<[string]>(db, "UPDATE meta SET value = ? WHERE name = 'schema'").run(SCHEMA_VERSION);
  })();
}

/**
 * A first start is told by the folder (no sandbox.db yet, none of the files a first start writes), never by an empty
 * file: SQLite opens a 0-byte file as a new, empty database, so a sandbox.db truncated to nothing would silently forget
 * every client. Our own open never leaves one empty once anything is stored (switching to WAL writes the header), so
 * an empty sandbox.db beside keys.json or a -wal file is a store that lost its data. A missing sandbox.db is a new one
 * (ERR_SANDBOX_DATA's hint says removing it forgets what it held).
 */
function refuseEmptyStore(dataDir: string, file: string, startedBefore: readonly string[]): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new SandboxDataError(file, cause instanceof Error ? cause.message : String(cause), { cause });
  }
  if (size > 0) return;
  const witnesses = [...startedBefore, `${DATABASE_FILE}-wal`].filter((name) => existsSync(join(dataDir, name)));
  if (witnesses.length === 0) return;
  throw new SandboxDataError(
    file,
    `it is empty (0 bytes), yet the folder holds ${witnesses.join(' and ')}, so it was started before and the ` +
      'clients, consents and tokens it held are gone (restore the file from a copy, or remove it to start with none)',
  );
}

/** `<name>.json.<pid>.tmp` files of an atomic replace a kill interrupted (this format's keys.json, the earlier
 *  format's collections): removed unless the process that writes them is still alive. */
function removeStrayTemporaries(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    const match = /^[a-z][a-z0-9-]*\.json\.(\d+)\.tmp$/.exec(name);
    if (!match || processAlive(Number(match[1]))) continue;
    rmSync(join(dataDir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLegacyObject(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new SandboxDataError(file, cause instanceof Error ? cause.message : String(cause), { cause });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SandboxDataError(file, 'not a JSON object');
  return parsed as Record<string, unknown>;
}
