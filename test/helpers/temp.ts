// One way to make a temporary folder in the tests: a fresh folder named `prefix…` under the run's temporary folder
// (test/global-setup.ts points TMPDIR at one folder per run and removes it at the end).

import { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function tempDirSync(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
