// Atomic file writes for everything obflow produces: a sibling temporary file with the final mode, then rename, so a
// failure never leaves a half-written file. Secrets (keys, client secrets, tokens) get mode 0600, in 0700 folders.
// The temporary files still in flight are known (pendingTemporaryFiles), so an interrupt can remove them.

import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ObflowError } from './errors.js';

const pending = new Set<string>();

/** Temporary writes whose open(2) may still be running on libuv's thread pool: one that lands after an interrupt removed
 *  the pending files would leave a `.tmp` behind, so an interrupt lets them settle first (settleTemporaryWrites). */
const writing = new Set<Promise<unknown>>();

/** Resolves when every temporary write in flight has settled, or after `timeoutMs`. */
export async function settleTemporaryWrites(timeoutMs: number): Promise<void> {
  if (writing.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...writing]),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]);
  if (timer !== undefined) clearTimeout(timer);
}

/** The temporary files of writes not yet renamed into place, and files marked unfinished (an interrupt removes them:
 *  docs/errors.md "Interrupts"). */
export function pendingTemporaryFiles(): readonly string[] {
  return [...pending];
}

/** Marks a file or staging folder as unfinished until the returned function is called (newman's JUnit report before
 *  redaction, another writer's temporary files): an interrupt removes it meanwhile, as it does the temporaries below. */
export function markUnfinished(path: string): () => void {
  pending.add(path);
  return () => {
    pending.delete(path);
  };
}

/** Writes `contents` to `path` with exactly `mode` (the umask may narrow what writeFile creates; chmod makes it exact);
 *  `wx`: never through an existing file or link. The one way obflow creates a file (here, and staged folders). */
export async function writeFileExact(path: string, contents: string | Uint8Array, mode: number): Promise<void> {
  await writeFile(path, contents, { mode, flag: 'wx' });
  await chmod(path, mode);
}

/** A finished temporary sibling of `path`, not yet in place: `place` puts it there (rename, or a link that claims
 *  `path` only if absent); `discard` removes what is left. Interrupted meanwhile, it is removed (pendingTemporaryFiles). */
export interface TemporaryFile {
  tmp: string;
  discard(): Promise<void>;
}

/** Writes a temporary sibling of `path` (mode 0600 for secrets, else 0644; folders 0700/0755). The caller places it
 *  and calls discard() in every case (after a rename there is nothing left to remove). */
export async function writeTemporary(
  path: string,
  contents: string | Uint8Array,
  options: { secret?: boolean } = {},
): Promise<TemporaryFile> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  pending.add(tmp);
  const discard = async (): Promise<void> => {
    await rm(tmp, { force: true }).catch(() => undefined);
    pending.delete(tmp);
  };
  const write = (async () => {
    await mkdir(dirname(path), { recursive: true, mode: options.secret === true ? 0o700 : 0o755 });
    await writeFileExact(tmp, contents, options.secret === true ? 0o600 : 0o644);
  })();
  writing.add(write);
  try {
    await write;
  } catch (cause) {
    await discard();
    throw cause;
  } finally {
    writing.delete(write);
  }
  return { tmp, discard };
}

/** The atomic write: a temporary sibling with the final mode, then rename (POSIX rename(2) replaces atomically). */
export async function writeFileAtomic(path: string, contents: string | Uint8Array, options: { secret?: boolean } = {}): Promise<void> {
  let temporary: TemporaryFile | undefined;
  try {
    temporary = await writeTemporary(path, contents, options);
    await rename(temporary.tmp, path);
  } catch (cause) {
    throw writeFailed(`could not write ${path}`, cause);
  } finally {
    await temporary?.discard();
  }
}

/**
 * Puts the finished folder `staging` at `dir`. With `replace` the folder at `dir` moves aside first and is removed
 * after the new one is in place. The two renames are synchronous: a signal's handler runs on the event loop, so it
 * cannot fall between them and leave nothing at `dir` (an interrupt finds the old folder or the new one, whole). If
 * the second rename fails, the old folder goes back before the error is thrown. Without `replace`, rename(2) still
 * replaces an empty directory at `dir`. The backup is marked unfinished while it is removed (an interrupt removes it).
 * The one folder swap of obflow: identities (src/pki/files.ts) and workspaces (src/workspace/write.ts).
 */
export async function placeFolder(staging: string, dir: string, options: { replace: boolean }): Promise<void> {
  if (!options.replace) {
    renameSync(staging, dir);
    return;
  }
  const backup = join(dirname(dir), `.${basename(dir)}.old-${randomBytes(6).toString('hex')}`);
  renameSync(dir, backup);
  try {
    renameSync(staging, dir);
  } catch (cause) {
    renameSync(backup, dir);
    throw cause;
  }
  const finished = markUnfinished(backup);
  try {
    await rm(backup, { recursive: true, force: true });
  } finally {
    finished();
  }
}

/** A folder obflow writes into (reports, run files): created if absent; a file in its place or no permission →
 *  ERR_WRITE_FAILED, like every other write. */
export async function ensureDirectory(path: string, options: { secret?: boolean } = {}): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: options.secret === true ? 0o700 : 0o755 });
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    // mkdir -p says EEXIST (or ENOTDIR) when a file stands at the path or on the way to it.
    const reason =
      code === 'EEXIST' || code === 'ENOTDIR' ? `a file stands where the folder should be (${code})` : (cause as Error).message;
    throw writeFailed(`could not create the folder ${path}`, cause, reason);
  }
}

const WRITE_HINT =
  'Check that the folder is writable, that no file stands where a folder should be, and that the disk is not full; nothing half-written was left.';

function writeFailed(what: string, cause: unknown, reason = (cause as Error).message): ObflowError {
  return new ObflowError('ERR_WRITE_FAILED', `${what}: ${reason}`, { hint: WRITE_HINT, cause });
}

/** A cache's file written whole and synchronously (a temporary beside it, renamed): a reader never sees half of it, and
 *  no signal's handler runs between the write and the rename. Never throws — a cache written at exit would replace the
 *  command's exit code; a read-only installation or a full disk leaves the next start without the cache, as without
 *  caching. (src/run/reporters/template-cache.ts, as a template is compiled.) */
export function writeCacheFile(file: string, data: string | Uint8Array): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, data);
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // No folder to hold it: nothing was written.
    }
  }
}
