// The client certificate's files read once per run, not at every request. postman-runtime reads the key and
// the certificate of the sslClientCertList entry a request matches before every request (its request-helpers-presend:
// `fileResolver.readFile(src)`, newman's SecureFS, whose readFile is node:fs's readFile): 75 reads in the default demo,
// each four trips through libuv's thread pool that the request waits for — 90–150 ms summed on this machine. For
// obflow's own runs (src/run/runner.ts) the files the list names are read at the run's start, after the preflight
// checked them, and newman's reads of those paths are answered from memory until the run ends (a copy, on the next
// tick, as fs.readFile answers); any other file newman reads goes to fs.readFile as before. A file renewed during a run
// is read by the next run (a run that starts while another keeps the path reads it afresh, and both get the newer
// bytes). A newman whose resolver is not where newman-load.ts looks keeps reading the files itself.

import { readFileSync } from 'node:fs';
import { loadNewmanFileResolver } from './newman-load.js';
import type { SslClientCert } from './certificates.js';
import type { NewmanFileResolver } from './newman-types.js';

type ReadFileCallback = (error: NodeJS.ErrnoException | null, data?: Buffer) => void;

export interface CertificateFileStats {
  /** Reads newman asked for that were answered from memory. */
  answered: number;
}

/** Path → contents, with how many runs keep it. */
const kept = new Map<string, { data: Buffer; runs: number }>();
const stats: CertificateFileStats = { answered: 0 };
const patched = new WeakSet<object>();

/** What this process's runs answered so far (for tests). */
export function certificateFileStats(): CertificateFileStats {
  return { ...stats };
}

/** Keeps the files the list names (key, certificate, PFX) for newman's reads until the returned release is called. */
export async function keepCertificateFiles(
  list: readonly SslClientCert[],
  resolver: Promise<NewmanFileResolver | undefined> = loadNewmanFileResolver(),
): Promise<() => void> {
  const fileResolver = await resolver;
  if (fileResolver === undefined) return () => undefined;
  answerKeptPaths(fileResolver);
  const paths = [...new Set(list.flatMap((entry) => [entry.key?.src, entry.cert?.src, entry.pfx?.src]))].filter(
    (path): path is string => path !== undefined,
  );
  const mine: string[] = [];
  for (const path of paths) {
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch {
      continue; // newman reads it itself, and warns as it does
    }
    kept.set(path, { data, runs: (kept.get(path)?.runs ?? 0) + 1 });
    mine.push(path);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const path of mine) {
      const entry = kept.get(path)!;
      entry.runs -= 1;
      if (entry.runs === 0) kept.delete(path);
    }
  };
}

/** The resolver's readFile answers kept paths from memory (installed once per resolver class). */
function answerKeptPaths(resolver: NewmanFileResolver): void {
  const prototype = resolver.prototype;
  if (patched.has(prototype)) return;
  patched.add(prototype);
  const original = prototype.readFile;
  prototype.readFile = function readFile(this: unknown, path: unknown, ...rest: unknown[]): void {
    const entry = typeof path === 'string' ? kept.get(path) : undefined;
    const callback = rest[0]; // postman-runtime asks with no options; a read with options goes to disk
    if (entry === undefined || typeof callback !== 'function') {
      original.call(this, path, ...rest);
      return;
    }
    stats.answered += 1;
    const data = Buffer.from(entry.data);
    process.nextTick(() => (callback as ReadFileCallback)(null, data));
  };
}
