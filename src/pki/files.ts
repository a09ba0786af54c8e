// Small file helpers for identity material: atomic writes (temp file + rename) and owner-only modes for secrets.

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';

import { ObflowError } from '../errors.js';

/** One file to write: `secret` files (private keys) get mode 0600, others 0644. */
export interface PendingFile {
  path: string;
  contents: string;
  secret: boolean;
}

/** Writes one file atomically: a sibling temp file with the final mode, then rename over the target. */
export async function writeFileAtomic(path: string, contents: string, secret: boolean): Promise<void> {
  const mode = secret ? 0o600 : 0o644;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(tmp, contents, { mode, flag: 'wx' });
    // The umask may have narrowed the mode, never widened it; chmod makes it exact either way.
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (cause) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw new ObflowError('ERR_WRITE_FAILED', `could not write ${path}`, {
      hint: 'check that the folder is writable and the disk is not full',
      cause,
    });
  }
}

/** Writes every file (each atomically). Callers build all contents first, so a failure leaves no half-made set. */
export async function writeFilesAtomic(files: readonly PendingFile[]): Promise<void> {
  for (const file of files) await writeFileAtomic(file.path, file.contents, file.secret);
}
