// The workspace appears whole or not at all: a write that fails half-way leaves no folder and no staging
// folder; the zip is a valid archive of the same files with their modes. `--force` swaps the old workspace for the new
// one so that an interrupt (a real SIGINT, sent the moment the old one moves aside) finds one of them whole.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWorkspace } from '../../src/workspace/write.js';
import type { WorkspaceFile } from '../../src/workspace/build.js';
import { needs, unzip } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

let dir: string | undefined;
const scratch = () => (dir = tempDirSync('obflow-workspace-write-'));
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const files: WorkspaceFile[] = [
  { path: 'index.html', contents: '<!DOCTYPE html>\n' },
  { path: 'certificates/transport.key', contents: 'KEY\n', secret: true },
  { path: 'run.sh', contents: '#!/bin/sh\n', executable: true },
];

/** The built modules (`npm run build`; the interrupt child runs them as the CLI does). */
const DIST = resolve(import.meta.dirname, '..', '..', 'dist');

/** A child that writes `old`, then replaces it with `force`, and SIGINTs itself the moment a rename moves the old
 *  workspace aside (fs.rename, fs/promises rename or renameSync: whichever the writer uses). Its SIGINT handler is the
 *  CLI's: the interrupt cleanups, then exit 130 (src/cli/main.ts). */
const INTERRUPTED_SWAP = `
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
const [dist, dir] = process.argv.slice(2);
const signalOnMoveAside = (original) =>
  function (from, ...rest) {
    if (from === dir) process.kill(process.pid, 'SIGINT');
    return original.call(this, from, ...rest);
  };
const { writeWorkspace } = await import(dist + '/workspace/write.js');
const { runInterruptCleanups } = await import(dist + '/interrupt.js');
const files = (generation) => [
  { path: 'index.html', contents: generation },
  { path: 'certificates/transport.pem', contents: generation },
  { path: 'collections/flow.json', contents: generation },
];
await writeWorkspace(files('old'), { dir, secret: false, force: false });
process.on('SIGINT', () => void runInterruptCleanups().finally(() => process.exit(130)));
fs.renameSync = signalOnMoveAside(fs.renameSync);
fs.rename = signalOnMoveAside(fs.rename);
fsp.rename = signalOnMoveAside(fsp.rename);
syncBuiltinESMExports();
await writeWorkspace(files('new'), { dir, secret: false, force: true });
// Never reached when the signal's handler ran first; the test also accepts a clean end with the new workspace.
setTimeout(() => process.exit(0), 1000);
`;

describe('writeWorkspace', () => {
  it('--force replaces the workspace whole: the new files only, no staging or old folder left', async () => {
    const parent = scratch();
    const out = join(parent, 'ws');
    await writeWorkspace([...files, { path: 'extra/old.txt', contents: 'old' }], { dir: out, secret: false, force: false });
    await writeWorkspace(files, { dir: out, secret: false, force: true });
    expect(readdirSync(parent)).toEqual(['ws']);
    expect(readdirSync(out, { recursive: true }).sort()).toEqual(['certificates', 'certificates/transport.key', 'index.html', 'run.sh']);
  });

  it('--force interrupted (SIGINT) the moment the old workspace moves aside: the old or the new workspace is there, whole', () => {
    const parent = scratch();
    const out = join(parent, 'ws');
    const script = join(parent, 'interrupted-swap.mjs');
    writeFileSync(script, INTERRUPTED_SWAP);
    for (let attempt = 0; attempt < 5; attempt++) {
      rmSync(out, { recursive: true, force: true });
      const child = spawnSync(process.execPath, [script, DIST, out], { encoding: 'utf8' });
      expect(child.status === 130 || child.status === 0, `exit ${child.status}: ${child.stderr}`).toBe(true);
      expect(readdirSync(parent).sort(), 'the workspace, no staging or old folder').toEqual(['interrupted-swap.mjs', 'ws']);
      const contents = ['index.html', 'certificates/transport.pem', 'collections/flow.json'].map((file) =>
        readFileSync(join(out, file), 'utf8'),
      );
      expect(new Set(contents).size, contents.join(', ')).toBe(1);
    }
  });

  it('a failure half-way (a file written twice) leaves neither the workspace nor its staging folder: ERR_WRITE_FAILED', async () => {
    const parent = scratch();
    const out = join(parent, 'ws');
    await expect(
      writeWorkspace([...files, { path: 'index.html', contents: 'again' }], { dir: out, secret: false, force: false }),
    ).rejects.toMatchObject({ code: 'ERR_WRITE_FAILED' });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a file where the parent folder should be: ERR_WRITE_FAILED, nothing written', async () => {
    const parent = scratch();
    writeFileSync(join(parent, 'blocked'), 'a file');
    await expect(
      writeWorkspace(files, { dir: join(parent, 'blocked', 'ws'), zipPath: join(parent, 'ws.zip'), secret: false, force: false }),
    ).rejects.toMatchObject({ code: 'ERR_WRITE_FAILED' });
    expect(readdirSync(parent)).toEqual(['blocked']);
    expect(existsSync(join(parent, 'ws.zip'))).toBe(false);
  });

  it('modes: secret files 0600 even in a plain workspace; run.sh executable; with secrets everything 0600/0700', async () => {
    const parent = scratch();
    await writeWorkspace(files, { dir: join(parent, 'plain'), secret: false, force: false });
    await writeWorkspace(files, { dir: join(parent, 'secret'), secret: true, force: false });
    const mode = (path: string) => statSync(join(parent, path)).mode & 0o777;
    expect([mode('plain'), mode('plain/index.html'), mode('plain/certificates/transport.key'), mode('plain/run.sh')]).toEqual([
      0o755, 0o644, 0o600, 0o755,
    ]);
    expect([mode('secret'), mode('secret/certificates'), mode('secret/index.html'), mode('secret/run.sh')]).toEqual([
      0o700, 0o700, 0o600, 0o700,
    ]);
  });

  it('the zip holds the same files under the folder name with their modes (unzip -Z; the integration test reads it without unzip)', async () => {
    const parent = scratch();
    const zipPath = join(parent, 'ws.zip');
    await writeWorkspace(files, { dir: join(parent, 'ws'), zipPath, secret: false, force: false, zipOnly: true });
    expect(existsSync(join(parent, 'ws'))).toBe(false);
    expect(readFileSync(zipPath).subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    // Info-ZIP's unzip, a prerequisite (skipped with the reason without it; test/integration/workspace.test.ts parses
    // the archive itself, so the format is checked either way).
    needs(unzip);
    const listing = spawnSync('unzip', ['-Z', '-l', zipPath], { encoding: 'utf8' });
    expect(listing.status, listing.stderr).toBe(0);
    expect(listing.stdout).toMatch(/-rw-r--r--.* ws\/index\.html/);
    expect(listing.stdout).toMatch(/-rw-------.* ws\/certificates\/transport\.key/);
    expect(listing.stdout).toMatch(/-rwxr-xr-x.* ws\/run\.sh/);
    expect(spawnSync('unzip', ['-t', zipPath], { encoding: 'utf8' }).stdout).toMatch(/No errors detected/);
  });
});
