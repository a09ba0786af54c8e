// The PEM copy of a legacy PFX for newman (src/pipeline/transport-copy.ts): private (0700 folder, 0600 files), removed
// by remove() at the end of the run, and by the interrupt cleanup (src/interrupt.ts) if the run is interrupted.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { pendingTemporaryFiles } from '../../src/fs.js';
import { removeTemporaryFiles } from '../../src/interrupt.js';
import { writeTransportCopy } from '../../src/pipeline/transport-copy.js';
import { tempDir } from '../helpers/temp.js';

const material = { certPem: '-----BEGIN CERTIFICATE-----\nleaf\n-----END CERTIFICATE-----', chainPem: ['chain'], keyPem: 'KEY' };
const parents: string[] = [];
afterAll(async () => {
  for (const parent of parents) await rm(parent, { recursive: true, force: true });
});
const parent = async (): Promise<string> => {
  const dir = await tempDir('obflow-copy-test-');
  parents.push(dir);
  return dir;
};

describe('writeTransportCopy', () => {
  it('writes the certificate (with its chain) and the key privately, and remove() takes the folder away', async () => {
    const copy = await writeTransportCopy(material, await parent());
    expect(statSync(copy.dir).mode & 0o777).toBe(0o700);
    for (const path of [copy.transport.cert, copy.transport.key]) expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(copy.transport.cert, 'utf8')).toBe(`${material.certPem}\nchain\n`);
    expect(readFileSync(copy.transport.key, 'utf8')).toBe('KEY');
    expect(pendingTemporaryFiles()).toContain(copy.dir);
    await copy.remove();
    expect(existsSync(copy.dir)).toBe(false);
    expect(pendingTemporaryFiles()).not.toContain(copy.dir);
  });

  it('an interrupt before the run ends removes it (the cleanup src/cli/main.ts runs on SIGINT/SIGTERM)', async () => {
    const copy = await writeTransportCopy(material, await parent());
    removeTemporaryFiles();
    expect(existsSync(copy.transport.key)).toBe(false);
    expect(existsSync(copy.dir)).toBe(false);
    await copy.remove(); // still safe after the interrupt took it
  });

  it('an unwritable parent is a coded error, with nothing left behind', async () => {
    await expect(writeTransportCopy(material, join(await parent(), 'missing', 'deeper'))).rejects.toMatchObject({
      code: 'ERR_WRITE_FAILED',
    });
  });
});
