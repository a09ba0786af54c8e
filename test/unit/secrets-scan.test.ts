// The tests' shared secret scan (test/helpers/secrets.ts): what it counts as a secret, so a scan that passes means
// something. Each case fails when its part of the scan is removed.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jwkPrivateMembers, keyMaterial, leakedSecrets, secretValues } from '../helpers/secrets.js';

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
});
