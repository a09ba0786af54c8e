// A small persistent key-value collection for the emulator: in memory, written through to one JSON file per
// collection with atomic replace (write a temporary file, then rename), so a restart with the same data directory
// sees every committed write and a crash never leaves a half-written file.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class JsonCollection<T> {
  private readonly file: string;
  private readonly entries: Map<string, T>;

  constructor(dataDir: string, name: string) {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new TypeError(`bad collection name ${name}`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.file = join(dataDir, `${name}.json`);
    this.entries = new Map(Object.entries(readJsonObject<T>(this.file)));
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }


  /** [key, value] pairs in insertion order (a copy: safe to set() while iterating). */
  pairs(): Array<[string, T]> {
    return [...this.entries.entries()];
  }

  set(key: string, value: T): void {
    this.entries.set(key, value);
    this.flush();
  }

  delete(key: string): boolean {
    const had = this.entries.delete(key);
    if (had) this.flush();
    return had;
  }

  /** Drop every entry for which `expired` is true (one write). */
  prune(expired: (value: T) => boolean): void {
    let changed = false;
    for (const [key, value] of this.entries) {
      if (expired(value)) {
        this.entries.delete(key);
        changed = true;
      }
    }
    if (changed) this.flush();
  }

  private flush(): void {
    // Synchronous on purpose: the emulator's writes are small, and ordering is then trivially the call order.
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.entries)), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

function readJsonObject<T>(file: string): Record<string, T> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${file} is not a JSON object`);
  }
  return parsed as Record<string, T>;
}
