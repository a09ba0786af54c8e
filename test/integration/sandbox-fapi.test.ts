// The emulator's FAPI modes (`obflow sandbox --fapi`), over real mutual TLS on port 0: `interface` is the
// bank interface as before, `1-advanced` refuses plain `code` without JARM as certified FAPI 1 Advanced servers do, and
// `2.0` is the FAPI 2.0 Security Profile — PAR required, PKCE S256, `code` only, `iss` on every authorization response
// (RFC 9207), private_key_jwt or tls_client_auth with the issuer as the assertion's aud, typ oauth-authz-req+jwt. Each
// rule has a case that fails when the rule is removed (docs/notes.md, "the emulator's FAPI modes").

import { createHash, createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';

import { createLocalJWKSet, jwtVerify, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ProfileName } from '../../src/sandbox/contracts.js';
import { CLIENT_ASSERTION_TYPE } from '../../src/sandbox/auth/client-auth.js';
import { BANK_FINANCIAL_ID, SandboxTpp, startTestSandbox } from '../helpers/sandbox-client.js';
import type { AuthorizeOptions, TestSandbox, WireResponse } from '../helpers/sandbox-client.js';
import { signClientAssertion } from '../helpers/client-assertion.js';

const VERIFIER = `${randomUUID()}-${randomUUID()}`;
const PKCE = { code_challenge: createHash('sha256').update(VERIFIER, 'ascii').digest('base64url'), code_challenge_method: 'S256' };

let plain: TestSandbox;
let advanced: TestSandbox;
let fapi2: TestSandbox;
const tpps: SandboxTpp[] = [];

beforeAll(async () => {
  [plain, advanced, fapi2] = await Promise.all([
    startTestSandbox(),
    startTestSandbox({ fapi: '1-advanced' }),
    startTestSandbox({ fapi: '2.0' }),
  ]);
});

afterAll(async () => {
  await Promise.all(tpps.map((tpp) => tpp.close()));
  await Promise.all([plain?.close(), advanced?.close(), fapi2?.close()]);
});

/** A client at `sandbox` registered with `overrides` (the §2.1 claims otherwise: client_secret_basic). */
async function tppAt(
  sandbox: TestSandbox,
  profile: ProfileName = 'strict-headless',
  overrides: Record<string, unknown> = {},
): Promise<SandboxTpp> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
  tpps.push(tpp);
  await tpp.register(overrides);
  return tpp;
}

/** The registration a FAPI 2.0 client makes: code only, private_key_jwt or tls_client_auth. */
function fapi2Registration(
  tpp: { identity: SandboxTpp['identity'] },
  method: 'private_key_jwt' | 'tls_client_auth',
): Record<string, unknown> {
  const common = { response_types: ['code'], request_object_signing_alg: 'PS256' };
  if (method === 'private_key_jwt') return { ...common, token_endpoint_auth_method: 'private_key_jwt' };
  const dn = new X509Certificate(tpp.identity.pem.transportCert).subject.split('\n').reverse().join(',');
  return {
    ...common,
    token_endpoint_auth_method: 'tls_client_auth',
    token_endpoint_auth_signing_alg: undefined,
    tls_client_auth_subject_dn: dn,
  };
}

async function fapi2Client(profile: ProfileName = 'strict-headless', method: 'private_key_jwt' | 'tls_client_auth' = 'private_key_jwt') {
  const tpp = new SandboxTpp(fapi2.urls, fapi2.identity, profile);
  tpps.push(tpp);
  await tpp.register(fapi2Registration(tpp, method));
  return new Fapi2Client(tpp, method);
}

/** A FAPI 2.0 client of the emulator: authenticates with its registered method (private_key_jwt's aud the issuer),
 *  pushes every authorization request, and exchanges codes with the PKCE verifier. */
class Fapi2Client {
  constructor(
    readonly tpp: SandboxTpp,
    readonly method: 'private_key_jwt' | 'tls_client_auth',
  ) {}

  get clientId(): string {
    return String(this.tpp.client?.client_id);
  }

  /** A client assertion (RFC 7523 §3), aud the issuer unless overridden (undefined deletes a claim). */
  assertion(overrides: Record<string, unknown> = {}): Promise<string> {
    const { identity } = this.tpp;
    return signClientAssertion({
      clientId: this.clientId,
      aud: this.tpp.issuer,
      key: identity.pem.signingKey,
      kid: identity.manifest.kid,
      overrides,
    });
  }

  /** The client authentication parameters of a form (RFC 7523 §2.2 or RFC 8705 §2.1). */
  async auth(aud?: unknown): Promise<Record<string, string>> {
    if (this.method === 'tls_client_auth') return { client_id: this.clientId };
    return { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: await this.assertion(aud === undefined ? {} : { aud }) };
  }

  post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<WireResponse> {
    return this.tpp.fetch('POST', url, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  async token(params: Record<string, string>): Promise<WireResponse> {
    return this.post(this.tpp.urls.profiles[this.tpp.profile].token_url, { ...params, ...(await this.auth()) });
  }

  async createConsent(): Promise<string> {
    const cc = await this.token({ grant_type: 'client_credentials', scope: 'accounts' });
    if (cc.status !== 200) throw new Error(`client_credentials answered ${cc.status}: ${cc.text}`);
    const created = await this.tpp.createConsentRaw(cc.json<{ access_token: string }>().access_token);
    if (created.status !== 201) throw new Error(`consent answered ${created.status}: ${created.text}`);
    return created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
  }

  /** RFC 9126 §2: the request authorizeUrl builds (PS256 request object with PKCE unless told otherwise), pushed. */
  async push(
    options: Partial<AuthorizeOptions> = {},
    extra: { aud?: unknown; form?: Record<string, string | undefined> } = {},
  ): Promise<{ response: WireResponse; url: string | undefined; built: Awaited<ReturnType<SandboxTpp['authorizeUrl']>> }> {
    const built = await this.tpp.authorizeUrl({
      responseType: 'code',
      requestObject: 'PS256',
      objectClaims: PKCE,
      ...options,
      consentId: options.consentId ?? (await this.createConsent()),
    });
    const form = Object.fromEntries(new URL(built.url).searchParams);
    for (const [name, value] of Object.entries(extra.form ?? {})) {
      if (value === undefined) delete form[name];
      else form[name] = value;
    }
    const response = await this.post(`${this.tpp.issuer}/par`, { ...form, ...(await this.auth(extra.aud)) });
    const requestUri = response.status === 201 ? response.json<{ request_uri: string }>().request_uri : undefined;
    const url =
      requestUri === undefined
        ? undefined
        : `${this.tpp.urls.profiles[this.tpp.profile].authorization_endpoint}?${new URLSearchParams({ client_id: this.clientId, request_uri: requestUri }).toString()}`;
    return { response, url, built };
  }

  /** Pushed, then authorised headless: the redirect's parameters. */
  async authorize(
    options: Partial<AuthorizeOptions> = {},
  ): Promise<{ params: URLSearchParams; status: number; redirectUri: string | undefined }> {
    const pushed = await this.push(options);
    if (pushed.url === undefined) throw new Error(`PAR answered ${pushed.response.status}: ${pushed.response.text}`);
    const answer = await this.tpp.fetch('GET', pushed.url);
    const location = String(answer.headers.location ?? '');
    return { params: new URL(location).searchParams, status: answer.status, redirectUri: pushed.built.redirectUri };
  }
}

async function discovery(tpp: SandboxTpp): Promise<Record<string, unknown>> {
  return (await tpp.fetch('GET', `${tpp.issuer}/.well-known/openid-configuration`)).json<Record<string, unknown>>();
}

function errorOf(response: WireResponse): { error: string; error_description: string } {
  return response.json<{ error: string; error_description: string }>();
}

describe('--fapi interface (the default): the bank interface as before', () => {
  it('discovery offers code and code id_token, every client authentication, and no RFC 9207 parameter', async () => {
    const doc = await discovery(await tppAt(plain));
    expect(doc.response_types_supported).toEqual(['code', 'code id_token']);
    expect(doc.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'private_key_jwt', 'tls_client_auth']);
    expect(doc).not.toHaveProperty('authorization_response_iss_parameter_supported');
    expect(doc).not.toHaveProperty('pushed_authorization_request_endpoint');
  });

  it('strict takes plain code without JARM, and the redirect carries no iss', async () => {
    const tpp = await tppAt(plain);
    const result = await tpp.authorize({ responseType: 'code', consentId: await tpp.createConsent() });
    expect(result.params.get('code')).not.toBeNull();
    expect(result.params.has('iss')).toBe(false);
  });
});

describe('--fapi 1-advanced: code only with JARM (FAPI 1 Advanced Part 2 §5.2.2-2)', () => {
  it('discovery is the interface’s, address for address', async () => {
    const [mine, theirs] = [await discovery(await tppAt(advanced)), await discovery(await tppAt(plain))];
    const anyPort = (doc: Record<string, unknown>) => JSON.parse(JSON.stringify(doc).replace(/https:\/\/[^/"]+/g, 'ORIGIN')) as unknown;
    expect(anyPort(mine)).toEqual(anyPort(theirs));
  });

  it('strict: plain code is an error redirect, invalid_request, as oidc-provider words it', async () => {
    const tpp = await tppAt(advanced);
    const result = await tpp.authorize({ responseType: 'code', consentId: await tpp.createConsent() });
    expect(result.status).toBe(303);
    expect(result.params.get('error')).toBe('invalid_request');
    expect(result.params.get('error_description')).toContain('requested response_mode is not allowed for this client or request');
    expect(result.params.get('code')).toBeNull();
  });

  it('strict: code with response_mode jwt and code id_token (hybrid) are accepted', async () => {
    const tpp = await tppAt(advanced);
    const jarm = await tpp.authorize({
      responseType: 'code',
      consentId: await tpp.createConsent(),
      objectClaims: { response_mode: 'jwt' },
    });
    expect(jarm.params.get('response')).not.toBeNull();
    const hybrid = await tpp.authorize({ responseType: 'code id_token', consentId: await tpp.createConsent() });
    expect(hybrid.params.get('code')).not.toBeNull();
  });

  it('permissive tolerates plain code (row code-without-jarm)', async () => {
    const tpp = await tppAt(advanced, 'permissive-headless');
    const result = await tpp.authorize({ responseType: 'code', consentId: await tpp.createConsent() });
    expect(result.params.get('code')).not.toBeNull();
  });
});

describe('--fapi 2.0: discovery (FAPI 2.0 Security Profile §5.3.2, RFC 9207 §3, RFC 9126 §5)', () => {
  it.each(['strict-headless', 'permissive-headless'] as const)(
    '%s: code only, PAR required, S256, the two methods, iss',
    async (profile) => {
      const tpp = new SandboxTpp(fapi2.urls, fapi2.identity, profile);
      tpps.push(tpp);
      const doc = await discovery(tpp);
      expect(doc.response_types_supported).toEqual(['code']);
      expect(doc.response_modes_supported).toEqual(['query', 'jwt', 'query.jwt']);
      expect(doc.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt', 'tls_client_auth']);
      expect(doc.authorization_response_iss_parameter_supported).toBe(true);
      expect(doc.pushed_authorization_request_endpoint).toBe(`${tpp.issuer}/par`);
      expect(doc.require_pushed_authorization_requests).toBe(true);
      expect(doc.code_challenge_methods_supported).toEqual(['S256']);
      expect(doc.tls_client_certificate_bound_access_tokens).toBe(true);
    },
  );
});

describe('--fapi 2.0: the whole flow', () => {
  it('private_key_jwt: PAR with a PS256 request object and PKCE, iss in the redirect, a certificate-bound token', async () => {
    const client = await fapi2Client();
    const result = await client.authorize();
    expect(result.status).toBe(303);
    expect(result.params.get('iss')).toBe(client.tpp.issuer);
    const code = result.params.get('code') ?? '';
    expect(code).not.toBe('');
    const exchanged = await client.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: result.redirectUri ?? '',
      code_verifier: VERIFIER,
    });
    expect(exchanged.status, exchanged.text).toBe(200);
    const { access_token: accessToken } = exchanged.json<{ access_token: string }>();
    const accounts = await client.tpp.fetch('GET', `${client.tpp.urls.aisp_base_url}/accounts`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID },
    });
    expect(accounts.status).toBe(200);
  });

  it('tls_client_auth: plain parameters pushed (no request object) and no nonce are accepted in strict', async () => {
    const client = await fapi2Client('strict-headless', 'tls_client_auth');
    const pushed = await client.push({ requestObject: false, nonce: null }, { form: PKCE });
    expect(pushed.response.status, pushed.response.text).toBe(201);
    const answer = await client.tpp.fetch('GET', pushed.url ?? '');
    const params = new URL(String(answer.headers.location)).searchParams;
    expect(params.get('error_description')).toBeNull();
    expect(params.get('code')).not.toBeNull();
    expect(params.get('iss')).toBe(client.tpp.issuer);
  });

  it('strict: a request object pushed alone (client_id and request, RFC 9101 §5) is accepted without query copies', async () => {
    const client = await fapi2Client();
    const pushed = await client.push({ queryParams: false });
    expect(pushed.response.status, pushed.response.text).toBe(201);
  });

  it('JARM under 2.0: the response JWT carries iss; no iss parameter beside it', async () => {
    const client = await fapi2Client();
    const result = await client.authorize({ objectClaims: { ...PKCE, response_mode: 'jwt' } });
    expect(result.params.has('iss')).toBe(false);
    const jwks = (await client.tpp.fetch('GET', `${client.tpp.issuer}/jwks`)).json<JSONWebKeySet>();
    const { payload } = await jwtVerify(result.params.get('response') ?? '', createLocalJWKSet(jwks), { issuer: client.tpp.issuer });
    expect(payload.code).toBeDefined();
  });
});

describe('--fapi 2.0: iss on error responses too (RFC 9207 §2)', () => {
  it('an authorization request that was not pushed: error redirect with iss', async () => {
    const client = await fapi2Client();
    const built = await client.tpp.authorizeUrl({
      responseType: 'code',
      requestObject: 'PS256',
      objectClaims: PKCE,
      consentId: await client.createConsent(),
    });
    const answer = await client.tpp.fetch('GET', built.url);
    const params = new URL(String(answer.headers.location)).searchParams;
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toContain('Pushed Authorization Request must be used');
    expect(params.get('iss')).toBe(client.tpp.issuer);
  });

  it('the PSU cancels at the pages (interactive): access_denied with iss', async () => {
    const client = await fapi2Client('strict-interactive');
    const pushed = await client.push();
    const answer = await client.tpp.consentAtThePages(pushed.url ?? '', { username: 'alex', password: 'alex-sandbox-1', cancel: true });
    const params = new URL(String(answer.headers.location)).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('iss')).toBe(client.tpp.issuer);
  });

  it('headless: a login_hint naming nobody is login_required with iss', async () => {
    const client = await fapi2Client();
    const result = await client.authorize({ loginHint: 'nobody' });
    expect(result.params.get('error')).toBe('login_required');
    expect(result.params.get('iss')).toBe(client.tpp.issuer);
  });
});

describe('--fapi 2.0: refusals, the same in every profile', () => {
  const PROFILES = ['strict-headless', 'permissive-headless'] as const;

  it.each(PROFILES)('%s: a pushed request without code_challenge is invalid_request, code challenge required', async (profile) => {
    const client = await fapi2Client(profile);
    const pushed = await client.push({ objectClaims: {} });
    expect(pushed.response.status).toBe(400);
    expect(errorOf(pushed.response)).toMatchObject({ error: 'invalid_request' });
    expect(errorOf(pushed.response).error_description).toContain('code challenge required');
  });

  it.each(PROFILES)('%s: code_challenge_method plain is invalid_request (S256 only)', async (profile) => {
    const client = await fapi2Client(profile);
    const pushed = await client.push({ objectClaims: { code_challenge: VERIFIER, code_challenge_method: 'plain' } });
    expect(pushed.response.status).toBe(400);
    expect(errorOf(pushed.response).error_description).toContain('S256 only');
  });

  it.each(PROFILES)('%s: response_type code id_token is unsupported_response_type', async (profile) => {
    const client = await fapi2Client(profile);
    const pushed = await client.push({ responseType: 'code id_token' });
    expect(pushed.response.status).toBe(400);
    expect(errorOf(pushed.response).error).toBe('unsupported_response_type');
  });

  it.each(PROFILES)('%s: registering code id_token is invalid_client_metadata', async (profile) => {
    const tpp = new SandboxTpp(fapi2.urls, fapi2.identity, profile);
    tpps.push(tpp);
    const claims = tpp.registrationClaims({ ...fapi2Registration(tpp, 'private_key_jwt'), response_types: ['code', 'code id_token'] });
    const answer = await tpp.registerRaw(await tpp.signRegistration(claims));
    expect(answer.status).toBe(400);
    expect(errorOf(answer).error).toBe('invalid_client_metadata');
    expect(errorOf(answer).error_description).toContain('code id_token');
  });

  it.each(PROFILES)('%s: registering client_secret_basic is invalid_client_metadata', async (profile) => {
    const tpp = new SandboxTpp(fapi2.urls, fapi2.identity, profile);
    tpps.push(tpp);
    const answer = await tpp.registerRaw(await tpp.signRegistration(tpp.registrationClaims({ response_types: ['code'] })));
    expect(answer.status).toBe(400);
    expect(errorOf(answer).error).toBe('invalid_client_metadata');
    expect(errorOf(answer).error_description).toContain('client_secret_basic');
  });

  it.each(PROFILES)('%s: client_secret_basic at the token and PAR endpoints is invalid_client', async (profile) => {
    const client = await fapi2Client(profile);
    const basic = `Basic ${Buffer.from(`${client.clientId}:secret`).toString('base64')}`;
    const token = await client.post(
      client.tpp.urls.profiles[profile].token_url,
      { grant_type: 'client_credentials', scope: 'accounts' },
      { authorization: basic },
    );
    expect(token.status).toBe(401);
    expect(errorOf(token).error).toBe('invalid_client');
    expect(errorOf(token).error_description).toContain('client_secret_basic is not accepted');
    const par = await client.post(
      `${client.tpp.issuer}/par`,
      { client_id: client.clientId, response_type: 'code' },
      { authorization: basic },
    );
    expect(par.status).toBe(401);
    expect(errorOf(par).error).toBe('invalid_client');
  });

  it.each(PROFILES)(
    '%s: an assertion whose aud is not the issuer alone, as a string, is invalid_client at token and PAR',
    async (profile) => {
      const client = await fapi2Client(profile);
      for (const aud of [client.tpp.urls.profiles[profile].token_url, [client.tpp.issuer], `${client.tpp.issuer}/par`]) {
        const token = await client.post(client.tpp.urls.profiles[profile].token_url, {
          grant_type: 'client_credentials',
          scope: 'accounts',
          client_assertion_type: CLIENT_ASSERTION_TYPE,
          client_assertion: await client.assertion({ aud }),
        });
        expect(token.status, JSON.stringify(aud)).toBe(401);
        expect(errorOf(token).error_description).toContain('aud must be the issuer identifier');
      }
      const pushed = await client.push({}, { aud: client.tpp.urls.profiles[profile].token_url });
      expect(pushed.response.status).toBe(401);
      expect(errorOf(pushed.response).error_description).toContain('aud must be the issuer identifier');
    },
  );

  it.each(PROFILES)('%s: a request object typed other than oauth-authz-req+jwt is invalid_request_object', async (profile) => {
    const client = await fapi2Client(profile);
    const { request } = await typedRequestObject(client, 'JWT');
    const pushed = await client.push({}, { form: { request } });
    expect(pushed.response.status).toBe(400);
    expect(errorOf(pushed.response).error).toBe('invalid_request_object');
    expect(errorOf(pushed.response).error_description).toContain('oauth-authz-req+jwt');
  });

  // RFC 9101 §10.8: the typ is what keeps another kind of JWT from being read as a request object, so it is refused
  // before anything in the object counts — a body of client_id and request alone (RFC 9101 §5) is refused for its typ,
  // not for the redirect_uri it lacks.
  it.each(['private_key_jwt', 'tls_client_auth'] as const)(
    '%s: a pushed body of client_id and a request object typed JWT is invalid_request_object, the typ refused first',
    async (method) => {
      const client = await fapi2Client('strict-headless', method);
      const { request } = await typedRequestObject(client, 'JWT');
      const pushed = await client.post(`${client.tpp.issuer}/par`, { ...(await client.auth()), client_id: client.clientId, request });
      expect(pushed.status).toBe(400);
      expect(errorOf(pushed)).toMatchObject({ error: 'invalid_request_object' });
      expect(errorOf(pushed).error_description).toContain('oauth-authz-req+jwt');
    },
  );

  it('a request object typed application/oauth-authz-req+jwt, or without typ, is accepted (RFC 7515 §4.1.9)', async () => {
    const client = await fapi2Client();
    for (const typ of ['application/oauth-authz-req+jwt', undefined]) {
      const { request, consentId } = await typedRequestObject(client, typ);
      const pushed = await client.push({ consentId }, { form: { request } });
      expect(pushed.response.status, `${String(typ)}: ${pushed.response.text}`).toBe(201);
    }
  });
});

/** A PS256 request object as authorizeUrl signs it, with the header's typ set to `typ` (undefined: none). */
async function typedRequestObject(client: Fapi2Client, typ: string | undefined): Promise<{ request: string; consentId: string }> {
  const consentId = await client.createConsent();
  const built = await client.tpp.authorizeUrl({ responseType: 'code', requestObject: 'none', objectClaims: PKCE, consentId });
  const unsigned = new URL(built.url).searchParams.get('request') ?? '';
  const payload = JSON.parse(Buffer.from(unsigned.split('.')[1] ?? '', 'base64url').toString('utf8')) as JWTPayload;
  const request = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'PS256', kid: client.tpp.identity.manifest.kid, ...(typ === undefined ? {} : { typ }) })
    .sign(createPrivateKey(client.tpp.identity.pem.signingKey));
  return { request, consentId };
}
