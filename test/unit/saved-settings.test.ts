// Every setting that shapes the stored registration or the saved environment is compared with what the config asks
// now (src/pipeline/saved-settings.ts): one scenario per row, each a changed setting that must be refused naming the
// setting and both values, and the changes that must not be (auto, a flag of `run`, a harmless difference).

import { generateKeyPairSync, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { ObflowConfig } from '../../src/config/schema.js';
import { FAPI_PROFILES } from '../../src/fapi-profile.js';
import type { Overrides } from '../../src/config/overrides.js';
import { subjectDnOf, type StoredRegistration } from '../../src/registration/index.js';
import {
  checkRegistrationSettings,
  checkSavedSettings,
  COMPARED_SETTINGS,
  type SettingsSession,
} from '../../src/pipeline/saved-settings.js';
import { errorOf } from '../helpers/errors.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';

/** A saved environment's value left out of the file. */
const ABSENT = '\0absent';
const REDIRECT = 'https://tpp.obflow.example/callback';

let identity: TestIdentity;
beforeAll(async () => {
  identity = await getTestIdentity();
});

interface Scenario {
  config?: (config: ObflowConfig) => ObflowConfig;
  overrides?: Overrides;
  registration?: Partial<StoredRegistration>;
  metadata?: Record<string, unknown>;
  environment?: Record<string, string>;
  target?: { tokenUrl?: string; consent?: 'headless' | 'browser' | 'manual' };
  redirectUris?: string[];
}

const withFlow = (flow: Partial<ObflowConfig['flow']>) => (config: ObflowConfig) => ({ ...config, flow: { ...config.flow, ...flow } });
const withBank = (bank: Record<string, unknown>) => (config: ObflowConfig) =>
  ({ ...config, bank: { ...config.bank, ...bank } }) as ObflowConfig;

function parts(scenario: Scenario): {
  session: SettingsSession;
  registration: StoredRegistration;
  environment: { values: { key: string; value: string; type: 'default'; enabled: true }[] };
} {
  const base = parseConfig({}, 'test');
  const config = scenario.config?.(base) ?? base;
  const session = {
    config,
    overrides: scenario.overrides ?? {},
    target: {
      name: 'sandbox',
      profile: 'strict-headless',
      consent: scenario.target?.consent ?? 'headless',
      ...(scenario.target?.tokenUrl ? { tokenUrl: scenario.target.tokenUrl } : {}),
    },
    identity: { ...identity.paths, redirectUris: scenario.redirectUris ?? [REDIRECT] },
    transport: { certPem: identity.pem.transportCert },
    statement: { jwt: '', claims: { software_redirect_uris: [REDIRECT] } },
  } as unknown as SettingsSession;
  const registration = {
    version: 1,
    software_id: 'software',
    target: 'sandbox',
    profile: 'strict-headless',
    auth_url: 'https://127.0.0.1:9443/strict-headless',
    registration_endpoint: 'https://127.0.0.1:8443/dynamic-client-registration/v3.2/register',
    registered_at: '2026-01-01T00:00:00.000Z',
    client_id: 'client-1',
    client_secret: 'secret',
    token_endpoint_auth_method: 'client_secret_basic',
    request_object_signing_alg: 'none',
    ...scenario.registration,
    metadata: {
      client_id: 'client-1',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'client_credentials'],
      ...scenario.metadata,
    },
  } as StoredRegistration;
  const signingJwk = JSON.stringify(createPrivateKey(readFileSync(identity.paths.signing.key)).export({ format: 'jwk' }));
  const values: Record<string, string> = {
    response_type: 'code id_token',
    consent_mode: 'headless',
    psu_login_hint: '',
    max_pages: String(base.flow.maxPages),
    tokenEndpoint: 'https://127.0.0.1:9443/strict-headless/token',
    signing_kid: identity.paths.signing.kid,
    signing_key: signingJwk,
    ...scenario.environment,
  };
  for (const [key, value] of Object.entries(values)) if (value === ABSENT) delete values[key];
  return {
    session,
    registration,
    environment: { values: Object.entries(values).map(([key, value]) => ({ key, value, type: 'default', enabled: true })) },
  };
}

const refusal = async (scenario: Scenario): Promise<string | undefined> => {
  const { session, registration, environment } = parts(scenario);
  const error = await errorOf(() => checkSavedSettings(session, registration, environment));
  if (error === undefined) return undefined;
  expect(error.code).toBe('ERR_ENVIRONMENT_STALE');
  return error.message;
};

const tls: Scenario = {
  config: withBank({ token_endpoint_auth_method: 'tls_client_auth' }),
  registration: { token_endpoint_auth_method: 'tls_client_auth' },
};

const otherKey = () => JSON.stringify(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }));

describe('checkSavedSettings: a setting changed since `register` or `environment`', () => {
  it('accepts state made with what the config asks', async () => {
    expect(await refusal({})).toBeUndefined();
  });

  it.each<[string, () => Scenario, RegExp]>([
    [
      'the token endpoint auth method',
      () => ({ config: withBank({ token_endpoint_auth_method: 'tls_client_auth' }) }),
      /^bank\.token_endpoint_auth_method is tls_client_auth, but the stored registration \(client client-1\) was made with client_secret_basic; nothing was sent$/,
    ],
    [
      'the request object signing alg',
      () => ({ config: withFlow({ request_object_signing_alg: 'PS256' }) }),
      /^flow\.request_object_signing_alg is PS256, but the stored registration \(client client-1\) was made with none;/,
    ],
    [
      'the FAPI profile',
      () => ({
        config: (config: ObflowConfig) =>
          withBank({ token_endpoint_auth_method: 'client_secret_basic' })(withFlow({ fapi: FAPI_PROFILES['2.0'] })(config)),
      }),
      /^flow\.fapi is 2\.0, but the stored registration \(client client-1\) was made with 1-advanced;/,
    ],
    [
      "tls_client_auth's subject DN (the transport certificate's, by default)",
      () => ({ ...tls, metadata: { tls_client_auth_subject_dn: 'CN=another,O=TPP' } }),
      /^bank\.tls_client_auth_subject_dn is CN=.*, but the stored registration \(client client-1\) was made with CN=another,O=TPP;/,
    ],
    [
      'a redirect URI not registered',
      () => ({ redirectUris: ['https://tpp.obflow.example/other'] }),
      /^identity\.redirectUris is https:\/\/tpp\.obflow\.example\/other, but the stored registration \(client client-1\) was made with https:\/\/tpp\.obflow\.example\/callback;/,
    ],
    [
      'the refresh_token grant asked for, not registered',
      () => ({ config: (config) => ({ ...config, registration: { refresh_token_grant: true } }) }),
      /^registration\.refresh_token_grant is true, but the stored registration \(client client-1\) was made with false;/,
    ],
    [
      'the response type',
      () => ({ config: withFlow({ responseType: 'code' }) }),
      /^flow\.responseType is code, but the saved environment was made with code id_token;/,
    ],
    [
      'the consent mode',
      () => ({ target: { consent: 'manual' } }),
      /^flow\.consent is interactive, but the saved environment was made with headless;/,
    ],
    ['the PSU', () => ({ config: withFlow({ psuUser: 'jo' }) }), /^flow\.psuUser is jo, but the saved environment was made with \(none\);/],
    [
      'the paging guard',
      () => ({ config: withFlow({ maxPages: 7 }) }),
      /^flow\.maxPages is 7, but the saved environment was made with 200;/,
    ],
    [
      'bank.token_url',
      () => ({ target: { tokenUrl: 'https://mtls.bank.example/token' } }),
      /^bank\.token_url is https:\/\/mtls\.bank\.example\/token, but the saved environment was made with https:\/\/127\.0\.0\.1:9443\/strict-headless\/token;/,
    ],
    [
      'the signing kid',
      () => ({ environment: { signing_kid: 'an-old-kid' } }),
      /^identity\.signing\.kid is .+, but the saved environment was made with an-old-kid;/,
    ],
    [
      'the signing key',
      () => ({ environment: { signing_key: otherKey() } }),
      /^identity\.signing\.key is the key with SPKI SHA-256 [0-9a-f]{16}…, but the saved environment was made with the key with SPKI SHA-256 [0-9a-f]{16}…;/,
    ],
    [
      'a signing key that cannot be read',
      () => ({ environment: { signing_key: '{"kty":"RSA"}' } }),
      /^identity\.signing\.key is the key with .+, but the saved environment was made with a key that cannot be read;/,
    ],
    [
      'a family of flow.apis whose scope the stored registration lacks',
      () => ({ config: withFlow({ apis: ['accounts', 'payments'] }), metadata: { scope: 'openid accounts' } }),
      /^flow\.apis is accounts, payments \(scope openid accounts payments\), but the stored registration \(client client-1\) was made with scope openid accounts;/,
    ],
  ])('refuses %s, naming the setting and both values', async (_name, scenario, message) => {
    expect(await refusal(scenario())).toMatch(message);
  });

  it.each<[string, () => Scenario]>([
    ['auth method auto (the bank chose at registration)', () => ({ config: withBank({ token_endpoint_auth_method: 'auto' }) })],
    [
      'a FAPI profile a client registered elsewhere does not record',
      () => ({
        config: (config: ObflowConfig) =>
          withBank({ token_endpoint_auth_method: 'client_secret_basic' })(withFlow({ fapi: FAPI_PROFILES['2.0'] })(config)),
        metadata: { external: true },
      }),
    ],
    [
      "tls_client_auth's DN as the config names it",
      () => ({
        config: withBank({ token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_subject_dn: 'CN=another,O=TPP' }),
        registration: tls.registration,
        metadata: { tls_client_auth_subject_dn: 'CN=another,O=TPP' },
      }),
    ],
    [
      'the refresh_token grant registered, no longer asked for',
      () => ({ metadata: { grant_types: ['authorization_code', 'client_credentials', 'refresh_token'] } }),
    ],
    [
      'a flow input a flag of `run` gives for this run',
      () => ({ config: withFlow({ responseType: 'code' }), overrides: { flow: { responseType: 'code' } } }),
    ],
    ['a saved environment without the flow inputs', () => ({ config: withFlow({ maxPages: 7 }), environment: { max_pages: ABSENT } })],
    [
      'a registration whose scope covers more families than flow.apis',
      () => ({ config: withFlow({ apis: ['payments'] }), metadata: { scope: 'openid accounts payments fundsconfirmations' } }),
    ],
  ])('accepts %s', async (_name, scenario) => {
    expect(await refusal(scenario())).toBeUndefined();
  });

  it("the transport certificate's subject is the DN tls_client_auth compares with when the config names none", async () => {
    const dn = subjectDnOf(identity.pem.transportCert);
    expect(await refusal({ ...tls, metadata: { tls_client_auth_subject_dn: dn } })).toBeUndefined();
  });

  it('a client registered elsewhere is re-stored with --client-id, not registered again; one registered by obflow with --force', async () => {
    const mine = parts({ config: withBank({ token_endpoint_auth_method: 'private_key_jwt' }) });
    const hint = (await errorOf(() => checkRegistrationSettings(mine.session, mine.registration)))?.hint;
    expect(hint).toBe(
      'Register again for it (`obflow register --force`), then run `obflow environment`; or set bank.token_endpoint_auth_method back to client_secret_basic.',
    );
    const theirs = parts({ config: withBank({ token_endpoint_auth_method: 'private_key_jwt' }), metadata: { external: true } });
    expect((await errorOf(() => checkRegistrationSettings(theirs.session, theirs.registration)))?.hint).toMatch(
      /^The client was registered elsewhere \(`obflow register --client-id`\) with client_secret_basic: store the client registered with private_key_jwt \(`obflow register --client-id <its id> --force`; in CI the TPP_CLIENT_ID_… secret, docs\/ci\.md\)/,
    );
  });

  it('the environment stage checks the registration only (it rewrites the environment)', async () => {
    const { session, registration } = parts({ config: withFlow({ responseType: 'code' }) });
    expect(await errorOf(() => checkRegistrationSettings(session, registration))).toBeUndefined();
  });

  it('docs/pipeline.md lists every setting compared', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'pipeline.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### What a run compares'));
    for (const setting of [...COMPARED_SETTINGS.registration, ...COMPARED_SETTINGS.environment])
      expect(section).toContain(`\`${setting}\``);
  });
});
