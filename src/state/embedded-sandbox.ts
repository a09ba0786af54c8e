// Starts the embedded bank emulator from the local test identity: the one place the TPP side turns identity files into
// SandboxOptions (used by `obflow sandbox` and `obflow demo`). The emulator is another room (src/sandbox/), loaded
// here only when one starts, like newman and playwright-core: no other command pays for it.

import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { importJWK } from 'jose/key/import';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ObflowConfig } from '../config/schema.js';
import { ObflowError } from '../errors.js';
import { profileOfSandboxMode, type SandboxFapiMode } from '../fapi-profile.js';
import type { PageSkinName, SandboxHandle, SandboxOptions } from '../sandbox/contracts.js';
import { readLocalIdentityFile, resolveIdentity } from './identity.js';
import { onInterrupt } from '../interrupt.js';
import { ensureDirectory, writeFileAtomic } from '../fs.js';
import { stateLayout } from './layout.js';

export interface EmbeddedSandboxOptions {
  /** Persist the emulator's state here; default: a fresh temporary folder. */
  dataDir?: string | undefined;
  resourcePort?: number;
  authPort?: number;
  log?: (line: string) => void;
  verbose?: boolean;
  /** The look of the PSU pages (`obflow sandbox --page-skin`). */
  pageSkin?: PageSkinName;
  /** `obflow sandbox --id-token-fault`: issue deliberately wrong id_tokens. */
  idTokenFault?: SandboxOptions['idTokenFault'];
  /** `obflow sandbox --token-auth`: the client authentication methods it accepts (default: config sandbox.tokenAuth). */
  tokenAuthMethods?: SandboxOptions['tokenAuthMethods'];
  /** `obflow sandbox --par`: pushed authorization requests (default: config sandbox.par). */
  par?: SandboxOptions['par'];
  /** `obflow sandbox --fapi`: the emulator's FAPI mode (default: embeddedFapi); a mode certified for a profile that
   *  always pushes (2.0) implies PAR required. */
  fapi?: SandboxFapiMode;
  /** `obflow sandbox --refresh-tokens`: refresh tokens only to clients that registered them (default: always). */
  refreshTokens?: SandboxOptions['refreshTokens'];
  /** `obflow sandbox --apis`: the API families served (default: config sandbox.apis). */
  apis?: SandboxOptions['apis'];
}

export async function startEmbeddedSandbox(config: ObflowConfig, options: EmbeddedSandboxOptions = {}): Promise<SandboxHandle> {
  const contradiction = fapiContradiction(config, options);
  if (contradiction !== undefined) throw contradiction;
  const { local } = await resolveIdentity(config);
  if (!local) throw new TypeError('the embedded sandbox runs on the local identity');
  const file = (name: Parameters<typeof readLocalIdentityFile>[1]) => readLocalIdentityFile(local, name);
  const [serverCertificate, serverKey, issuing, root, jwks] = await Promise.all([
    file('server_certificate'),
    file('server_key'),
    file('directory_issuing_ca'),
    file('directory_root_ca'),
    file('directory_jwks'),
  ]);
  let directoryJwks: { keys: Record<string, unknown>[] };
  try {
    directoryJwks = JSON.parse(jwks) as { keys: Record<string, unknown>[] };
  } catch (cause) {
    throw new ObflowError('ERR_FILE_UNREADABLE', 'the local identity directory_jwks is not JSON', {
      hint: 'Re-issue the identity with `obflow init --force`.',
      cause,
    });
  }
  // A temporary data folder (the demo's) lives as long as the sandbox; a named one persists.
  const temporary = options.dataDir === undefined;
  // Synchronous, so no signal can arrive between the folder's creation and the cleanup's registration below.
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'obflow-sandbox-'));
  const removeTemporary = () => (temporary ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve());
  // Interrupted (Ctrl-C, SIGTERM) from here on, also while it starts: stop it and remove the temporary data folder,
  // which holds client secrets. An interrupt while it starts (loading the emulator's module, then starting it) waits
  // for the start to end first: the emulator writes into the folder as it starts (its store, its keys), so removing
  // the folder meanwhile would see it written again. `starting` is set in the same tick as the cleanup's registration.
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      disposeInterrupt();
      const started = await starting.catch(() => undefined);
      await started?.close();
      await removeTemporary();
    })();
    return closing;
  };
  const disposeInterrupt = onInterrupt(close);
  const fapi = options.fapi ?? embeddedFapi(config);
  const certified = profileOfSandboxMode(fapi);
  const sandboxModule = import('../sandbox/index.js');
  // A fresh data folder each start (the demo's) keeps its ID-token key in the state folder: an RSA key is 80–270 ms of
  // CPU to make, which every demo paid on the start's second core (docs/notes.md, "the start's CPU, third pass").
  const keptKey = temporary
    ? sandboxModule.then(({ newIdTokenKey }) => keptIdTokenKey(stateLayout(config.stateDir).embeddedIdTokenKey, newIdTokenKey))
    : Promise.resolve(undefined);
  const starting: Promise<SandboxHandle> = Promise.all([sandboxModule, keptKey]).then(([{ startSandbox }, idTokenKey]) =>
    startSandbox({
      ...(idTokenKey !== undefined ? { idTokenKey } : {}),
      serverCertificate,
      serverKey,
      clientCa: [issuing, root],
      directoryJwks,
      dataDir,
      seed: config.sandbox.seed,
      resourcePort: options.resourcePort ?? config.sandbox.resourcePort,
      authPort: options.authPort ?? config.sandbox.authPort,
      ...(options.log ? { log: options.log } : {}),
      ...(options.verbose ? { verbose: true } : {}),
      ...(options.pageSkin ? { pageSkin: options.pageSkin } : {}),
      ...(options.idTokenFault ? { idTokenFault: options.idTokenFault } : {}),
      tokenAuthMethods: options.tokenAuthMethods ?? config.sandbox.tokenAuth,
      apiVersions: config.sandbox.apiVersions,
      apis: options.apis ?? config.sandbox.apis,
      // config.sandbox.par is already "required" under a config sandbox.fapi that requires it; the mode (flag or
      // followed) implies it.
      par: options.par ?? (certified?.par === 'always' ? 'required' : config.sandbox.par),
      fapi,
      ...(options.refreshTokens ? { refreshTokens: options.refreshTokens } : {}),
    }),
  );
  try {
    const handle = await starting;
    return { urls: handle.urls, fapi: handle.fapi, close };
  } catch (cause) {
    disposeInterrupt();
    await removeTemporary();
    const errors = await sandboxModule.then(
      (module) => ({ data: module.SandboxDataError, native: module.SandboxNativeModuleError }),
      () => undefined,
    );
    if (errors !== undefined && cause instanceof errors.native) {
      throw new ObflowError('ERR_NATIVE_MODULE', `the native module ${cause.module} cannot be loaded: ${cause.problem}`, {
        hint: `Rebuild it for the Node.js that runs obflow: \`npm rebuild ${cause.module}\` in obflow's folder (the sandbox's data is not at fault).`,
        cause,
      });
    }
    if (errors !== undefined && cause instanceof errors.data) {
      throw new ObflowError('ERR_SANDBOX_DATA', `the sandbox's data file ${cause.file} cannot be read: ${cause.problem}`, {
        hint: `Repair or remove ${cause.file} (removing it forgets what it held: clients, consents and tokens, or the ID-token key), then start again.`,
        cause,
      });
    }
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ObflowError('ERR_SANDBOX_START', `the sandbox could not start: ${message}`, {
      hint: 'Free the ports (or pick others with --resource-port / --auth-port) and check `obflow doctor`.',
      cause,
    });
  }
}

/** The ID-token key kept in `file` (a private RSA JWK with its kid), or a new one written there (0600). A file that
 *  cannot be read or holds no such key is replaced; one that cannot be written only costs the next start a new key. */
async function keptIdTokenKey(file: string, newIdTokenKey: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  try {
    const kept = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    // A key the emulator would refuse at its start (ERR_SANDBOX_START, with a hint about ports) is replaced here.
    if (kept.kty === 'RSA' && typeof kept.d === 'string' && typeof kept.kid === 'string') {
      await importJWK(kept, 'PS256');
      return kept;
    }
  } catch {
    // Absent or damaged: a new key below.
  }
  const key = await newIdTokenKey();
  try {
    await ensureDirectory(dirname(file), { secret: true });
    await writeFileAtomic(file, `${JSON.stringify(key)}\n`, { secret: true });
  } catch {
    // Not kept: the next start makes another.
  }
  return key;
}

/**
 * The embedded sandbox's FAPI mode when no flag names one: config sandbox.fapi, except that while it is left at the
 * interface (which holds a client to no profile) it is the mode the TPP's profile needs (FapiProfile.embeddedSandbox):
 * a FAPI 2.0 client meets a FAPI 2.0 sandbox — the interface mode offers no PAR endpoint and no iss.
 */
export function embeddedFapi(config: Pick<ObflowConfig, 'flow' | 'sandbox'>): SandboxFapiMode {
  return profileOfSandboxMode(config.sandbox.fapi) === undefined ? config.flow.fapi.embeddedSandbox : config.sandbox.fapi;
}

/**
 * What the sandbox's FAPI mode cannot be started with (docs/sandbox.md, "FAPI modes"), naming both settings: a mode
 * certified for a profile requires what its row says of the bank's clients — PAR when it always pushes (2.0), one of
 * its client authentication methods. The mode comes from `--fapi` (options.fapi), config sandbox.fapi, or flow.fapi
 * followed (embeddedFapi). A flag in the pair makes it ERR_USAGE, config alone ERR_CONFIG_INVALID. (Config
 * sandbox.fapi with sandbox.par or sandbox.tokenAuth is the schema's to refuse.)
 */
export function fapiContradiction(
  config: ObflowConfig,
  options: Pick<EmbeddedSandboxOptions, 'fapi' | 'par' | 'tokenAuthMethods'>,
): ObflowError | undefined {
  const mode = options.fapi ?? embeddedFapi(config);
  const certified = profileOfSandboxMode(mode);
  if (certified === undefined) return undefined;
  const named =
    options.fapi !== undefined
      ? `--fapi ${mode}`
      : config.sandbox.fapi === mode
        ? `sandbox.fapi "${mode}"`
        : `${config.flow.fapi.setting} (the embedded sandbox follows it)`;
  if (certified.par === 'always' && options.par !== undefined && options.par !== 'required') {
    return new ObflowError('ERR_USAGE', `--par ${options.par} contradicts ${named}, which requires pushed authorization requests`, {
      hint: `Leave out --par (FAPI ${mode} implies --par required), or pick another --fapi.`,
    });
  }
  const methods = options.tokenAuthMethods ?? config.sandbox.tokenAuth;
  if (!methods.some((method) => certified.authMethods.includes(method))) {
    const source = options.tokenAuthMethods !== undefined ? '--token-auth' : 'sandbox.tokenAuth';
    const allowed = certified.authMethods.join(' or ');
    return new ObflowError(
      options.tokenAuthMethods !== undefined || options.fapi !== undefined ? 'ERR_USAGE' : 'ERR_CONFIG_INVALID',
      `${named} accepts ${allowed}, and ${source} has only ${methods.join(', ')}`,
      { hint: `Add ${allowed} to --token-auth (or sandbox.tokenAuth), or pick another --fapi.` },
    );
  }
  return undefined;
}
