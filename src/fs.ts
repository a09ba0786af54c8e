// Atomic file writes for everything obflow produces: a sibling temporary file with the final mode, then rename, so a
// failure never leaves a half-written file. Secrets (keys, client secrets, tokens) get mode 0600, in 0700 folders.
// The temporary files still in flight are known (pendingTemporaryFiles), so an interrupt can remove them.

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ObflowError } from './errors.js';

const pending = new Set<string>();

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

export async function writeFileAtomic(path: string, contents: string | Uint8Array, options: { secret?: boolean } = {}): Promise<void> {
  const mode = options.secret === true ? 0o600 : 0o644;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  pending.add(tmp);
  try {
    await mkdir(dirname(path), { recursive: true, mode: options.secret === true ? 0o700 : 0o755 });
    await writeFile(tmp, contents, { mode, flag: 'wx' });
    // The umask may have narrowed the mode, never widened it; chmod makes it exact either way.
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (cause) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw writeFailed(`could not write ${path}`, cause);
  } finally {
    pending.delete(tmp);
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
    const reason = code === 'EEXIST' || code === 'ENOTDIR' ? `a file stands where the folder should be (${code})` : (cause as Error).message;
    throw writeFailed(`could not create the folder ${path}`, cause, reason);
  }
}

const WRITE_HINT = 'Check that the folder is writable, that no file stands where a folder should be, and that the disk is not full; nothing half-written was left.';

function writeFailed(what: string, cause: unknown, reason = (cause as Error).message): ObflowError {
  return new ObflowError('ERR_WRITE_FAILED', `${what}: ${reason}`, { hint: WRITE_HINT, cause });
}
