// Today's banks on the TPP side: the registration claims per client authentication method (DCR v3.2),
// the transport certificate's DN in RFC 4514 form, `auto` and a method the bank does not list, and the collection's
// PS256 signer (templates/scripts/lib-pss-sign.js) checked by jose as a bank would check it.

import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';

import { FAPI_PROFILES } from '../../src/fapi-profile.js';

import { buildObflowEnvironment, isSecretKey } from '../../src/environment/index.js';
import { isObflowError } from '../../src/errors.js';
import { workspaceEnvironment } from '../../src/workspace/build.js';
import { AUTO_ORDER, buildRegistrationClaims, chooseAuthMethod, subjectDnOf, type StatementClaims } from '../../src/registration/index.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';

let identity: TestIdentity;
let statementClaims: StatementClaims;
beforeAll(async () => {
  identity = await getTestIdentity();
  statementClaims = decodeJwt(identity.softwareStatement) as unknown as StatementClaims;
});

const base = () => ({
  softwareStatement: identity.softwareStatement,
  statementClaims,
  authUrl: 'https://bank.example/auth',
  now: () => new Date(1_800_000_000_000),
  newJti: () => 'jti-1',
  tokenEndpointAuthMethod: 'client_secret_basic' as const,
  fapi: FAPI_PROFILES['1-advanced'],
});

describe('registration claims per method (DCR v3.2)', () => {
  it('client_secret_basic (default) is §2.1: the signing alg, no DN, request objects none', () => {
    const claims = buildRegistrationClaims(base());
    expect(claims.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(claims.token_endpoint_auth_signing_alg).toBe('PS256');
    expect('tls_client_auth_subject_dn' in claims).toBe(false);
    expect(claims.request_object_signing_alg).toBe('none');
    // §2.1 byte for byte: no certificate-bound tokens claim (obflow asks for it only with the other methods, RFC 8705 §3.4).
    expect('tls_client_certificate_bound_access_tokens' in claims).toBe(false);
  });

  it('private_key_jwt and tls_client_auth ask for certificate-bound tokens (RFC 8705 §3.4)', () => {
    expect(
      buildRegistrationClaims({ ...base(), tokenEndpointAuthMethod: 'private_key_jwt' }).tls_client_certificate_bound_access_tokens,
    ).toBe(true);
    const tls = buildRegistrationClaims({ ...base(), tokenEndpointAuthMethod: 'tls_client_auth', tlsClientAuthSubjectDn: 'CN=x,O=y,C=GB' });
    expect(tls.tls_client_certificate_bound_access_tokens).toBe(true);
  });

  it('private_key_jwt carries token_endpoint_auth_signing_alg PS256 and no tls_client_auth_subject_dn', () => {
    const claims = buildRegistrationClaims({ ...base(), tokenEndpointAuthMethod: 'private_key_jwt' });
    expect(claims).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'PS256' });
    expect('tls_client_auth_subject_dn' in claims).toBe(false);
  });

  it('tls_client_auth carries the DN and no signing alg; request_object_signing_alg follows the setting', () => {
    const claims = buildRegistrationClaims({
      ...base(),
      tokenEndpointAuthMethod: 'tls_client_auth',
      tlsClientAuthSubjectDn: 'CN=x,O=y,C=GB',
      requestObjectSigningAlg: 'PS256',
    });
    expect(claims).toMatchObject({
      token_endpoint_auth_method: 'tls_client_auth',
      tls_client_auth_subject_dn: 'CN=x,O=y,C=GB',
      request_object_signing_alg: 'PS256',
    });
    expect('token_endpoint_auth_signing_alg' in claims).toBe(false);
  });

  it("the transport certificate's DN is RFC 4514, most specific (CN = software_id) first", () => {
    const dn = subjectDnOf(identity.pem.transportCert);
    expect(dn.startsWith(`CN=${identity.manifest.software_id},`)).toBe(true);
    expect(dn.endsWith('C=GB')).toBe(true);
    expect(dn.split(',').reverse().join('\n')).toBe(new X509Certificate(identity.pem.transportCert).subject);
  });
});

describe('chooseAuthMethod (bank.token_endpoint_auth_method against discovery)', () => {
  it('auto takes the first of private_key_jwt, tls_client_auth, client_secret_basic the bank lists', () => {
    expect(AUTO_ORDER).toEqual(['private_key_jwt', 'tls_client_auth', 'client_secret_basic']);
    expect(chooseAuthMethod('auto', ['client_secret_basic', 'tls_client_auth', 'private_key_jwt'])).toBe('private_key_jwt');
    expect(chooseAuthMethod('auto', ['client_secret_basic', 'tls_client_auth'])).toBe('tls_client_auth');
    expect(chooseAuthMethod('auto', undefined)).toBe('client_secret_basic');
  });

  it('an explicit method the bank does not list is ERR_AUTH_METHOD_UNSUPPORTED naming both; unlisted is not checked', () => {
    let error: unknown;
    try {
      chooseAuthMethod('client_secret_basic', ['private_key_jwt', 'tls_client_auth']);
    } catch (caught) {
      error = caught;
    }
    expect(isObflowError(error) && error.code).toBe('ERR_AUTH_METHOD_UNSUPPORTED');
    expect((error as Error).message).toContain('client_secret_basic');
    expect((error as Error).message).toContain('[private_key_jwt, tls_client_auth]');
    expect(chooseAuthMethod('tls_client_auth', undefined)).toBe('tls_client_auth');
    expect(() => chooseAuthMethod('auto', ['client_secret_post'])).toThrow(/auto/);
  });
});

// crypto-js, the subset lib-pss.js uses (as test/helpers/script-double.ts stubs it): SHA256 of text or bytes → hex.
class WordArray {
  constructor(readonly bytes: Buffer) {}
  toString(encoding: { name: string }): string {
    return this.bytes.toString(encoding.name === 'hex' ? 'hex' : 'base64');
  }
}
const CryptoJS = {
  SHA256: (data: string | WordArray) =>
    new WordArray(
      createHash('sha256')
        .update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data.bytes)
        .digest(),
    ),
  enc: { Hex: { name: 'hex', parse: (hex: string) => new WordArray(Buffer.from(hex, 'hex')) }, Base64: { name: 'base64' } },
};

/** The two sandbox libraries as one script, run in a context with the modules newman's sandbox offers. */
function loadSigner(): { signJwt(payload: object, jwk: string, kid: string): string } {
  const dir = join(import.meta.dirname, '..', '..', 'templates', 'scripts');
  const source = ['lib-pss.js', 'lib-pss-sign.js'].map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
  const modules: Record<string, unknown> = {
    'crypto-js': CryptoJS,
    atob: (text: string) => Buffer.from(text, 'base64').toString('binary'),
    btoa: (text: string) => Buffer.from(text, 'binary').toString('base64'),
    uuid: { v4: () => crypto.randomUUID() },
  };
  const context: Record<string, unknown> = { require: (name: string) => modules[name], BigInt };
  runInNewContext(`${source}\nthis.signer = obflowPssSign;`, context);
  return context.signer as { signJwt(payload: object, jwk: string, kid: string): string };
}

describe('lib-pss-sign.js: PS256 in the Postman sandbox (RFC 7518 §3.5)', () => {
  it('signs what jose verifies with the public key, header {alg PS256, kid, typ JWT}; a fresh salt each time', async () => {
    const signer = loadSigner();
    const jwk = JSON.stringify(createPrivateKey(identity.pem.signingKey).export({ format: 'jwk' }));
    const payload = { iss: 'client', sub: 'client', aud: 'https://bank.example/token', jti: 'é-ü', iat: 1, exp: 2 };
    const jws = signer.signJwt(payload, jwk, identity.manifest.kid);
    const { payload: verified } = await jwtVerify(jws, createPublicKey(identity.pem.signingKey), {
      algorithms: ['PS256'],
      currentDate: new Date(1000),
    });
    expect(verified).toEqual(payload);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'PS256', kid: identity.manifest.kid, typ: 'JWT' });
    expect(signer.signJwt(payload, jwk, identity.manifest.kid)).not.toBe(jws);
  });

  it('a public key alone cannot sign: the error names what is missing', () => {
    const jwk = JSON.stringify(createPublicKey(identity.pem.signingKey).export({ format: 'jwk' }));
    expect(() => loadSigner().signJwt({}, jwk, 'kid')).toThrow(/has no d/);
  });
});

describe('the signing key and the assertions are secrets everywhere', () => {
  it('typed secret in the environment by the contract, and by name in a file that forgot to say so', () => {
    const environment = buildObflowEnvironment({
      name: 't',
      bank: { values: [{ key: 'private_key', value: 'x'.repeat(20), type: 'default', enabled: true }] },
      overrides: { signing_key: '{"d":"secret-d-value"}', client_assertion: 'a.b.c' },
    });
    for (const key of ['signing_key', 'client_assertion', 'private_key'])
      expect(environment.values.find((entry) => entry.key === key)?.type, key).toBe('secret');
    expect(isSecretKey('signing_key') && isSecretKey('bank_private_key') && isSecretKey('client_assertion')).toBe(true);
    // The workspace leaves them empty unless --include-secrets.
    const plain = workspaceEnvironment(environment, false);
    expect(plain.values.find((entry) => entry.key === 'signing_key')?.value).toBe('');
    expect(JSON.stringify(plain)).not.toContain('secret-d-value');
    expect(workspaceEnvironment(environment, true).values.find((entry) => entry.key === 'signing_key')?.value).toContain('secret-d-value');
  });
});
