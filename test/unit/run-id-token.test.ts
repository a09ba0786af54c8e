// obflow's id_token check (src/run/id-token.ts, verifyIdToken), one fault per rule: each makes exactly that rule fail
// and names it, so no rule can become `true` unnoticed (FAPI 1 Advanced §5.2.2.1, OIDC Core §3.1.3.7, §3.3.2.12).

import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

import { SignJWT, type JSONWebKeySet, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';

import { halfHash, verifyIdToken, type IdTokenExpectations } from '../../src/run/id-token.js';

const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwkOf = (key: KeyObject, kid: string): JWK => ({ ...key.export({ format: 'jwk' }), kid, alg: 'PS256', use: 'sig' });
const JWKS: JSONWebKeySet = { keys: [jwkOf(bank.publicKey, 'k1')] };

const NOW = new Date('2026-11-25T10:00:00Z');
const now = Math.floor(NOW.getTime() / 1000);
const EXPECT: IdTokenExpectations = {
  source: 'authorization',
  issuer: 'https://bank.example/strict-headless',
  clientId: 'client-1',
  nonce: 'nonce-1',
  consentId: 'consent-42',
  code: 'code-1',
  state: 'state-1',
  acrValues: ['urn:openbanking:psd2:sca', 'urn:openbanking:psd2:ca'],
  now: NOW,
};
const CLAIMS: Record<string, unknown> = {
  iss: EXPECT.issuer,
  aud: 'client-1',
  sub: 'consent-42',
  nonce: 'nonce-1',
  openbanking_intent_id: 'consent-42',
  acr: 'urn:openbanking:psd2:sca',
  c_hash: halfHash('code-1'),
  s_hash: halfHash('state-1'),
  iat: now,
  exp: now + 300,
};

async function token(
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = { alg: 'PS256', kid: 'k1' },
  key: KeyObject = bank.privateKey,
): Promise<string> {
  const merged = Object.fromEntries(Object.entries({ ...CLAIMS, ...claims }).filter(([, value]) => value !== undefined));
  return new SignJWT(merged).setProtectedHeader(header as { alg: string }).sign(key);
}
const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

async function failing(jwt: string, jwks: JSONWebKeySet = JWKS, expect: IdTokenExpectations = EXPECT): Promise<string[]> {
  return (await verifyIdToken(jwt, jwks, expect)).filter((check) => !check.passed).map((check) => check.rule);
}

const SIGNATURE = /^id_token signature verifies with the jwks_uri key/;
const rule = (start: string): RegExp => new RegExp(`^id_token ${start}`);

describe('verifyIdToken: a correct token passes every rule', () => {
  it('11 rules for the authorisation response, none failing', async () => {
    const checks = await verifyIdToken(await token(), JWKS, EXPECT);
    expect(checks).toHaveLength(11);
    expect(checks.filter((check) => !check.passed)).toEqual([]);
  });
});

describe('verifyIdToken: one fault, one rule', () => {
  it.each([
    ['iss of another issuer', { iss: 'https://evil.example' }, rule('iss is the discovery issuer')],
    ['aud of another client', { aud: 'client-2' }, rule('aud is the client id')],
    ['aud with the client and another, without azp', { aud: ['client-1', 'client-2'] }, rule('aud is the client id')],
    ['exp in the past (beyond the skew)', { exp: now - 61 }, rule('exp is in the future')],
    ['no exp', { exp: undefined }, rule('exp is in the future')],
    ['iat in the future (beyond the skew)', { iat: now + 61, exp: now + 400 }, rule('iat is not in the future')],
    ['another nonce', { nonce: 'nonce-2' }, rule('nonce')],
    ['c_hash of another code', { c_hash: halfHash('code-2') }, rule('c_hash matches the code')],
    ['s_hash of another state', { s_hash: halfHash('state-2') }, rule('s_hash matches the state')],
    ['an acr not asked for', { acr: 'urn:other' }, rule('acr is one of the essential values')],
    ['another intent id', { openbanking_intent_id: 'consent-7' }, rule('openbanking_intent_id is the consent id')],
  ] as const)('%s fails that rule only', async (_name, claims, expected) => {
    const failed = await failing(await token(claims));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(expected);
  });

  it('the skew is a boundary: exp 60 s ago and iat 60 s ahead still pass', async () => {
    expect(await failing(await token({ exp: now - 59, iat: now + 59 }))).toEqual([]);
  });

  it('signed by another key under the right kid: the signature rule only', async () => {
    expect(await failing(await token({}, { alg: 'PS256', kid: 'k1' }, other.privateKey))).toEqual([expect.stringMatching(SIGNATURE)]);
  });

  it('a kid jwks_uri does not have: the signature rule, naming the kid', async () => {
    const checks = await verifyIdToken(await token({}, { alg: 'PS256', kid: 'k9' }), JWKS, EXPECT);
    const failed = checks.filter((check) => !check.passed);
    expect(failed.map((check) => check.rule)).toEqual([expect.stringMatching(SIGNATURE)]);
    expect(failed[0]?.message).toMatch(/no PS256 key with kid k9/);
  });

  it('a tampered payload under the original signature: the signature rule only', async () => {
    const [header, , signature] = (await token()).split('.');
    const tampered = `${header}.${part({ ...CLAIMS, sub: 'consent-7' })}.${signature}`;
    expect(await failing(tampered)).toEqual([expect.stringMatching(SIGNATURE)]);
  });

  it('alg RS256 (same key) and alg none: the alg rule and the signature rule', async () => {
    const rs256 = await token({}, { alg: 'RS256', kid: 'k1' });
    const none = `${part({ alg: 'none', kid: 'k1' })}.${part(CLAIMS)}.`;
    for (const jwt of [rs256, none]) {
      expect(await failing(jwt)).toEqual([expect.stringMatching(rule('alg is PS256')), expect.stringMatching(SIGNATURE)]);
    }
  });

  it('an RSA key under 2048 bits is refused (RFC 7518 §3.5)', async () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwks = { keys: [jwkOf(small.publicKey, 'k1')] };
    // jose will not sign with it either: RSASSA-PSS by hand (SHA-256, salt 32), as a careless bank would.
    const input = `${part({ alg: 'PS256', kid: 'k1' })}.${part(CLAIMS)}`;
    const signature = sign('sha256', Buffer.from(input), {
      key: small.privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    });
    const checks = await verifyIdToken(`${input}.${signature.toString('base64url')}`, jwks, EXPECT);
    const failed = checks.filter((check) => !check.passed);
    expect(failed.map((check) => check.rule)).toEqual([expect.stringMatching(SIGNATURE)]);
    expect(failed[0]?.message).toMatch(/2048/);
  });
});

describe('a token without kid (OIDC Core §10.1.1: kid may be left out only when the JWK Set has one key)', () => {
  it('verifies with the only key of the set', async () => {
    expect(await failing(await token({}, { alg: 'PS256' }))).toEqual([]);
  });

  it('is refused when the set has more than one key, naming why', async () => {
    const jwks = { keys: [jwkOf(other.publicKey, 'k0'), jwkOf(bank.publicKey, 'k1')] };
    const checks = await verifyIdToken(await token({}, { alg: 'PS256' }), jwks, EXPECT);
    const failed = checks.filter((check) => !check.passed);
    expect(failed.map((check) => check.rule)).toEqual([expect.stringMatching(SIGNATURE)]);
    expect(failed[0]?.message).toMatch(/has no kid, and jwks_uri has 2 keys/);
  });
});
