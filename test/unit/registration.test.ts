// Registration request: the exact §2.1 claim set and types, the PS256 header, and every local refusal before sending.

import { X509Certificate, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { decodeJwt, importJWK, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';

import { API_FAMILIES } from '../../src/api-families.js';
import { FAPI_PROFILES } from '../../src/fapi-profile.js';

import { ObflowError, isObflowError } from '../../src/errors.js';
import { transportError } from '../../src/bank/http.js';
import {
  buildRegistrationClaims,
  buildSignedRegistration,
  checkRegistrationLocally,
  readStoredRegistration,
  registerClient,
  scopeForFamilies,
  writeStoredRegistration,
  type RegistrationClaims,
  type StatementClaims,
} from '../../src/registration/index.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { tempDir } from '../helpers/temp.js';
import { codeOf } from '../helpers/errors.js';

// The clock sits two days into the issued transport certificate's validity (issued with the real clock).
let NOW = new Date(0);
const now = (): Date => NOW;
const jti = (): string => '6f1c9b1e-2f1f-4c55-9d7e-0c6b3f1e9a10';
const AUTH_URL = 'https://127.0.0.1:4443/strict-headless';

let identity: TestIdentity;
let signingKey: KeyObject;
let statementClaims: StatementClaims;

beforeAll(async () => {
  identity = await getTestIdentity();
  NOW = new Date(Math.floor((Date.parse(new X509Certificate(identity.pem.transportCert).validFrom) + 2 * 86_400_000) / 1000) * 1000);
  signingKey = createPrivateKey(identity.pem.signingKey);
  statementClaims = decodeJwt(identity.softwareStatement) as unknown as StatementClaims;
});

function claims(overrides: Partial<Parameters<typeof buildRegistrationClaims>[0]> = {}): RegistrationClaims {
  return buildRegistrationClaims({
    softwareStatement: identity.softwareStatement,
    statementClaims,
    authUrl: AUTH_URL,
    now,
    newJti: jti,
    tokenEndpointAuthMethod: 'client_secret_basic',
    fapi: FAPI_PROFILES['1-advanced'],
    ...overrides,
  });
}

/** The §2.1 table, claim by claim: name → type as the table gives it. */
const TABLE: Record<string, 'string' | 'string[]' | 'integer'> = {
  token_endpoint_auth_signing_alg: 'string',
  grant_types: 'string[]',
  subject_type: 'string',
  application_type: 'string',
  iss: 'string',
  redirect_uris: 'string[]',
  token_endpoint_auth_method: 'string',
  aud: 'string',
  scope: 'string',
  request_object_signing_alg: 'string',
  exp: 'integer',
  iat: 'integer',
  jti: 'string',
  response_types: 'string[]',
  id_token_signed_response_alg: 'string',
  software_statement: 'string',
};

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string') ? 'string[]' : 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

describe('buildRegistrationClaims (docs/bank-interface.md §2.1)', () => {
  it('has exactly the claims of the table, typed as the table says, with the table values', () => {
    const built = claims();
    expect(Object.keys(built).sort()).toEqual(Object.keys(TABLE).sort());
    for (const [name, type] of Object.entries(TABLE)) expect([name, typeOf(built[name as keyof RegistrationClaims])]).toEqual([name, type]);
    expect(built).toEqual({
      token_endpoint_auth_signing_alg: 'PS256',
      grant_types: ['authorization_code', 'client_credentials'],
      subject_type: 'public',
      application_type: 'web',
      iss: statementClaims.software_id,
      redirect_uris: statementClaims.software_redirect_uris,
      token_endpoint_auth_method: 'client_secret_basic',
      aud: AUTH_URL,
      scope: 'openid accounts',
      request_object_signing_alg: 'none',
      exp: NOW.getTime() / 1000 + 3600,
      iat: NOW.getTime() / 1000,
      jti: '6f1c9b1e-2f1f-4c55-9d7e-0c6b3f1e9a10',
      response_types: ['code', 'code id_token'],
      id_token_signed_response_alg: 'PS256',
      software_statement: identity.softwareStatement,
    });
    expect(statementClaims.software_redirect_uris?.length).toBeGreaterThan(1);
  });

  it('asks for refresh_token only when told (the bank offers it), and takes another aud form when given', () => {
    expect(claims({ refreshToken: true }).grant_types).toEqual(['authorization_code', 'client_credentials', 'refresh_token']);
    expect(claims({ refreshToken: false }).grant_types).toEqual(['authorization_code', 'client_credentials']);
    expect(claims({ audience: '0015800001041RHAAY' }).aud).toBe('0015800001041RHAAY');
    expect(claims().aud).toBe(AUTH_URL);
  });

  it('derives scope from the families the client calls (flow.apis), in the table order, and honours the lifetime', () => {
    const { accounts, payments, funds } = API_FAMILIES;
    expect(scopeForFamilies([accounts])).toBe('openid accounts');
    expect(scopeForFamilies([payments])).toBe('openid payments');
    expect(scopeForFamilies([accounts, payments, funds])).toBe('openid accounts payments fundsconfirmations');
    // The default is §2.1's request byte for byte, whatever roles the statement has beyond AISP.
    expect(claims().scope).toBe('openid accounts');
    expect(claims({ families: [accounts, payments, funds] }).scope).toBe('openid accounts payments fundsconfirmations');
    // A family the client calls twice (a future VRP row shares payments' scope) asks the scope once.
    expect(scopeForFamilies([payments, { name: 'payments', role: 'PISP' }])).toBe('openid payments');
    const short = claims({ lifetimeSeconds: 300 });
    expect(short.exp - short.iat).toBe(300);
    expect(() => claims({ lifetimeSeconds: 0 })).toThrow(TypeError);
  });

  it('signs PS256 with header {alg, kid, typ}, verifiable with the statement key', async () => {
    const signed = await buildSignedRegistration(claims(), signingKey, identity.manifest.kid);
    expect(signed.header).toEqual({ alg: 'PS256', kid: identity.manifest.kid, typ: 'JWT' });
    const jwk = identity.signingJwks.keys.find((key) => key.kid === identity.manifest.kid);
    expect(jwk).toBeDefined();
    const { payload } = await jwtVerify(signed.jwt, await importJWK({ ...jwk, alg: 'PS256' }, 'PS256'), {
      audience: AUTH_URL,
      issuer: statementClaims.software_id,
      currentDate: NOW,
    });
    expect(payload).toEqual(signed.claims);
    expect(signed.claims).toEqual(claims());
  });
});

describe('checkRegistrationLocally', () => {
  const base = () => ({
    claims: claims(),
    kid: identity.manifest.kid,
    statementClaims,
    signingKey,
    statementJwks: identity.signingJwks,
    transportCertificatePem: identity.pem.transportCert,
    now,
  });

  it('passes the issued identity', () => {
    expect(codeOf(() => checkRegistrationLocally(base()))).toBeUndefined();
  });
  it('refuses iss ≠ software_id', () => {
    expect(codeOf(() => checkRegistrationLocally({ ...base(), claims: { ...claims(), iss: 'someone-else' } }))).toBe(
      'ERR_REGISTRATION_INVALID',
    );
  });
  it('refuses a redirect URI that is not in the statement, and none at all', () => {
    expect(codeOf(() => checkRegistrationLocally({ ...base(), claims: claims({ redirectUris: ['https://evil.example/cb'] }) }))).toBe(
      'ERR_REDIRECT_URI_NOT_IN_SSA',
    );
    expect(codeOf(() => checkRegistrationLocally({ ...base(), claims: claims({ redirectUris: [] }) }))).toBe('ERR_REDIRECT_URI_MISSING');
  });
  it('refuses a kid that is not in the JWKS, and a key that is not the kid', () => {
    expect(codeOf(() => checkRegistrationLocally({ ...base(), kid: 'not-a-kid' }))).toBe('ERR_SIGNING_KEY_MISMATCH');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(codeOf(() => checkRegistrationLocally({ ...base(), signingKey: other }))).toBe('ERR_SIGNING_KEY_MISMATCH');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(codeOf(() => checkRegistrationLocally({ ...base(), signingKey: ec }))).toBe('ERR_KEY_INVALID');
  });
  it('uses the JWKS embedded in the statement when none is given', () => {
    const { statementJwks: _omit, ...rest } = base();
    expect(statementClaims.software_jwks).toBeDefined();
    expect(codeOf(() => checkRegistrationLocally({ ...rest, kid: 'not-a-kid' }))).toBe('ERR_SIGNING_KEY_MISMATCH');
  });
  it('refuses an expired statement and an expired or not-yet-valid certificate', () => {
    const expired = { ...statementClaims, exp: Math.floor(NOW.getTime() / 1000) - 1 };
    expect(codeOf(() => checkRegistrationLocally({ ...base(), statementClaims: expired }))).toBe('ERR_SSA_EXPIRED');
    expect(
      codeOf(() =>
        checkRegistrationLocally({
          ...base(),
          now: () => new Date('2099-01-01T00:00:00Z'),
          claims: claims({ now: () => new Date('2099-01-01T00:00:00Z') }),
        }),
      ),
    ).toBe('ERR_CERT_EXPIRED');
    expect(
      codeOf(() =>
        checkRegistrationLocally({
          ...base(),
          now: () => new Date('2000-01-01T00:00:00Z'),
          claims: claims({ now: () => new Date('2000-01-01T00:00:00Z') }),
        }),
      ),
    ).toBe('ERR_CERT_NOT_YET_VALID');
  });
  it('refuses a transport certificate issued for another statement', async () => {
    const other = await getTestIdentity('second-tpp');
    expect(codeOf(() => checkRegistrationLocally({ ...base(), transportCertificatePem: other.pem.transportCert }))).toBe(
      'ERR_CERT_NOT_FOR_SSA',
    );
  });
  it('refuses roles without AISP or PISP', () => {
    expect(codeOf(() => checkRegistrationLocally({ ...base(), statementClaims: { ...statementClaims, software_roles: ['CBPII'] } }))).toBe(
      'ERR_REGISTRATION_INVALID',
    );
  });
  it('refuses a family of flow.apis whose role the statement lacks, naming the role and the fix for the identity', () => {
    const aispOnly = { ...statementClaims, software_roles: ['AISP'] };
    const families = [API_FAMILIES.accounts, API_FAMILIES.payments];
    const refused = (localIdentity: boolean) => {
      try {
        checkRegistrationLocally({ ...base(), statementClaims: aispOnly, families, localIdentity });
      } catch (error) {
        return error as ObflowError;
      }
      throw new Error('not refused');
    };
    const local = refused(true);
    expect(local.code).toBe('ERR_REGISTRATION_INVALID');
    expect(local.message).toContain('needs the PISP role');
    expect(local.hint).toContain('obflow init --force');
    expect(refused(false).hint).toContain('with the PISP role in the directory');
    // Allowed when the statement has every role the families need.
    expect(() =>
      checkRegistrationLocally({ ...base(), statementClaims: { ...statementClaims, software_roles: ['AISP', 'PISP'] }, families }),
    ).not.toThrow();
  });
});

describe('registration store', () => {
  it('writes 0600, reads back by key, and dry-run never touches it', async () => {
    const stateDir = await tempDir('obflow-reg-');
    const record = {
      version: 1 as const,
      software_id: statementClaims.software_id,
      target: 'sandbox',
      profile: 'strict-headless',
      auth_url: AUTH_URL,
      registration_endpoint: 'https://127.0.0.1:1/dynamic-client-registration/v3.2/register',
      registered_at: NOW.toISOString(),
      client_id: 'client-1',
      client_secret: 's3cret',
      metadata: { client_id: 'client-1', client_secret: 's3cret' },
    };
    const path = await writeStoredRegistration(stateDir, record);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const key = { softwareId: statementClaims.software_id, target: 'sandbox', profile: 'strict-headless' };
    expect(await readStoredRegistration(stateDir, key)).toEqual(record);
    expect(await readStoredRegistration(stateDir, { ...key, profile: 'permissive-headless' })).toBeUndefined();

    const common = {
      stateDir,
      target: 'sandbox',
      profile: 'strict-headless',
      authUrl: AUTH_URL,
      registrationEndpoint: record.registration_endpoint,
      softwareStatement: identity.softwareStatement,
      statementClaims,
      signingKey,
      kid: identity.manifest.kid,
      now,
      newJti: jti,
      tokenEndpointAuthMethod: 'client_secret_basic' as const,
      fapi: FAPI_PROFILES['1-advanced'],
    };
    // Stored and not forced → reused without any network (no dispatcher given).
    const reused = await registerClient(common);
    expect(reused.kind).toBe('reused');
    const dry = await registerClient({ ...common, dryRun: true });
    expect(dry.kind).toBe('dry-run');
    // A client registered under FAPI 2.0 (response_types ["code"]) is not reused for a FAPI 1 Advanced flow: the
    // bank is asked again (here: no dispatcher, so the attempt to register is what shows).
    await writeStoredRegistration(stateDir, { ...record, fapi: '2.0' });
    await expect(registerClient(common)).rejects.toThrow(/needs a dispatcher/);
  });
});

describe('transportError', () => {
  const url = 'https://bank.example:8443/dynamic-client-registration/v3.2/register';
  const wrapped = (code: string, message = 'boom'): Error =>
    Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(message), { code }) });
  it('maps TLS failures (by code or message) to ERR_REMOTE_TLS and the rest to ERR_REMOTE_UNREACHABLE', () => {
    const codeOf = (error: unknown): unknown => (isObflowError(error) ? error.code : error);
    expect(codeOf(transportError(wrapped('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), url, 'registration'))).toBe('ERR_REMOTE_TLS');
    expect(codeOf(transportError(wrapped('ERR_TLS_CERT_ALTNAME_INVALID'), url, 'registration'))).toBe('ERR_REMOTE_TLS');
    expect(codeOf(transportError(wrapped('ECONNRESET', 'tlsv13 alert certificate required'), url, 'registration'))).toBe('ERR_REMOTE_TLS');
    expect(codeOf(transportError(wrapped('ECONNREFUSED', 'connect ECONNREFUSED'), url, 'registration'))).toBe('ERR_REMOTE_UNREACHABLE');
    expect(codeOf(transportError(wrapped('ENOTFOUND', 'getaddrinfo ENOTFOUND'), url, 'registration'))).toBe('ERR_REMOTE_UNREACHABLE');
    const already = new ObflowError('ERR_USAGE', 'x', { hint: 'y' });
    expect(transportError(already, url, 'registration')).toBe(already);
  });
});
