// startSandbox: the bank emulator's one entry point. Two HTTPS origins over mutual TLS (resource server and
// authorisation server, as at the real bank), the stores in the data directory, and the wiring between the
// authorisation side (auth/) and the resource side (resource/).

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';

import { authRouteOnResourceOrigin, createAuthHandler, ENVIRONMENT_PATH, REGISTRATION_PATH } from './auth/index.js';
import { directoryKeySet } from './auth/deps.js';
import { resolveFapi } from './auth/fapi.js';
import type { AuthDeps } from './auth/deps.js';
import { completeKeys, KEYS_FILE, newIdTokenKey, readKeys, signingKeyOf } from './auth/keys.js';
import type { SigningKey, StoredKeys } from './auth/keys.js';
import type { JWK } from 'jose';
import { PAGE_SKINS } from './auth/pages.js';
import type { ApiFamilyName, ProfileName, SandboxHandle, SandboxOptions, SandboxUrls, TokenAuthMethod } from './contracts.js';
import { AIS_API_VERSIONS, API_FAMILY_NAMES, BANK_FINANCIAL_ID, PROFILE_NAMES, TOKEN_AUTH_METHODS } from './contracts.js';
import { createBank, startOfUtcDay } from './data/bank.js';
import type { ResourceRecords } from './resource/deps.js';
import { signsAnswers } from './families.js';
import { ObieError } from './http/errors.js';
import { IdempotencyKeys } from './idempotency.js';
import { createRequestLogger } from './http/log.js';
import { createResourceHandler, isV4Path } from './resource/index.js';
import { serve } from './serve.js';
import { AUTH_COLLECTIONS, AuthStore } from './store/auth-store.js';
import { CONSENT_COLLECTION, openConsentStore } from './store/consents.js';
import { SandboxDb } from './store/db.js';
import { PAYMENT_ORDER_COLLECTION } from './store/payment-orders.js';
import { Postings, withPostings } from './store/postings.js';
import { VrpPayments } from './store/vrp-payments.js';

export type { SandboxHandle, SandboxOptions, SandboxUrls } from './contracts.js';
export { PAGE_SKIN_NAMES, PROFILE_NAMES, SandboxDataError, SandboxNativeModuleError } from './contracts.js';
export { newIdTokenKey } from './auth/keys.js';

const DEFAULT_SEED = 'obflow-sandbox';
/** How often expired rows are pruned while the sandbox runs (besides once at start), unless options say otherwise. */
const PRUNE_INTERVAL_MS = 60_000;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export async function startSandbox(options: SandboxOptions): Promise<SandboxHandle> {
  if (!options.dataDir) throw new TypeError('startSandbox: dataDir is required');
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  const seed = options.seed ?? DEFAULT_SEED;
  // FAPI mode (`obflow sandbox --fapi`): PAR and the accepted client authentication follow it; misuse throws here,
  // before anything listens.
  const fapi = resolveFapi(options.fapi, options.par, tokenAuthMethodsOf(options.tokenAuthMethods));
  const logger = createRequestLogger(options.log, options.verbose === true);

  const tls = {
    key: options.serverKey,
    cert: options.serverCertificate,
    ca: options.clientCa,
    // Ask every connection for a certificate but let the handshake finish without one: discovery and the browser
    // pages work without, and the routes that need one answer 401 with a body instead of a bare TLS alert.
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2' as const,
  };
  // Handlers are attached once both ports are known (the URLs name them); nothing is served before.
  const handlers: { resource?: Listener; auth?: Listener } = {};
  // Each request first brings the store's cached values up to date with other processes' commits, once (db.refresh).
  const resourceServer = createServer(tls, (req, res) => {
    db.refresh();
    (handlers.resource ?? unavailable)(req, res);
  });
  const authServer = createServer(tls, (req, res) => {
    db.refresh();
    (handlers.auth ?? unavailable)(req, res);
  });
  // Idle keep-alive connections live 65 s, not Node.js's 5 s: a TPP's resource connection idles through the PSU's
  // consent (seconds in a browser, more on a loaded machine), and a server closing it just as the client reuses it is
  // an ECONNRESET the TPP cannot tell from a dead bank (seen in .ci/run's browser consent on Node.js 24 under load).
  // The headers timeout stays above it, as Node.js requires.
  for (const server of [resourceServer, authServer]) {
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.headersTimeout = KEEP_ALIVE_MS + 1000;
  }

  // The stores and the key are read before anything listens: a data directory that cannot be read stops the start
  // (SandboxDataError naming the file) instead of failing request by request.
  const dataDir = options.dataDir;
  // keys.json is written on a first start: beside it, sandbox.db is a store that held data, never a new one.
  const db = SandboxDb.open(dataDir, { startedBefore: [KEYS_FILE] });
  const apis = apisOf(options.apis);
  // The message-signing key is needed (and published) only where a served API signs its answers (families.ts).
  const signing = signsAnswers(apis);
  let store: AuthStore;
  let consents: ReturnType<typeof openConsentStore>;
  let records: ResourceRecords;
  let given: { idToken?: SigningKey; messageSigning?: SigningKey };
  let stored: StoredKeys | undefined;
  try {
    store = new AuthStore(db, now);
    consents = openConsentStore(db);
    records = {
      transaction: (work) => db.transaction(work),
      consents,
      idempotency: new IdempotencyKeys(db),
      postings: new Postings(db),
      paymentOrders: db.collection(PAYMENT_ORDER_COLLECTION),
      vrpPayments: new VrpPayments(db),
    };
    db.migrateLegacy(dataDir, [...Object.values(AUTH_COLLECTIONS), CONSENT_COLLECTION]);
    while (db.pruneBatch(now().getTime()) > 0);
    given = {
      ...(options.idTokenKey !== undefined ? { idToken: await signingKeyOf(options.idTokenKey as JWK) } : {}),
      ...(options.messageSigningKey !== undefined ? { messageSigning: await signingKeyOf(options.messageSigningKey as JWK) } : {}),
    };
    // A given ID-token key leaves keys.json alone (neither read nor written), the message-signing key with it.
    stored = given.idToken === undefined ? await readKeys(dataDir) : undefined;
  } catch (error) {
    db.close();
    throw error;
  }
  // A first start generates the keys in the background; a failure surfaces on the first request that needs one, not
  // as an unhandled rejection.
  const keys = keysOf(dataDir, given, stored, signing);
  keys.catch(() => undefined);
  const key = keys.then((ready) => ready.idToken);
  key.catch(() => undefined);
  await Promise.all([listen(resourceServer, options.resourcePort ?? 0, host), listen(authServer, options.authPort ?? 0, host)]).catch(
    async (error: unknown) => {
      await Promise.all([closeServer(resourceServer), closeServer(authServer)]);
      await key.catch(() => undefined);
      db.close();
      throw error;
    },
  );
  const pruner = startPruning(db, now, options.pruneIntervalMs ?? PRUNE_INTERVAL_MS);

  const urls = buildUrls(host, (resourceServer.address() as AddressInfo).port, (authServer.address() as AddressInfo).port);
  // One bank for both sides: the consent page offers exactly the accounts the resource server serves. The generated
  // history ends at the start of the day the sandbox started, so a day's runs see the same data.
  // What payments post is laid over the generated ledgers (store/postings.ts): the seeded bank stays the seed's.
  const bank = withPostings(createBank(seed, startOfUtcDay(now())), records.postings);
  const pageSkin = PAGE_SKINS[options.pageSkin ?? 'default'];
  const deps: AuthDeps = {
    store,
    consents,
    signingKey: () => key,
    ...(signing ? { messageSigningKey: () => keys.then((ready) => messageKeyOf(ready)) } : {}),
    urls,
    directoryKeys: directoryKeySet(options.directoryJwks),
    bank,
    now,
    newId,
    pageSkin,
    ...(options.idTokenFault !== undefined ? { idTokenFault: options.idTokenFault } : {}),
    ...fapi,
    ...(options.refreshTokens === undefined ? {} : { refreshTokens: options.refreshTokens }),
  };
  const apiVersions = apiVersionsOf(options.apiVersions);
  const resource = createResourceHandler({
    consents,
    tokens: store,
    clients: store,
    bank,
    now,
    newId,
    apiVersions,
    apis,
    records,
    messageSigner: async () => {
      const signer = messageKeyOf(await keys);
      return { kid: signer.kid, privateKey: signer.privateKey, iss: BANK_FINANCIAL_ID };
    },
    ...(options.versionDrift !== undefined ? { versionDrift: options.versionDrift } : {}),
  });
  const auth = createAuthHandler(deps);

  const seams = { now, newId, logger, pageSkin };
  handlers.resource = (req, res) =>
    serve('resource', req, res, seams, async (request, response, ctx) => {
      // Every resource-origin route (registration, helper, AIS) is mutual TLS with a directory certificate.
      if (!ctx.peerAuthorized) {
        // AIS v4.0 defines no body for a 401 (its 401Error response has no content).
        if (isV4Path(ctx.url.pathname, apis, apiVersions))
          throw new ObieError(401, 'a client certificate from the trust directory is required');
        throw ObieError.of(
          401,
          'UK.OBIE.Unauthorised',
          ctx.peerCertificate
            ? 'the client certificate does not chain to the trust directory'
            : 'a client certificate is required (mutual TLS)',
        );
      }
      const own = authRouteOnResourceOrigin(deps, request.method ?? '', ctx.url.pathname);
      await (own ?? resource)(request, response, ctx);
    });
  handlers.auth = (req, res) => serve('auth', req, res, seams, auth);

  return {
    urls,
    fapi: fapi.fapi.name,
    async close() {
      pruner.stop();
      await Promise.all([closeServer(resourceServer), closeServer(authServer)]);
      // Let a first start's key generation finish writing before the caller removes the data directory.
      await key.catch(() => undefined);
      db.close();
    },
  };
}

export function buildUrls(host: string, resourcePort: number, authPort: number): SandboxUrls {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const base = `https://${hostPart}:${resourcePort}`;
  const authOrigin = `https://${hostPart}:${authPort}`;
  const profiles = Object.fromEntries(
    PROFILE_NAMES.map((name) => {
      const issuer = `${authOrigin}/${name}`;
      return [
        name,
        {
          auth_url: issuer,
          token_url: `${issuer}/token`,
          discovery_url: `${issuer}/.well-known/openid-configuration`,
          authorization_endpoint: `${issuer}/authorize`,
        },
      ];
    }),
  ) as SandboxUrls['profiles'];
  return {
    sandbox_base_url: base,
    registration_endpoint: `${base}${REGISTRATION_PATH}`,
    environment_helper: `${base}${ENVIRONMENT_PATH}`,
    aisp_base_url: `${base}/open-banking/v3.1/aisp`,
    profiles,
  };
}

/** Prunes expired rows every `intervalMs`, one short batch per turn of the event loop, so requests interleave. */
function startPruning(db: SandboxDb, now: () => Date, intervalMs: number): { stop(): void } {
  let stopped = false;
  const step = (): void => {
    if (stopped) return;
    if (db.pruneBatch(now().getTime()) > 0) setImmediate(step);
  };
  const timer = setInterval(step, intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

function unavailable(_req: IncomingMessage, res: ServerResponse): void {
  res.statusCode = 503;
  res.setHeader('Retry-After', '1');
  res.end();
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** How long an idle keep-alive connection stays open at both servers (a common load balancer's figure). */
const KEEP_ALIVE_MS = 65_000;

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    // Keep-alive connections (undici, browsers) would hold close() open.
    server.closeAllConnections();
  });
}

export type { ProfileName };

/** The AIS versions to serve, each once, in AIS_API_VERSIONS order; none given → all. */
function apiVersionsOf(versions: SandboxOptions['apiVersions']): NonNullable<SandboxOptions['apiVersions']> {
  if (versions === undefined) return AIS_API_VERSIONS;
  for (const version of versions) if (!AIS_API_VERSIONS.includes(version)) throw new TypeError(`unknown AIS version ${String(version)}`);
  if (versions.length === 0) throw new TypeError('startSandbox: apiVersions is empty');
  return AIS_API_VERSIONS.filter((version) => versions.includes(version));
}

/** The API families to serve, each once, in API_FAMILY_NAMES order; none given → `accounts` alone (the interface's
 *  account-only bank). */
function apisOf(apis: SandboxOptions['apis']): readonly ApiFamilyName[] {
  if (apis === undefined) return ['accounts'];
  for (const name of apis) if (!API_FAMILY_NAMES.includes(name)) throw new TypeError(`unknown API family ${String(name)}`);
  if (apis.length === 0) throw new TypeError('startSandbox: apis is empty');
  return API_FAMILY_NAMES.filter((name) => apis.includes(name));
}

/**
 * The bank's keys once ready: those given (SandboxOptions.idTokenKey, messageSigningKey), those keys.json holds, and
 * the rest generated — written to keys.json beside the stored ones, unless an ID-token key was given (keys.json is then
 * not the bank's: a message-signing key is made for this run only).
 */
async function keysOf(
  dataDir: string,
  given: { idToken?: SigningKey; messageSigning?: SigningKey },
  stored: StoredKeys | undefined,
  signing: boolean,
): Promise<{ idToken: SigningKey; messageSigning: SigningKey | undefined }> {
  const wanted = signing && given.messageSigning === undefined;
  if (given.idToken !== undefined)
    return {
      idToken: given.idToken,
      messageSigning: given.messageSigning ?? (wanted ? await signingKeyOf(await newIdTokenKey()) : undefined),
    };
  const ready =
    stored !== undefined && (!wanted || stored.messageSigning !== undefined)
      ? stored
      : await completeKeys(dataDir, stored, { messageSigning: wanted });
  return { idToken: ready.idToken, messageSigning: given.messageSigning ?? (signing ? ready.messageSigning : undefined) };
}

function messageKeyOf(keys: { messageSigning: SigningKey | undefined }): SigningKey {
  if (keys.messageSigning === undefined) throw new TypeError('no message-signing key: no served API signs its answers');
  return keys.messageSigning;
}

/** The accepted methods, each once, in the given order; none given (or an empty list) → all three. */
function tokenAuthMethodsOf(methods: readonly TokenAuthMethod[] | undefined): readonly TokenAuthMethod[] {
  if (methods === undefined || methods.length === 0) return TOKEN_AUTH_METHODS;
  for (const method of methods)
    if (!TOKEN_AUTH_METHODS.includes(method)) throw new TypeError(`unknown token auth method ${String(method)}`);
  return [...new Set(methods)];
}
