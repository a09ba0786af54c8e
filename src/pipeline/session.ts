// A pipeline session, opened in one call: config + the command's overrides → target (running sandbox or configured
// bank) → identity → mTLS material and dispatcher. The stages (one file each in src/pipeline/) work on what it holds.

import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import type { Overrides } from '../config/overrides.js';
import { fetchDiscovery, type DiscoveryAddresses } from '../bank/discovery.js';
import { assertParSetting, recordDiscovery } from './par.js';
import { assertDiscoveryOffers } from './discovery-check.js';
import type { ObflowConfig } from '../config/schema.js';
import { loadTransportMaterial, type TransportMaterial } from '../pki/load.js';
import { createMtlsDispatcher } from '../pki/tls.js';
import type { IdentityPaths, SoftwareStatementClaims } from '../pki/types.js';
import { readDirectoryJwks, readSoftwareStatement, verifyKeyMatch, verifySoftwareStatement } from '../pki/verify.js';
import { readSandboxAddresses, type SandboxAddresses } from '../state/addresses.js';
import { readLocalIdentityFile, resolveIdentity, type ResolvedIdentity } from '../state/identity.js';
import { protectStateDir } from '../state/protect.js';
import { checkBrowserReady } from './browser-check.js';
import { bankTarget, sandboxTarget, type Target } from './target.js';

export interface SessionSeams {
  now: () => Date;
  newId: () => string;
  log: (line: string) => void;
  /** Manual consent: show the consent URL to the PSU, resolve with the redirect URL they paste (undefined: none). */
  ask: (consentUrl: string, redirectUri: string) => Promise<string | undefined>;
  /** Browser consent: registers a cleanup for Ctrl-C / SIGTERM (the CLI's onInterrupt); returns its disposer. */
  onInterrupt?: (cleanup: () => Promise<void>) => () => void;
  /** Where browser consent reads the PSU's credentials and DISPLAY (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Everything the stages share for one target and identity; close() releases the mTLS connections. */
export interface Session extends SessionSeams {
  /** Where browser consent reads the PSU's credentials and DISPLAY: the seam's, else process.env. */
  env: Readonly<Record<string, string | undefined>>;
  config: ObflowConfig;
  /** What the command's flags set: the flow inputs given for this run win over a saved environment's. */
  overrides: Overrides;
  target: Target;
  identity: IdentityPaths;
  transport: TransportMaterial;
  statement: { jwt: string; claims: SoftwareStatementClaims };
  dispatcher: Agent;
  /** The bank's discovery document, read once per session (registration checks the auth methods, the environment
   *  stage takes the addresses, register --update the token endpoint); a failed read is not kept. */
  discovery(): Promise<DiscoveryAddresses>;
  close(): Promise<void>;
}

export interface OpenSessionOptions {
  /** The embedded sandbox's addresses when the caller started it (the demo); else read from the running sandbox. */
  addresses?: SandboxAddresses;
  /** Keeps this session's registrations, environment and run files apart from the state folder's own (the demo's,
   *  so `npm start` never replaces what a step-by-step session against `obflow sandbox` stored); the identity still
   *  comes from the state folder. */
  workDir?: string;
  seams?: Partial<SessionSeams>;
  /** The command registers and runs the flow in one go (the demo): what the run needs that no request can fix — the
   *  browser for browser consent — is checked now, before the first request (src/pipeline/browser-check.ts). */
  runs?: boolean;
}

/** The command's session: target, identity and mTLS resolved from the config (flags already applied) at once. */
export async function openSession(config: ObflowConfig, overrides: Overrides = {}, options: OpenSessionOptions = {}): Promise<Session> {
  const { target, identity } = await resolveTarget(config, options.addresses);
  if (overrides.insecure === true) target.insecure = true;
  const sessionConfig = options.workDir === undefined ? config : { ...config, stateDir: options.workDir };
  if (options.runs === true) await checkBrowserReady({ config, target, env: options.seams?.env ?? process.env });
  await protectStateDir(sessionConfig.stateDir);
  return openTargetSession(sessionConfig, target, identity.paths, options.seams, overrides);
}

/** The target a config names, with the identity it uses: the running sandbox (or `addresses`) and the local test
 *  identity, or the configured bank and the TPP's own files. */
export async function resolveTarget(
  config: ObflowConfig,
  addresses?: SandboxAddresses,
): Promise<{ target: Target; identity: ResolvedIdentity }> {
  const identity = await resolveIdentity(config);
  if (config.target === 'bank') return { target: await bankTarget(config), identity };
  const local = identity.local;
  if (!local) throw new TypeError('the sandbox target uses the local identity');
  // The emulator's server certificate is issued by the local directory: trust exactly its CAs.
  const serverCaPem = await Promise.all([
    readLocalIdentityFile(local, 'directory_root_ca'),
    readLocalIdentityFile(local, 'directory_issuing_ca'),
  ]);
  return { target: sandboxTarget(config, addresses ?? (await readSandboxAddresses(config.stateDir)), serverCaPem), identity };
}

/** A session for a target and identity already resolved (tests and the bench start their own emulator). */
export async function openTargetSession(
  config: ObflowConfig,
  target: Target,
  identity: IdentityPaths,
  seams: Partial<SessionSeams> = {},
  overrides: Overrides = {},
): Promise<Session> {
  const now = seams.now ?? (() => new Date());
  const jwt = await readSoftwareStatement(identity.softwareStatement);
  const claims = await verifySoftwareStatement(jwt, await readDirectoryJwks(identity.directoryJwks), now());
  const transport = await loadTransportMaterial(identity.transport);
  // Before any connection: TLS would only say "key values mismatch", and the bank's CA would be blamed (exit 3).
  verifyKeyMatch(transport);
  // Created at its first use: `obflow run` (newman makes the requests) never loads undici (src/pki/tls.ts).
  let agent: Agent | undefined;
  const dispatcher = (): Agent => (agent ??= createMtlsDispatcher({ transport, serverCa: target.serverCaPem, insecure: target.insecure }));
  let discovery: Promise<DiscoveryAddresses> | undefined;
  return {
    config,
    overrides,
    target,
    identity,
    transport,
    statement: { jwt, claims },
    get dispatcher() {
      return dispatcher();
    },
    now,
    newId: seams.newId ?? randomUUID,
    log: seams.log ?? (() => undefined),
    ask: seams.ask ?? (async () => undefined),
    ...(seams.onInterrupt === undefined ? {} : { onInterrupt: seams.onInterrupt }),
    env: seams.env ?? process.env,
    discovery: () =>
      (discovery ??= fetchDiscovery(target.discoveryUrl, dispatcher())
        .then(async (addresses) => {
          // The flow.par setting against what the bank requires, and what the config asks offered, before any request of
          // the flow; what it requires recorded for `obflow generate` (flow.par "auto").
          assertParSetting(config, addresses, target.discoveryUrl);
          assertDiscoveryOffers(config, addresses, target.discoveryUrl);
          await recordDiscovery(config, addresses);
          return addresses;
        })
        .catch((error: unknown) => {
          discovery = undefined;
          throw error;
        })),
    close: async () => agent?.close(),
  };
}
