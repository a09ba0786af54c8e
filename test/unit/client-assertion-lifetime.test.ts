// obflow's own client assertions live 300 s (exp − iat; src/client-auth.ts CLIENT_ASSERTION_LIFETIME_SECONDS, RFC 7523
// §3: a short exp, the assertion is single use) — in obflow's token calls (src/registration/manage.ts) and in the
// collections' pre-request (templates/scripts/client-auth.prerequest.js), under both FAPI profiles. The emulator caps
// assertions at an hour, so only this test holds obflow to its own lifetime. Each signature is verified here with
// Node's crypto, not obflow's signer.

import { constants, generateKeyPairSync, verify } from 'node:crypto';
import { createContext, runInContext } from 'node:vm';

import { expect as chaiExpect } from 'chai';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

import { FAPI_PROFILES, type FapiProfileName } from '../../src/fapi-profile.js';
import { buildCollections, FLOW_FILE_NAME, loadTemplates } from '../../src/generate/index.js';
import { clientCredentialsToken, type StoredRegistration } from '../../src/registration/index.js';
import { SANDBOX_MODULES } from '../helpers/script-double.js';

/** The lifetime obflow documents for its assertions (docs/collections.md: "`exp` 300 s later"). */
const LIFETIME = 300;
const NOW = 1_800_000_000;
const TOKEN = 'https://as.example/token';
const ISSUER = 'https://as.example';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });

/** The assertion's claims once its PS256 signature verifies with the public key (RFC 7518 §3.5, salt = hash length). */
function verifiedClaims(jwt: string): Record<string, unknown> {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: keys.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
    Buffer.from(signature, 'base64url'),
  );
  expect(ok, 'PS256 signature').toBe(true);
  expect(JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))).toMatchObject({ alg: 'PS256' });
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}

const PROFILES: readonly [FapiProfileName, string][] = [
  ['1-advanced', TOKEN],
  ['2.0', ISSUER],
];

describe("obflow's token calls (register --show/--update/--delete): the client assertion lives 300 s", () => {
  let agent: MockAgent | undefined;
  afterEach(async () => {
    await agent?.close();
  });

  it.each(PROFILES)('%s: exp − iat = 300, iat now, aud %s', async (profile, audience) => {
    agent = new MockAgent();
    agent.disableNetConnect();
    let form = new URLSearchParams();
    agent
      .get(ISSUER)
      .intercept({ path: '/token', method: 'POST' })
      .reply(200, (request) => {
        form = new URLSearchParams(String(request.body));
        return { access_token: 'at', token_type: 'Bearer' };
      });
    const registration = {
      version: 1,
      client_id: 'client-1',
      token_endpoint_auth_method: 'private_key_jwt',
      ...(profile === '2.0' ? { fapi: profile } : {}),
    } as StoredRegistration;
    const token = await clientCredentialsToken({
      tokenEndpoint: TOKEN,
      issuer: ISSUER,
      registration,
      signingKey: () => Promise.resolve(keys.privateKey),
      kid: 'k1',
      dispatcher: agent,
      now: () => new Date(NOW * 1000),
    });
    expect(token).toBe('at');
    const claims = verifiedClaims(form.get('client_assertion') ?? '');
    expect(claims).toMatchObject({ iss: 'client-1', sub: 'client-1', aud: audience, iat: NOW });
    expect((claims.exp as number) - (claims.iat as number)).toBe(LIFETIME);
  });
});

describe("the collections' pre-request: the client assertion lives 300 s", () => {
  const templates = loadTemplates();
  /** The client-credentials token request's pre-request script, as the profile's whole-flow collection renders it. */
  function prerequest(profile: FapiProfileName): string {
    const flow = JSON.parse(
      buildCollections({ templates, fapi: FAPI_PROFILES[profile] }).find((file) => file.fileName === FLOW_FILE_NAME)?.json ?? '{}',
    ) as { item: { item?: { name: string; event?: { listen: string; script: { exec: string[] } }[] }[] }[] };
    const item = flow.item.flatMap((folder) => folder.item ?? []).find((candidate) => candidate.name === 'client-credentials: POST token');
    return item?.event?.find((event) => event.listen === 'prerequest')?.script.exec.join('\n') ?? '';
  }

  it.each(PROFILES)('%s: exp − iat = 300, iat now, aud %s', (profile, audience) => {
    const env = new Map<string, string>([
      ['token_endpoint_auth_method', 'private_key_jwt'],
      ['_clientId', 'client-1'],
      ['tokenEndpoint', TOKEN],
      ['issuer', ISSUER],
      ['signing_key', JSON.stringify(keys.privateKey.export({ format: 'jwk' }))],
      ['signing_kid', 'k1'],
    ]);
    const form: { key: string; value: string }[] = [];
    const pm = {
      environment: { get: (key: string) => env.get(key), set: (key: string, value: unknown) => env.set(key, String(value)) },
      request: {
        headers: { remove: () => undefined },
        body: { urlencoded: { add: (pair: { key: string; value: string }) => form.push(pair) } },
      },
      expect: chaiExpect,
    };
    const FixedDate = class extends Date {
      static override now(): number {
        return NOW * 1000;
      }
    };
    runInContext(prerequest(profile), createContext({ pm, console, Date: FixedDate, require: (name: string) => SANDBOX_MODULES[name] }));
    const claims = verifiedClaims(form.find((pair) => pair.key === 'client_assertion')?.value ?? '');
    expect(claims).toMatchObject({ iss: 'client-1', sub: 'client-1', aud: audience, iat: NOW });
    expect((claims.exp as number) - (claims.iat as number)).toBe(LIFETIME);
  });
});
