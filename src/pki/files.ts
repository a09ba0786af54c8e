// Writes a whole identity folder atomically (staging folder + rename), keys owner-only; single files: src/fs.ts.

import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';

import { ObflowError } from '../errors.js';
import { markUnfinished, placeFolder, writeFileExact } from '../fs.js';

/** A file of a folder, path relative to it: `secret` files (private keys) get mode 0600, others 0644. */
export interface FolderFile {
  rel: string;
  contents: string;
  secret: boolean;
}

function writeFailed(path: string, cause: unknown): ObflowError {
  return new ObflowError('ERR_WRITE_FAILED', `could not write ${path}`, {
    hint: 'check that the folder is writable and the disk is not full; nothing was changed',
    cause,
  });
}

/**
 * Writes a whole folder atomically: every file into a private staging folder next to it (mode 0700), then one rename
 * into place. An existing non-empty folder is swapped out (and removed) only when `replace` is set; otherwise, and on
 * any failure, the folder is left exactly as it was.
 */
export async function writeFolderAtomic(dir: string, files: readonly FolderFile[], replace: boolean): Promise<void> {
  const parent = dirname(dir);
  let staging: string;
  try {
    await mkdir(parent, { recursive: true, mode: 0o700 });
    staging = await mkdtemp(join(parent, `.${basename(dir)}.staging-`));
  } catch (cause) {
    throw writeFailed(dir, cause);
  }
  // An interrupt removes the staging folder (docs/errors.md, "Interrupts").
  const finished = markUnfinished(staging);
  try {
    for (const file of files) {
      const path = join(staging, file.rel);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFileExact(path, file.contents, file.secret ? 0o600 : 0o644);
    }
    const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    if (existing.length > 0 && !replace) {
      throw new ObflowError('ERR_WRITE_FAILED', `${dir} is not empty`, {
        hint: 'choose an empty folder, or replace its identity explicitly (obflow init --force)',
      });
    }
    // The swap cannot leave nothing at `dir`, even interrupted (src/fs.ts placeFolder).
    await placeFolder(staging, dir, { replace: existing.length > 0 });
  } catch (cause) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw cause instanceof ObflowError ? cause : writeFailed(dir, cause);
  } finally {
    finished();
  }
}
