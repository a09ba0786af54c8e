// Puts a workspace on disk whole or not at all: every file goes into a temporary sibling folder, which is renamed into
// place at the end (an existing workspace is replaced only with `force`, by placeFolder's swap, which an interrupt
// cannot split: the old workspace or the new one is there, whole). The zip is built from the
// same files in memory and written with writeFileAtomic. With secrets the folders are 0700 and every file 0600.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ObflowError } from '../errors.js';
import { markUnfinished, placeFolder, writeFileAtomic, writeFileExact } from '../fs.js';
import type { WorkspaceFile } from './build.js';
import { zip } from './zip.js';

export interface WriteWorkspaceOptions {
  /** The workspace folder. */
  dir: string;
  /** Also (or instead) write this zip. */
  zipPath?: string;
  /** The files hold secrets: 0700 folders, 0600 files, whatever each file says. */
  secret: boolean;
  /** Replace an existing folder or zip. */
  force: boolean;
  /** Write only the zip, no folder. */
  zipOnly?: boolean;
}

function modeOf(file: WorkspaceFile, secret: boolean): number {
  if (file.executable === true) return secret ? 0o700 : 0o755;
  return secret || file.secret === true ? 0o600 : 0o644;
}

function refuseExisting(path: string, what: string): void {
  if (existsSync(path)) {
    throw new ObflowError('ERR_WORKSPACE_EXISTS', `${what} ${path} already exists`, {
      hint: 'Pass --force to replace it, or pick another place with --out / --zip.',
    });
  }
}

export async function writeWorkspace(
  files: readonly WorkspaceFile[],
  options: WriteWorkspaceOptions,
): Promise<{ dir?: string; zip?: string }> {
  if (options.zipOnly !== true && !options.force) refuseExisting(options.dir, 'the workspace folder');
  if (options.zipPath !== undefined && !options.force) refuseExisting(options.zipPath, 'the zip');
  const written: { dir?: string; zip?: string } = {};
  if (options.zipOnly !== true) {
    await writeFolder(files, options);
    written.dir = options.dir;
  }
  if (options.zipPath !== undefined) {
    const top = basename(options.dir);
    const archive = zip(
      files.map((file) => ({
        path: `${top}/${file.path}`,
        contents: Buffer.from(file.contents, 'utf8'),
        mode: modeOf(file, options.secret),
      })),
    );
    await writeFileAtomic(options.zipPath, archive, { secret: options.secret });
    written.zip = options.zipPath;
  }
  return written;
}

async function writeFolder(files: readonly WorkspaceFile[], options: WriteWorkspaceOptions): Promise<void> {
  const folderMode = options.secret ? 0o700 : 0o755;
  const staging = join(dirname(options.dir), `.${basename(options.dir)}.${randomBytes(6).toString('hex')}.tmp`);
  const finished = markUnfinished(staging);
  try {
    await mkdir(dirname(options.dir), { recursive: true });
    await mkdir(staging, { mode: folderMode });
    await chmod(staging, folderMode);
    for (const file of files) {
      const path = join(staging, ...file.path.split('/'));
      await mkdir(dirname(path), { recursive: true, mode: folderMode });
      await writeFileExact(path, file.contents, modeOf(file, options.secret));
    }
    // Subfolders: mkdir's mode is narrowed by the umask, so make it exact.
    for (const folder of new Set(files.map((file) => file.path.split('/').slice(0, -1).join('/')).filter((folder) => folder !== ''))) {
      await chmod(join(staging, ...folder.split('/')), folderMode);
    }
    // --force: the old workspace moves aside, the new one takes its place, then the old one goes.
    await placeFolder(staging, options.dir, { replace: existsSync(options.dir) });
  } catch (cause) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    if (cause instanceof ObflowError) throw cause;
    throw new ObflowError('ERR_WRITE_FAILED', `could not write the workspace ${options.dir}: ${(cause as Error).message}`, {
      hint: 'Check that the folder is writable and the disk is not full; nothing half-written was left.',
      cause,
    });
  } finally {
    finished();
  }
}
