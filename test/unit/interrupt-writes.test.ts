// An interrupt while an atomic write's temporary file is still being created (its open(2) on libuv's thread pool) must
// not leave the `.tmp` behind: runInterruptCleanups (src/interrupt.ts) lets writes in flight settle before it removes
// the pending temporaries. Seen in CI as a `registrations/.….json.<hex>.tmp` after SIGTERM during `register`.

import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { writeTemporary } from '../../src/fs.js';
import { runInterruptCleanups } from '../../src/interrupt.js';
import { tempDir } from '../helpers/temp.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('an interrupt during a temporary write', () => {
  it('leaves no temporary file, even when the write creates it after the interrupt began', async () => {
    const dir = await tempDir('obflow-interrupt-writes-');
    dirs.push(dir);
    // Not awaited: the interrupt starts while mkdir and open are still on the thread pool.
    const writing = writeTemporary(join(dir, 'nested', 'registration.json'), '{"client_id":"x"}\n', { secret: true });
    await runInterruptCleanups(1_000);
    const written = await writing;
    expect(existsSync(written.tmp), 'the temporary file outlived the interrupt').toBe(false);
    expect(readdirSync(join(dir, 'nested'))).toEqual([]);
  });
});
