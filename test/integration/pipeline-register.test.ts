// `register` and `environment` against the real emulator over mutual TLS: success, reuse and --force; the dry run
// verifies with jose against the statement's JWKS; each local refusal sends nothing; each bank refusal surfaces with
// its code and the bank's RFC 7591 error; transport failures map to ERR_REMOTE_*; environment download refusals.

import { X509Certificate, createPrivateKey, randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAPI_PROFILES } from '../../src/fapi-profile.js';

import { downloadEnvironment, environmentValue, buildObflowEnvironment, writeEnvironment } from '../../src/environment/index.js';
import { fetchDiscovery } from '../../src/bank/discovery.js';
import { isObflowError } from '../../src/errors.js';
import { loadTransportMaterial } from '../../src/pki/load.js';
import { createMtlsDispatcher } from '../../src/pki/tls.js';
import { registerClient, type RegisterClientInput, type StatementClaims } from '../../src/registration/index.js';
import { getForeignIdentity, getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

let identity: TestIdentity;
let second: TestIdentity;
let foreign: TestIdentity;
let dispatcher: Agent;
const agents: Agent[] = [];

const sandbox = useTestSandbox();

beforeAll(async () => {
  [identity, second, foreign] = await Promise.all([getTestIdentity(), getTestIdentity('second-tpp'), getForeignIdentity()]);
  dispatcher = await agentFor(identity);
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
});

async function agentFor(who: TestIdentity, options: { serverCa?: boolean } = {}): Promise<Agent> {
  const agent = createMtlsDispatcher({
    transport: await loadTransportMaterial(who.paths.transport),
    ...(options.serverCa === false ? {} : { serverCa: [identity.pem.rootCa, identity.pem.issuingCa] }),
  });
  agents.push(agent);
  return agent;
}

async function input(overrides: Partial<RegisterClientInput> = {}): Promise<RegisterClientInput> {
  return {
    stateDir: await tempDir('obflow-register-'),
    target: 'sandbox',
    profile: 'strict-headless',
    authUrl: sandbox.urls.profiles['strict-headless'].auth_url,
    registrationEndpoint: sandbox.urls.registration_endpoint,
    softwareStatement: identity.softwareStatement,
    statementClaims: decodeJwt(identity.softwareStatement) as unknown as StatementClaims,
    tokenEndpointAuthMethod: 'client_secret_basic',
    fapi: FAPI_PROFILES['1-advanced'],
    signingKey: createPrivateKey(identity.pem.signingKey),
    kid: identity.manifest.kid,
    transportCertificatePem: identity.pem.transportCert,
    dispatcher,
    now: () => new Date(),
    newJti: randomUUID,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isObflowError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an ObflowError');
}

const registrationRequests = (): number => sandbox.log.filter((line) => line.includes('/dynamic-client-registration/')).length;

describe('register', () => {
  it('registers over mTLS, stores 0600, re-uses the client, and registers anew with force', async () => {
    const base = await input();
    const first = await registerClient(base);
    expect(first.kind).toBe('registered');
    if (first.kind !== 'registered') return;
    expect(first.registration.client_id).toMatch(/\S/);
    expect(first.registration.client_secret).toMatch(/\S/);
    expect(first.registration.metadata.client_id).toBe(first.registration.client_id);
    expect((await stat(first.path)).mode & 0o777).toBe(0o600);

    const before = registrationRequests();
    const again = await registerClient(base);
    expect(again.kind).toBe('reused');
    expect(again.kind === 'reused' && again.registration.client_id).toBe(first.registration.client_id);
    expect(registrationRequests()).toBe(before);

    const forced = await registerClient({ ...base, force: true });
    expect(forced.kind).toBe('registered');
    expect(forced.kind === 'registered' && forced.registration.client_id).not.toBe(first.registration.client_id);
  });

  it("--dry-run: the signed JWT verifies against the statement's JWKS with every §2.1 claim present and typed", async () => {
    const before = registrationRequests();
    const result = await registerClient(await input({ dryRun: true }));
    expect(registrationRequests()).toBe(before);
    expect(result.kind).toBe('dry-run');
    if (result.kind !== 'dry-run') return;
    const statement = decodeJwt(identity.softwareStatement) as unknown as StatementClaims;
    const jwks = createLocalJWKSet(statement.software_jwks as never);
    const { payload, protectedHeader } = await jwtVerify(result.request.jwt, jwks, {
      algorithms: ['PS256'],
      audience: sandbox.urls.profiles['strict-headless'].auth_url,
      issuer: statement.software_id,
      typ: 'JWT',
    });
    expect(protectedHeader).toEqual({ alg: 'PS256', kid: identity.manifest.kid, typ: 'JWT' });
    expect(result.request.header).toEqual(protectedHeader);
    expect(result.request.claims).toEqual(payload);
    const strings = [
      'token_endpoint_auth_signing_alg',
      'subject_type',
      'application_type',
      'iss',
      'token_endpoint_auth_method',
      'aud',
      'scope',
      'request_object_signing_alg',
      'jti',
      'id_token_signed_response_alg',
      'software_statement',
    ];
    const arrays = ['grant_types', 'redirect_uris', 'response_types'];
    const integers = ['exp', 'iat'];
    expect(Object.keys(payload).sort()).toEqual([...strings, ...arrays, ...integers].sort());
    for (const claim of strings) expect(typeof payload[claim], claim).toBe('string');
    for (const claim of arrays)
      expect(
        (payload[claim] as unknown[]).every((item) => typeof item === 'string'),
        claim,
      ).toBe(true);
    for (const claim of integers) expect(Number.isInteger(payload[claim]), claim).toBe(true);
    expect(payload).toMatchObject({
      token_endpoint_auth_signing_alg: 'PS256',
      grant_types: ['authorization_code', 'client_credentials'],
      subject_type: 'public',
      application_type: 'web',
      redirect_uris: statement.software_redirect_uris,
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'openid accounts',
      request_object_signing_alg: 'none',
      response_types: ['code', 'code id_token'],
      id_token_signed_response_alg: 'PS256',
      software_statement: identity.softwareStatement,
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(payload.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  describe('local refusals send nothing', () => {
    const cases: [string, () => Promise<Partial<RegisterClientInput>>, string][] = [
      [
        'redirect URI not in the statement',
        async () => ({ redirectUris: ['https://elsewhere.example/cb'] }),
        'ERR_REDIRECT_URI_NOT_IN_SSA',
      ],
      ['kid not in the statement', async () => ({ kid: 'some-other-kid' }), 'ERR_SIGNING_KEY_MISMATCH'],
      ["signing key is not the kid's", async () => ({ signingKey: createPrivateKey(second.pem.signingKey) }), 'ERR_SIGNING_KEY_MISMATCH'],
      [
        'expired transport certificate',
        async () => ({ now: () => new Date(Date.parse(new X509Certificate(identity.pem.transportCert).validTo) + 1000) }),
        'ERR_CERT_EXPIRED',
      ],
      [
        'expired statement',
        async () => ({
          statementClaims: {
            ...(decodeJwt(identity.softwareStatement) as unknown as StatementClaims),
            exp: Math.floor(Date.now() / 1000) - 60,
          },
        }),
        'ERR_SSA_EXPIRED',
      ],
      ['certificate of another statement', async () => ({ transportCertificatePem: second.pem.transportCert }), 'ERR_CERT_NOT_FOR_SSA'],
    ];
    it.each(cases)('%s', async (_name, make, code) => {
      const before = registrationRequests();
      expect((await failure(registerClient(await input(await make())))).code).toBe(code);
      expect(registrationRequests()).toBe(before);
    });
  });

  describe("bank refusals surface with ERR_REGISTRATION_REJECTED and the bank's error", () => {
    it('aud that is no issuer of the bank', async () => {
      const refused = await failure(registerClient(await input({ authUrl: 'https://127.0.0.1:1/not-an-issuer' })));
      expect(refused.code).toBe('ERR_REGISTRATION_REJECTED');
      expect(refused.message).toContain('invalid_client_metadata');
    });
    it('replayed jti', async () => {
      const jti = randomUUID();
      await registerClient(await input({ newJti: () => jti }));
      const refused = await failure(registerClient(await input({ newJti: () => jti })));
      expect(refused.code).toBe('ERR_REGISTRATION_REJECTED');
      expect(refused.message).toMatch(/invalid_client_metadata.*jti/);
    });
    it('registration JWT already expired (clock behind)', async () => {
      const refused = await failure(registerClient(await input({ now: () => new Date(Date.now() - 2 * 3600_000) })));
      expect(refused.code).toBe('ERR_REGISTRATION_REJECTED');
      expect(refused.message).toContain('invalid_client_metadata');
    });
    it('statement signed by a directory the bank does not trust', async () => {
      // Everything local holds (the foreign statement's own key and kid); only the bank knows its directory.
      const { transportCertificatePem: _cert, ...rest } = await input({
        softwareStatement: foreign.softwareStatement,
        statementClaims: decodeJwt(foreign.softwareStatement) as unknown as StatementClaims,
        signingKey: createPrivateKey(foreign.pem.signingKey),
        kid: foreign.manifest.kid,
      });
      const refused = await failure(registerClient(rest));
      expect(refused.code).toBe('ERR_REGISTRATION_REJECTED');
      expect(refused.message).toMatch(/unapproved_software_statement|invalid_software_statement/);
    });
    it('no client certificate on the connection', async () => {
      const bare = new Agent({ connect: { ca: [identity.pem.rootCa, identity.pem.issuingCa] } });
      agents.push(bare);
      const refused = await failure(registerClient(await input({ dispatcher: bare })));
      expect(refused.code).toBe('ERR_REGISTRATION_REJECTED');
      expect(refused.message).toContain('401');
    });
  });

  it('an untrusted server certificate → ERR_REMOTE_TLS; nobody listening → ERR_REMOTE_UNREACHABLE', async () => {
    const publicRootsOnly = await agentFor(identity, { serverCa: false });
    expect((await failure(registerClient(await input({ dispatcher: publicRootsOnly })))).code).toBe('ERR_REMOTE_TLS');
    const closed = await startTestSandbox();
    const endpoint = closed.urls.registration_endpoint;
    await closed.close();
    expect((await failure(registerClient(await input({ registrationEndpoint: endpoint })))).code).toBe('ERR_REMOTE_UNREACHABLE');
  });
});

describe('environment', () => {
  it("downloads the client's helper file, merges it with discovery, drops disabled entries, types secrets", async () => {
    const registered = await registerClient(
      await input({ profile: 'permissive-headless', authUrl: sandbox.urls.profiles['permissive-headless'].auth_url }),
    );
    if (registered.kind === 'dry-run') throw new TypeError('unexpected dry run');
    const clientId = registered.registration.client_id;
    const bank = await downloadEnvironment({ helperUrl: sandbox.urls.environment_helper, clientId, dispatcher });
    expect(bank.values.some((entry) => entry.enabled === false)).toBe(true);
    const urls = sandbox.urls.profiles['permissive-headless'];
    const addresses = await fetchDiscovery(urls.discovery_url, dispatcher);
    const environment = buildObflowEnvironment({
      name: 'obflow sandbox permissive-headless',
      bank,
      discovery: { addresses, url: urls.discovery_url },
    });
    const disabledKeys = bank.values.filter((entry) => entry.enabled === false).map((entry) => String(entry.key));
    for (const key of disabledKeys) expect(environmentValue(environment, key)).toBeUndefined();
    expect(environmentValue(environment, '_clientId')).toBe(clientId);
    expect(environmentValue(environment, 'tokenEndpoint')).toBe(addresses.token_endpoint);
    expect(environmentValue(environment, 'max_pages')).toBe('200');
    const types = Object.fromEntries(environment.values.map((entry) => [entry.key, entry.type]));
    expect(types).toMatchObject({
      basicToken: 'secret',
      _clientSecret: 'secret',
      access_token: 'secret',
      auth_code: 'secret',
      rs: 'default',
    });
    const path = await writeEnvironment(await tempDir('obflow-env-'), 'sandbox-permissive-headless', environment);
    expect(path).toMatch(/environments\/sandbox-permissive-headless\.postman_environment\.json$/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("refusals → ERR_ENVIRONMENT_DOWNLOAD: unknown client, another TPP's certificate", async () => {
    expect(
      (await failure(downloadEnvironment({ helperUrl: sandbox.urls.environment_helper, clientId: 'no-such-client', dispatcher }))).code,
    ).toBe('ERR_ENVIRONMENT_DOWNLOAD');
    const registered = await registerClient(await input());
    if (registered.kind === 'dry-run') throw new TypeError('unexpected dry run');
    const other = await agentFor(second);
    expect(
      (
        await failure(
          downloadEnvironment({
            helperUrl: sandbox.urls.environment_helper,
            clientId: registered.registration.client_id,
            dispatcher: other,
          }),
        )
      ).code,
    ).toBe('ERR_ENVIRONMENT_DOWNLOAD');
  });
});
