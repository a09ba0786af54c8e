// A small wire-level TPP for integration tests: undici over mutual TLS with a test identity; DCR with a jose-signed
// JWT, client credentials, consent creation through the resource API, headless authorise (one GET, redirects off),
// code exchange. Every method returns what the wire said, so tests can assert refusals as well as successes.

import { createPrivateKey, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';

import { SignJWT } from 'jose';
import type { JWTPayload } from 'jose';
import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll } from 'vitest';

import { BANK_FINANCIAL_ID } from '../../src/sandbox/contracts.js';
import type { AisApiVersion, ProfileName, SandboxOptions, SandboxUrls } from '../../src/sandbox/contracts.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { getTestIdentity } from './identity.js';
import type { TestIdentity } from './identity.js';
import { DEFAULT_PERMISSIONS } from '../../src/generate/collections.js';
import { tempDir } from './temp.js';

export interface TestSandbox {
  urls: SandboxUrls;
  identity: TestIdentity;
  dataDir: string;
  /** The sandbox's request log lines (already redacted). */
  log: string[];
  /** Stops the servers (keeps the data directory). */
  stop(): Promise<void>;
  /** Stops the servers and removes the data directory. */
  close(): Promise<void>;
}

/** Starts the emulator on port 0 with the default test identity's directory and a fresh (or given) data dir. */
export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const identity = await getTestIdentity();
  const dataDir = options.dataDir ?? (await tempDir('obflow-sandbox-test-'));
  const log: string[] = [];
  const handle = await startSandbox({
    serverCertificate: identity.pem.serverCert,
    serverKey: identity.pem.serverKey,
    clientCa: [identity.pem.rootCa, identity.pem.issuingCa],
    directoryJwks: identity.directoryJwks as unknown as SandboxOptions['directoryJwks'],
    log: (line) => log.push(line),
    ...options,
    dataDir,
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await handle.close();
  };
  return {
    urls: handle.urls,
    identity,
    dataDir,
    log,
    stop,
    async close() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A test file's emulator, as `startTestSandbox` gives it, plus the clients it closes with it. */
export interface SandboxFixture extends TestSandbox {
  /** A client of the running emulator with its identity, registered (DCR) under `profile`, closed after the file. */
  tpp(profile?: ProfileName): Promise<SandboxTpp>;
  /** Closes `client` after the file's tests, before the emulator. */
  track<T extends { close(): Promise<void> }>(client: T): T;
}

/**
 * The sandbox + identity set-up of a test file: starts the emulator before the file's tests (`startTestSandbox` with
 * `options`, the default test identity) and closes it, with every tracked client, after them. The object reads the
 * running emulator, so use it inside hooks and tests.
 */
export function useTestSandbox(options: Partial<SandboxOptions> = {}): SandboxFixture {
  let running: TestSandbox | undefined;
  const clients: { close(): Promise<void> }[] = [];
  const live = (): TestSandbox => {
    if (running === undefined) throw new Error('the test sandbox is not running (use it inside hooks and tests)');
    return running;
  };
  beforeAll(async () => {
    running = await startTestSandbox(options);
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await running?.close();
  });
  const fixture: SandboxFixture = {
    get urls() {
      return live().urls;
    },
    get identity() {
      return live().identity;
    },
    get dataDir() {
      return live().dataDir;
    },
    get log() {
      return live().log;
    },
    stop: () => live().stop(),
    close: () => live().close(),
    async tpp(profile = 'strict-headless') {
      const tpp = fixture.track(new SandboxTpp(live().urls, live().identity, profile));
      await tpp.register();
      return tpp;
    },
    track(client) {
      clients.push(client);
      return client;
    },
  };
  return fixture;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (throws if it is not JSON). */
  json<T = Record<string, unknown>>(): T;
}

export interface RegisteredClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  [name: string]: unknown;
}

export interface AuthorizeOptions {
  consentId: string;
  responseType?: 'code' | 'code id_token';
  /** Default: a fresh value; `null` leaves it out. */
  state?: string | null;
  nonce?: string | null;
  /** Default: the client's first redirect URI; `null` leaves it out. */
  redirectUri?: string | null;
  scope?: string;
  loginHint?: string;
  /** How to send the request object: unsigned (default), PS256 with the identity's signing key, or not at all. */
  requestObject?: 'none' | 'PS256' | false;
  /** Extra or replaced request-object claims (undefined values delete a claim). */
  objectClaims?: Record<string, unknown>;
  /** Whether the parameters are also in the query (default true, as OIDC Core §6.1 asks). */
  queryParams?: boolean;
  essential?: boolean;
}

/** The PSU at the interactive pages: who logs in, which offered accounts (by index; default all), Confirm or Cancel. */
export interface PsuAtThePages {
  username: string;
  password: string;
  accounts?: number[];
  cancel?: boolean;
  /** Runs after the consent page loads (given its HTML), before Confirm/Cancel. */
  beforeConfirm?: (consentPage: string) => void | Promise<void>;
}

export interface AuthorizeResult {
  status: number;
  location: string | undefined;
  /** The redirect's parameters (from the fragment for code id_token, else the query). */
  params: URLSearchParams;
  response: WireResponse;
  state: string | undefined;
  nonce: string | undefined;
  redirectUri: string | undefined;
}

/** The bank's x-fapi-financial-id, as TPP requests send it. */
export { BANK_FINANCIAL_ID };

/** The permissions a typical AIS consent asks for. */
/** The permissions obflow's own collections ask for: the emulator's tests consent to the same by default. */
export { DEFAULT_PERMISSIONS };

/** An mTLS agent presenting `identity`'s transport certificate and trusting the directory's CAs. */
export function mtlsAgent(identity: TestIdentity, withCertificate = true): Agent {
  return new Agent({
    connect: {
      ca: [identity.pem.rootCa, identity.pem.issuingCa],
      ...(withCertificate ? { cert: identity.pem.transportCert, key: identity.pem.transportKey } : {}),
    },
  });
}

export async function wire(
  dispatcher: Dispatcher,
  method: Dispatcher.HttpMethod,
  url: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<WireResponse> {
  const response = await request(url, {
    method,
    dispatcher,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    json<T>() {
      return JSON.parse(text) as T;
    },
  };
}

/**
 * One request with the request target sent exactly as given (undici and fetch normalise `/\\` to `//` and reject
 * some targets before sending), over mutual TLS with `identity`'s transport certificate.
 */
export function rawTarget(
  identity: TestIdentity,
  origin: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<WireResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: hostname.replace(/^\[|\]$/g, ''),
        port,
        method,
        path: target,
        headers,
        agent: false,
        ca: [identity.pem.rootCa, identity.pem.issuingCa],
        cert: identity.pem.transportCert,
        key: identity.pem.transportKey,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export class SandboxTpp {
  readonly agent: Agent;
  client: RegisteredClient | undefined;

  constructor(
    readonly urls: SandboxUrls,
    readonly identity: TestIdentity,
    readonly profile: ProfileName = 'strict-headless',
    agent?: Agent,
  ) {
    this.agent = agent ?? mtlsAgent(identity);
  }

  get issuer(): string {
    return this.urls.profiles[this.profile].auth_url;
  }

  /** The same registered client, presenting another identity's certificate (for binding tests). */
  withIdentity(identity: TestIdentity, withCertificate = true): SandboxTpp {
    const other = new SandboxTpp(this.urls, identity, this.profile, mtlsAgent(identity, withCertificate));
    other.client = this.client;
    return other;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  fetch(method: Dispatcher.HttpMethod, url: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<WireResponse> {
    return wire(this.agent, method, url, init);
  }

  /** The registration claims of bank-interface §2.1, with overrides (an `undefined` value deletes the claim). */
  registrationClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      token_endpoint_auth_signing_alg: 'PS256',
      grant_types: ['authorization_code', 'client_credentials'],
      subject_type: 'public',
      application_type: 'web',
      iss: this.identity.manifest.software_id,
      redirect_uris: [...this.identity.manifest.redirect_uris],
      token_endpoint_auth_method: 'client_secret_basic',
      aud: this.issuer,
      scope: 'openid accounts',
      request_object_signing_alg: 'none',
      exp: now + 3600,
      iat: now,
      jti: randomUUID(),
      response_types: ['code', 'code id_token'],
      id_token_signed_response_alg: 'PS256',
      software_statement: this.identity.softwareStatement,
    };
    for (const [name, value] of Object.entries(overrides)) {
      if (value === undefined) delete claims[name];
      else claims[name] = value;
    }
    return claims;
  }

  /** Signs registration claims with the identity's signing key (PS256, kid from the manifest). */
  async signRegistration(claims: Record<string, unknown>, signWith?: { key: string; kid: string }): Promise<string> {
    const key = createPrivateKey(signWith?.key ?? this.identity.pem.signingKey);
    return new SignJWT(claims as JWTPayload)
      .setProtectedHeader({ alg: 'PS256', kid: signWith?.kid ?? this.identity.manifest.kid, typ: 'JWT' })
      .sign(key);
  }

  /** POST the registration JWT; returns the raw response. */
  registerRaw(jwt: string, contentType = 'application/jwt'): Promise<WireResponse> {
    return this.fetch('POST', this.urls.registration_endpoint, {
      headers: { 'content-type': contentType, accept: 'application/json' },
      body: jwt,
    });
  }

  /** Registers with default claims (plus overrides) and keeps the client; throws unless 201. */
  async register(overrides: Record<string, unknown> = {}): Promise<RegisteredClient> {
    const response = await this.registerRaw(await this.signRegistration(this.registrationClaims(overrides)));
    if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${response.text}`);
    this.client = response.json<RegisteredClient>();
    return this.client;
  }

  private requireClient(): RegisteredClient {
    if (!this.client) throw new TypeError('register() first');
    return this.client;
  }

  basicAuth(secret?: string): string {
    const client = this.requireClient();
    return `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret ?? client.client_secret)}`).toString('base64')}`;
  }

  /** POST to this profile's token endpoint with client_secret_basic. */
  token(params: Record<string, string>, init: { secret?: string; authorization?: string | null } = {}): Promise<WireResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (init.authorization !== null) headers.authorization = init.authorization ?? this.basicAuth(init.secret);
    return this.fetch('POST', this.urls.profiles[this.profile].token_url, { headers, body: new URLSearchParams(params).toString() });
  }

  /** client_credentials for `scope` (default accounts); throws unless 200. */
  async clientCredentials(scope = 'accounts'): Promise<string> {
    const response = await this.token({ grant_type: 'client_credentials', scope });
    if (response.status !== 200) throw new Error(`client_credentials answered ${response.status}: ${response.text}`);
    return response.json<{ access_token: string }>().access_token;
  }

  /** The AIS base URL of a version (the emulator serves v3.1 and v4.0 side by side by default). */
  aisBase(version: AisApiVersion = '3.1'): string {
    return version === '3.1' ? this.urls.aisp_base_url : `${this.urls.sandbox_base_url}/open-banking/v${version}/aisp`;
  }

  /** POST /account-access-consents on the resource server (on `version`, default v3.1); returns the raw response. */
  createConsentRaw(
    accessToken: string,
    permissions: readonly string[] = DEFAULT_PERMISSIONS,
    version: AisApiVersion = '3.1',
  ): Promise<WireResponse> {
    return this.fetch('POST', `${this.aisBase(version)}/account-access-consents`, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-fapi-financial-id': BANK_FINANCIAL_ID,
        'x-fapi-interaction-id': randomUUID(),
      },
      body: JSON.stringify({ Data: { Permissions: permissions }, Risk: {} }),
    });
  }

  /** Client credentials + consent creation; returns the ConsentId. */
  async createConsent(permissions: readonly string[] = DEFAULT_PERMISSIONS, version: AisApiVersion = '3.1'): Promise<string> {
    const response = await this.createConsentRaw(await this.clientCredentials(), permissions, version);
    if (response.status !== 201) throw new Error(`consent creation answered ${response.status}: ${response.text}`);
    return response.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
  }

  /** The consent URL (authorization endpoint + request object) as a TPP builds it. */
  async authorizeUrl(
    options: AuthorizeOptions,
  ): Promise<{ url: string; state: string | undefined; nonce: string | undefined; redirectUri: string | undefined }> {
    const client = this.requireClient();
    const responseType = options.responseType ?? 'code id_token';
    const state = options.state === null ? undefined : (options.state ?? randomUUID());
    const nonce = options.nonce === null ? undefined : (options.nonce ?? randomUUID());
    const redirectUri = options.redirectUri === null ? undefined : (options.redirectUri ?? client.redirect_uris[0]);
    const scope = options.scope ?? 'openid accounts';
    const claims = {
      id_token: {
        openbanking_intent_id: { value: options.consentId, essential: options.essential ?? true },
        acr: { essential: true, values: ['urn:openbanking:psd2:sca'] },
      },
    };
    const now = Math.floor(Date.now() / 1000);
    const object: Record<string, unknown> = {
      iss: client.client_id,
      aud: this.issuer,
      client_id: client.client_id,
      response_type: responseType,
      scope,
      claims,
      iat: now,
      nbf: now,
      exp: now + 300,
      ...(state === undefined ? {} : { state }),
      ...(nonce === undefined ? {} : { nonce }),
      ...(redirectUri === undefined ? {} : { redirect_uri: redirectUri }),
      ...(options.loginHint === undefined ? {} : { login_hint: options.loginHint }),
    };
    for (const [name, value] of Object.entries(options.objectClaims ?? {})) {
      if (value === undefined) delete object[name];
      else object[name] = value;
    }
    const query = new URLSearchParams({ client_id: client.client_id });
    if (options.queryParams !== false) {
      query.set('response_type', responseType);
      query.set('scope', scope);
      if (redirectUri !== undefined) query.set('redirect_uri', redirectUri);
      if (state !== undefined) query.set('state', state);
      if (nonce !== undefined) query.set('nonce', nonce);
      if (options.loginHint !== undefined) query.set('login_hint', options.loginHint);
      if (options.requestObject === false) query.set('claims', JSON.stringify(claims));
    }
    const mode = options.requestObject ?? 'none';
    if (mode === 'none') query.set('request', unsignedJwt(object));
    if (mode === 'PS256') {
      const key = createPrivateKey(this.identity.pem.signingKey);
      query.set(
        'request',
        await new SignJWT(object as JWTPayload)
          .setProtectedHeader({ alg: 'PS256', kid: this.identity.manifest.kid, typ: 'oauth-authz-req+jwt' })
          .sign(key),
      );
    }
    return { url: `${this.urls.profiles[this.profile].authorization_endpoint}?${query.toString()}`, state, nonce, redirectUri };
  }

  /** RFC 9126 §2: pushes the authorization request authorizeUrl would send (its query as the form body, client
   *  authentication as at the token endpoint); returns the answer and the URL that then names it (RFC 9126 §4). */
  async push(
    options: AuthorizeOptions,
  ): Promise<{ response: WireResponse; url: string | undefined; built: Awaited<ReturnType<SandboxTpp['authorizeUrl']>> }> {
    const built = await this.authorizeUrl(options);
    const body = new URL(built.url).searchParams;
    const issuer = this.urls.profiles[this.profile].auth_url;
    const response = await this.fetch('POST', `${issuer}/par`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: this.basicAuth() },
      body: body.toString(),
    });
    const requestUri = response.status === 201 ? response.json<{ request_uri: string }>().request_uri : undefined;
    const query = new URLSearchParams({
      client_id: this.requireClient().client_id,
      ...(requestUri === undefined ? {} : { request_uri: requestUri }),
    });
    const url = requestUri === undefined ? undefined : `${this.urls.profiles[this.profile].authorization_endpoint}?${query.toString()}`;
    return { response, url, built };
  }

  /** A pushed request, then the authorization request naming it (headless: the redirect at once). */
  async authorizePushed(options: AuthorizeOptions): Promise<AuthorizeResult> {
    const pushed = await this.push(options);
    if (pushed.url === undefined) throw new Error(`PAR answered ${pushed.response.status}: ${pushed.response.text}`);
    return authorizeResult(pushed.built, await this.fetch('GET', pushed.url));
  }

  /** One GET of the consent URL with redirects off (headless profiles answer with the redirect at once). */
  async authorize(options: AuthorizeOptions): Promise<AuthorizeResult> {
    const built = await this.authorizeUrl(options);
    const response = await this.fetch('GET', built.url);
    return authorizeResult(built, response);
  }

  /**
   * Interactive profiles without a browser: follows the bank's pages over the wire as a browser would (cookie,
   * login form, consent form). `accounts` picks by index among the offered checkboxes (default: all);
   * `cancel` presses Cancel instead of Confirm.
   */
  async authorizeInteractive(options: AuthorizeOptions, psu: PsuAtThePages): Promise<AuthorizeResult> {
    const built = await this.authorizeUrl(options);
    const response = await this.consentAtThePages(built.url, psu);
    return authorizeResult(built, response);
  }

  /**
   * The PSU's part of an interactive profile for a consent URL built by anyone (this helper or another client
   * library): GET it, log in, Confirm or Cancel. Returns the last answer (the redirect to the TPP when all went well,
   * else the first answer that was not what a browser would follow).
   */
  async consentAtThePages(consentUrl: string, psu: PsuAtThePages): Promise<WireResponse> {
    const start = await this.fetch('GET', consentUrl);
    const pageUrl = typeof start.headers.location === 'string' ? start.headers.location : undefined;
    if (start.status !== 303 || !pageUrl || !pageUrl.startsWith(this.issuer)) return start;
    const setCookie = start.headers['set-cookie'];
    const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(';')[0] ?? '';
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };

    const login = await this.fetch('GET', pageUrl, { headers: { cookie } });
    const loginAction = /<form method="post" action="([^"]+)"/.exec(login.text)?.[1];
    if (login.status !== 200 || !loginAction) return login;
    const loggedIn = await this.fetch('POST', decodeHtml(loginAction), {
      headers: form,
      body: new URLSearchParams({ username: psu.username, password: psu.password }).toString(),
    });
    if (loggedIn.status !== 303) return loggedIn;

    const consentPage = await this.fetch('GET', pageUrl, { headers: { cookie } });
    const confirmAction = /<form method="post" action="([^"]+)"/.exec(consentPage.text)?.[1];
    if (consentPage.status !== 200 || !confirmAction) return consentPage;
    const offered = [...consentPage.text.matchAll(/name="account" value="([^"]+)"/g)].map((m) => decodeHtml(m[1] ?? ''));
    const body = new URLSearchParams({ action: psu.cancel ? 'cancel' : 'confirm' });
    for (const [index, accountId] of offered.entries())
      if (psu.accounts === undefined || psu.accounts.includes(index)) body.append('account', accountId);
    await psu.beforeConfirm?.(consentPage.text);
    return this.fetch('POST', decodeHtml(confirmAction), { headers: form, body: body.toString() });
  }

  /** authorization_code grant. */
  exchangeCode(code: string, redirectUri: string | undefined): Promise<WireResponse> {
    return this.token({ grant_type: 'authorization_code', code, ...(redirectUri === undefined ? {} : { redirect_uri: redirectUri }) });
  }

  /** The whole headless flow: consent, authorise as the default user, code exchange. Throws on any refusal. */
  async headlessFlow(
    options: Partial<AuthorizeOptions> = {},
    version: AisApiVersion = '3.1',
  ): Promise<{
    consentId: string;
    accessToken: string;
    refreshToken: string | undefined;
    idToken: string | undefined;
    authorize: AuthorizeResult;
  }> {
    const consentId = await this.createConsent(DEFAULT_PERMISSIONS, version);
    const authorize = await this.authorize({ ...options, consentId });
    const code = authorize.params.get('code');
    if (!code) throw new Error(`authorise answered ${authorize.status} ${authorize.location ?? authorize.response.text}`);
    const exchanged = await this.exchangeCode(code, authorize.redirectUri);
    if (exchanged.status !== 200) throw new Error(`code exchange answered ${exchanged.status}: ${exchanged.text}`);
    const tokens = exchanged.json<{ access_token: string; refresh_token?: string; id_token?: string }>();
    return { consentId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, idToken: tokens.id_token, authorize };
  }
}

/** Parameters of a redirect Location: the fragment when there is one, else the query. */
export function redirectParams(location: string | undefined): URLSearchParams {
  if (!location) return new URLSearchParams();
  const hash = location.indexOf('#');
  if (hash >= 0) return new URLSearchParams(location.slice(hash + 1));
  return new URL(location).searchParams;
}

/** An unsigned JWT (`alg: none`, empty signature), as the sandbox registration's request_object_signing_alg asks. */
export function unsignedJwt(payload: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(payload)}.`;
}

function decodeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '');
}

/** What the bank answered to an authorisation request: its redirect and the parameters it carries. */
function authorizeResult(built: Awaited<ReturnType<SandboxTpp['authorizeUrl']>>, response: WireResponse): AuthorizeResult {
  const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
  return {
    status: response.status,
    location,
    params: redirectParams(location),
    response,
    state: built.state,
    nonce: built.nonce,
    redirectUri: built.redirectUri,
  };
}
