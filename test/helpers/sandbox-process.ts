// The emulator in a process of its own, run from dist/ (as `obflow sandbox` runs it), on a data folder the test keeps:
// what the kill -9 tests kill and then restart on the same folder.

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import type { SandboxUrls } from '../../src/sandbox/contracts.js';
import { getTestIdentity } from './identity.js';

export const DIST_SANDBOX = join(import.meta.dirname, '..', '..', 'dist', 'sandbox', 'index.js');

/** Starts the emulator from dist/ in its own process on `dataDir` serving `apis` (default: the emulator's, accounts);
 *  resolves with it once it listens. */
export async function spawnSandbox(dataDir: string, apis?: readonly string[]): Promise<{ process: ChildProcess; urls: SandboxUrls }> {
  if (!existsSync(DIST_SANDBOX)) throw new Error('build first (npm run build): this test runs the sandbox from dist in its own process');
  const identity = await getTestIdentity();
  const optionsFile = `${dataDir}.options.json`;
  writeFileSync(
    optionsFile,
    JSON.stringify({
      serverCertificate: identity.pem.serverCert,
      serverKey: identity.pem.serverKey,
      clientCa: [identity.pem.rootCa, identity.pem.issuingCa],
      directoryJwks: identity.directoryJwks,
      dataDir,
      ...(apis === undefined ? {} : { apis }),
    }),
  );
  const script = `const { startSandbox } = await import(${JSON.stringify(DIST_SANDBOX)});
const options = JSON.parse((await import('node:fs')).readFileSync(process.argv[1], 'utf8'));
const handle = await startSandbox(options);
process.stdout.write(JSON.stringify(handle.urls) + '\\n');`;
  const running = spawn(process.execPath, ['--input-type=module', '-e', script, optionsFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const urls = await new Promise<SandboxUrls>((resolve, reject) => {
    createInterface({ input: running.stdout! }).once('line', (line) => resolve(JSON.parse(line) as SandboxUrls));
    running.once('exit', (code) => reject(new Error(`the sandbox process exited ${code}`)));
  });
  return { process: running, urls };
}
