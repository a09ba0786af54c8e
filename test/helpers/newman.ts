// newman's own command line, as a user runs it on the exported collections (a subprocess, colours off).

import { spawn } from 'node:child_process';
import { join } from 'node:path';

const NEWMAN = join(import.meta.dirname, '..', '..', 'node_modules', 'newman', 'bin', 'newman.js');

export function newmanCli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NEWMAN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
