// The tests' shared secret scan (test/helpers/secrets.ts): what it counts as a secret, so a scan that passes means
// something. Each case fails when its part of the scan is removed.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/generate/variables.js';
import { ISSUED_VARIABLES, issuedSecrets, jwkPrivateMembers, keyMaterial, leakedSecrets, secretValues } from '../helpers/secrets.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = privateKey.export({ format: 'jwk' });
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('the secret scan', () => {
  it("finds a JWK's private members one by one in a file that holds only one of them", () => {
    const members = jwkPrivateMembers(secretValues([{ value: JSON.stringify(jwk), type: 'secret' }]));
    expect(members).toEqual([jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi]);
    const found = leakedSecrets(new Map([['report.html', `<td>${jwk.d}</td>`]]), members);
    expect(found).toEqual([`report.html holds a secret (${String(jwk.d).slice(0, 6)}…)`]);
  });

  it('gives nothing for values that are not a JWK, and never the public members', () => {
    expect(jwkPrivateMembers(['', 'token', '{"kty":"RSA","n":"abc","e":"AQAB"}', '[1]'])).toEqual([]);
  });

  it('counts a PEM key quoted in part, line by line, and as its JWK members', () => {
    const { lines, members } = keyMaterial([pem]);
    expect(members).toEqual([jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi]);
    expect(lines.length).toBeGreaterThan(10);
    expect(leakedSecrets(new Map([['log.txt', `x ${lines[3]} y`]]), lines)).toHaveLength(1);
  });

  it('takes only the environment values typed secret', () => {
    expect(
      secretValues([
        { value: 'a', type: 'secret' },
        { value: 'b', type: 'default' },
        { value: '', type: 'secret' },
      ]),
    ).toEqual(['a']);
  });

  // The leak tests' list comes from what was issued, so unmarking a secret cannot shrink it.
  it('collects what was issued whatever the environment marks: a client secret, tokens and a key typed default still count', () => {
    const unmarked = [
      { key: '_clientSecret', value: 'issued-secret', type: 'default' },
      { key: 'basicToken', value: 'YzpzZWNyZXQ=', type: 'default' },
      { key: 'access_token', value: 'at-issued', type: 'default' },
      { key: 'auth_code', value: 'code-issued', type: 'default' },
      { key: 'signing_key', value: JSON.stringify(jwk), type: 'default' },
      { key: 'max_pages', value: '200', type: 'default' },
      { key: 'refresh_token', value: '', type: 'secret' },
    ];
    // The marking sees none of them.
    expect(secretValues(unmarked)).toEqual([]);
    const issued = issuedSecrets({
      registration: { client_id: 'c 1', client_secret: 'registered-secret' },
      environments: [unmarked],
      keyPems: [pem],
    });
    for (const value of [
      'issued-secret',
      'YzpzZWNyZXQ=',
      'at-issued',
      'code-issued',
      JSON.stringify(jwk),
      jwk.d,
      jwk.qi,
      'registered-secret',
    ])
      expect(issued.has(String(value)), String(value)).toBe(true);
    // Basic credentials built from the registration, raw and form-urlencoded (RFC 6749 §2.3.1).
    expect(issued.has(Buffer.from('c 1:registered-secret').toString('base64'))).toBe(true);
    expect(issued.has(Buffer.from('c%201:registered-secret').toString('base64'))).toBe(true);
    // The identity's key, whole and line by line; nothing that is not issued, nothing empty.
    expect(issued.has(pem)).toBe(true);
    expect(keyMaterial([pem]).lines.every((line) => issued.has(line))).toBe(true);
    expect(issued.has('200')).toBe(false);
    expect(issued.has('')).toBe(false);
  });

  it("names only variables of the collections' contract (a renamed variable is noticed here, not silently unscanned)", () => {
    const contract = new Set(ENVIRONMENT_VARIABLES.map((variable) => variable.key));
    expect(ISSUED_VARIABLES.filter((key) => !contract.has(key))).toEqual([]);
  });
});
