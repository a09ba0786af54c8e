// Runs the CLI's main(argv) in process with captured stdout/stderr, a chosen cwd and environment.

import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

export async function runCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(argv, { stdout, stderr, cwd: options.cwd, env: options.env ?? {} });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
