// Atomic file writes for everything obflow produces: write a temporary file beside the target, then rename, so a
// failure never leaves a half-written file. Secrets get mode 0600.

import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ObflowError } from './errors.js';

export async function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(tmp, data, { mode: options.mode ?? 0o644 });
    await rename(tmp, file);
  } catch (cause) {
    await rm(tmp, { force: true });
    throw new ObflowError('ERR_WRITE_FAILED', `could not write ${file}: ${(cause as Error).message}`, {
      hint: 'Check that the folder is writable and the disk has space.',
      cause,
    });
  }
}
