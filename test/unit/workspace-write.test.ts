// The workspace appears whole or not at all (issue 13): a write that fails half-way leaves no folder and no staging
// folder; the zip is a valid archive of the same files with their modes.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWorkspace } from '../../src/workspace/write.js';
import type { WorkspaceFile } from '../../src/workspace/build.js';
import { needs, unzip } from '../helpers/prerequisites.js';

let dir: string | undefined;
const scratch = () => (dir = mkdtempSync(join(tmpdir(), 'obflow-workspace-write-')));
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const files: WorkspaceFile[] = [
  { path: 'index.html', contents: '<!DOCTYPE html>\n' },
  { path: 'certificates/transport.key', contents: 'KEY\n', secret: true },
  { path: 'run.sh', contents: '#!/bin/sh\n', executable: true },
];

describe('writeWorkspace', () => {
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
