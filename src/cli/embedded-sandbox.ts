// Starts the embedded bank emulator from the local test identity: the one place the CLI turns identity files into
// SandboxOptions (used by `obflow sandbox` and `obflow demo`).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import type { SandboxHandle } from '../sandbox/contracts.js';
import { resolveIdentity } from './identity.js';

export interface EmbeddedSandboxOptions {
  /** Persist the emulator's state here; default: a fresh temporary folder. */
  dataDir?: string | undefined;
  resourcePort?: number;
  authPort?: number;
  log?: (line: string) => void;
  verbose?: boolean;
}

export async function startEmbeddedSandbox(config: ObflowConfig, options: EmbeddedSandboxOptions = {}): Promise<SandboxHandle> {
  const { local } = await resolveIdentity(config);
  if (!local) throw new TypeError('the embedded sandbox runs on the local identity');
  const file = (name: string) => readFile(resolve(local.dir, name), 'utf8');
  const files = local.manifest.files;
  const [serverCertificate, serverKey, issuing, root, jwks] = await Promise.all([
    file(files.server_certificate),
    file(files.server_key),
    file(files.directory_issuing_ca),
    file(files.directory_root_ca),
    file(files.directory_jwks),
  ]);
  // A temporary data folder (the demo's) lives as long as the sandbox; a named one persists.
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'obflow-sandbox-')));
  const removeTemporary = () => (temporary ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve());
  const { startSandbox } = await import('../sandbox/index.js');
  try {
    const handle = await startSandbox({
      serverCertificate,
      serverKey,
      clientCa: [issuing, root],
      directoryJwks: JSON.parse(jwks) as { keys: Record<string, unknown>[] },
      dataDir,
      seed: config.sandbox.seed,
      resourcePort: options.resourcePort ?? config.sandbox.resourcePort,
      authPort: options.authPort ?? config.sandbox.authPort,
      ...(options.log ? { log: options.log } : {}),
      ...(options.verbose ? { verbose: true } : {}),
    });
    return {
      urls: handle.urls,
      close: async () => {
        await handle.close();
        await removeTemporary();
      },
    };
  } catch (cause) {
    await removeTemporary();
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ObflowError('ERR_SANDBOX_START', `the sandbox could not start: ${message}`, {
      hint: 'Free the ports (or pick others with --resource-port / --auth-port) and check `obflow doctor`.',
      cause,
    });
  }
}
