// Atomic file writes for everything obflow produces: a sibling temporary file with the final mode, then rename, so a
// failure never leaves a half-written file. Secrets (keys, client secrets, tokens) get mode 0600, in 0700 folders.

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ObflowError } from './errors.js';

export async function writeFileAtomic(path: string, contents: string | Uint8Array, options: { secret?: boolean } = {}): Promise<void> {
  const mode = options.secret === true ? 0o600 : 0o644;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true, mode: options.secret === true ? 0o700 : 0o755 });
    await writeFile(tmp, contents, { mode, flag: 'wx' });
    // The umask may have narrowed the mode, never widened it; chmod makes it exact either way.
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (cause) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw new ObflowError('ERR_WRITE_FAILED', `could not write ${path}: ${(cause as Error).message}`, {
      hint: 'Check that the folder is writable and the disk is not full; nothing half-written was left.',
      cause,
    });
  }
}
