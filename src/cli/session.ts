// Opens a pipeline session for a command: config → target (running sandbox or configured bank) → identity → mTLS.

import type { ObflowConfig } from '../config/schema.js';
import type { Session } from '../pipeline/stages.js';
import type { SandboxAddresses, Target } from '../pipeline/target.js';
import type { CommandState } from './context.js';
import { readLocalIdentityFile, resolveIdentity } from './identity.js';

export async function resolveTarget(config: ObflowConfig, addresses?: SandboxAddresses): Promise<{ target: Target; identity: Awaited<ReturnType<typeof resolveIdentity>> }> {
  const { bankTarget, readSandboxAddresses, sandboxTarget } = await import('../pipeline/target.js');
  const identity = await resolveIdentity(config);
  if (config.target === 'bank') return { target: await bankTarget(config), identity };
  const local = identity.local;
  if (!local) throw new TypeError('the sandbox target uses the local identity');
  // The emulator's server certificate is issued by the local directory: trust exactly its CAs.
  const serverCaPem = await Promise.all([readLocalIdentityFile(local, 'directory_root_ca'), readLocalIdentityFile(local, 'directory_issuing_ca')]);
  return { target: sandboxTarget(config, addresses ?? (await readSandboxAddresses(config.stateDir)), serverCaPem), identity };
}

/**
 * `workDir` keeps this session's registrations, environment and run files apart from the state folder's own (the
 * demo's, so `npm start` never replaces what a step-by-step session against `obflow sandbox` stored); the identity
 * still comes from the state folder.
 */
export async function openCommandSession(
  state: CommandState,
  config: ObflowConfig,
  options: { addresses?: SandboxAddresses; insecure?: boolean; workDir?: string } = {},
): Promise<Session> {
  const { openSession } = await import('../pipeline/stages.js');
  const { target, identity } = await resolveTarget(config, options.addresses);
  if (options.insecure === true) target.insecure = true;
  const { pasteRedirect } = await import('./prompt.js');
  const sessionConfig = options.workDir === undefined ? config : { ...config, stateDir: options.workDir };
  await protectStateDir(sessionConfig.stateDir);
  const { onInterrupt } = await import('./interrupt.js');
  return openSession(sessionConfig, target, identity.paths, { log: (line) => state.output.line(line), ask: pasteRedirect(state.io), onInterrupt, env: state.io.env });
}

/** The state folder holds keys, client secrets and tokens: a `.gitignore` of `*` keeps it out of any repository. */
export async function protectStateDir(stateDir: string): Promise<void> {
  const { existsSync } = await import('node:fs');
  const { join: joinPath } = await import('node:path');
  const file = joinPath(stateDir, '.gitignore');
  if (existsSync(file)) return;
  const { writeFileAtomic } = await import('../fs.js');
  await writeFileAtomic(file, '# obflow state: keys, client secrets, tokens. Never commit it.\n*\n');
}
