// The bank's message-signing check and signature (src/sandbox/signing.ts), OB R/W Data API Profile v4.0 "Message
// Signing": every fault of a TPP's detached JWS named as the code set names it, made here with Node's crypto (not the
// emulator's signer), and the bank's own signature verified with Node's crypto too.

import { constants, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

import { importJWK } from 'jose/key/import';
import type { CryptoKey } from 'jose';
import { describe, expect, it } from 'vitest';

import { OB_CRITICAL, OB_IAT, OB_ISS, OB_TAN, signResponse, verifyRequestSignature } from '../../src/sandbox/signing.js';
import type { SignerOfRequest } from '../../src/sandbox/signing.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const ISS = '0015800001ABCDEFGH/softwareid123';
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwkOf = (key: KeyObject, kid: string): Record<string, unknown> => ({
  ...key.export({ format: 'jwk' }),
  kid,
  use: 'sig',
  alg: 'PS256',
});
const KEYS = [jwkOf(pair.publicKey, 'tpp-key'), jwkOf(other.publicKey, 'tpp-old')];
const signer: SignerOfRequest = { keys: KEYS, iss: ISS, now: NOW, iatSkewSeconds: 0 };
const b64 = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** A detached JWS of `body` with the OB header, `header` members replacing or (undefined) removing its own. */
function signed(body: string, header: Record<string, unknown> = {}, key: KeyObject = pair.privateKey): string {
  const protectedHeader: Record<string, unknown> = {
    alg: 'PS256',
    kid: 'tpp-key',
    [OB_IAT]: Math.floor(NOW.getTime() / 1000) - 5,
    [OB_ISS]: ISS,
    [OB_TAN]: 'openbanking.org.uk',
    crit: [...OB_CRITICAL],
  };
  for (const [name, value] of Object.entries(header)) {
    if (value === undefined) delete protectedHeader[name];
    else protectedHeader[name] = value;
  }
  const encoded = b64(JSON.stringify(protectedHeader));
  const signature = sign('sha256', Buffer.from(`${encoded}.${b64(body)}`), {
    key,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: 32,
  });
  return `${encoded}..${b64(signature)}`;
}

const BODY = '{"Data":{"Initiation":{"InstructedAmount":{"Amount":"10.00","Currency":"GBP"}}},"Risk":{}}';

describe('a request signature', () => {
  it('verifies over the body exactly as received, with the kid of the statement (typ JOSE and cty json allowed)', async () => {
    expect(await verifyRequestSignature(signed(BODY), BODY, signer)).toBeUndefined();
    expect(await verifyRequestSignature(signed(BODY, { typ: 'JOSE', cty: 'application/json' }), BODY, signer)).toBeUndefined();
    expect(await verifyRequestSignature(signed(BODY, { kid: 'tpp-old' }, other.privateKey), BODY, signer)).toBeUndefined();
  });

  it.each([
    ['missing', undefined, 'UK.OBIE.Signature.Missing', 'x-jws-signature'],
    ['empty', '', 'UK.OBIE.Signature.Missing', 'x-jws-signature'],
    ['not detached (payload present)', signed(BODY).replace('..', `.${b64(BODY)}.`), 'UK.OBIE.Signature.Malformed', 'x-jws-signature'],
    ['two parts', 'abc.def', 'UK.OBIE.Signature.Malformed', 'x-jws-signature'],
    ['a header that is not JSON', `${b64('nope')}..${b64('sig')}`, 'UK.OBIE.Signature.Malformed', 'x-jws-signature'],
    ['b64 present (removed in v3.1.4)', signed(BODY, { b64: false }), 'UK.OBIE.Signature.InvalidClaim', 'b64'],
    ['another claim (jku)', signed(BODY, { jku: 'https://keys.example' }), 'UK.OBIE.Signature.InvalidClaim', 'jku'],
    ['no kid', signed(BODY, { kid: undefined }), 'UK.OBIE.Signature.MissingClaim', 'kid'],
    ['a kid of no key of the statement', signed(BODY, { kid: 'someone-else' }), 'UK.OBIE.Signature.InvalidClaim', 'kid'],
    ['alg RS256', signed(BODY, { alg: 'RS256' }), 'UK.OBIE.Signature.InvalidClaim', 'alg'],
    ['typ JWT', signed(BODY, { typ: 'JWT' }), 'UK.OBIE.Signature.InvalidClaim', 'typ'],
    ['cty text/plain', signed(BODY, { cty: 'text/plain' }), 'UK.OBIE.Signature.InvalidClaim', 'cty'],
    ['no crit', signed(BODY, { crit: undefined }), 'UK.OBIE.Signature.MissingClaim', 'crit'],
    ['crit lacking tan', signed(BODY, { crit: [OB_IAT, OB_ISS] }), 'UK.OBIE.Signature.InvalidClaim', 'crit'],
    ['crit with one more', signed(BODY, { crit: [...OB_CRITICAL, 'exp'] }), 'UK.OBIE.Signature.InvalidClaim', 'crit'],
    ['crit with one twice', signed(BODY, { crit: [OB_IAT, OB_ISS, OB_ISS] }), 'UK.OBIE.Signature.InvalidClaim', 'crit'],
    ['no iat', signed(BODY, { [OB_IAT]: undefined }), 'UK.OBIE.Signature.MissingClaim', OB_IAT],
    ['iat as a string', signed(BODY, { [OB_IAT]: '1700000000' }), 'UK.OBIE.Signature.InvalidClaim', OB_IAT],
    ['iat in the future', signed(BODY, { [OB_IAT]: Math.floor(NOW.getTime() / 1000) + 5 }), 'UK.OBIE.Signature.InvalidClaim', OB_IAT],
    ['no iss', signed(BODY, { [OB_ISS]: undefined }), 'UK.OBIE.Signature.MissingClaim', OB_ISS],
    ['another iss', signed(BODY, { [OB_ISS]: '0015800001ABCDEFGH/another' }), 'UK.OBIE.Signature.InvalidClaim', OB_ISS],
    ['no tan', signed(BODY, { [OB_TAN]: undefined }), 'UK.OBIE.Signature.MissingClaim', OB_TAN],
    ['another tan', signed(BODY, { [OB_TAN]: 'aspsp.co.uk' }), 'UK.OBIE.Signature.InvalidClaim', OB_TAN],
    ['a changed body', signed(BODY.replace('10.00', '1000.00')), 'UK.OBIE.Signature.Invalid', 'x-jws-signature'],
    ['another key under the kid', signed(BODY, {}, other.privateKey), 'UK.OBIE.Signature.Invalid', 'x-jws-signature'],
  ])('%s: %s', async (_case, signature, code, path) => {
    const fault = await verifyRequestSignature(signature, BODY, signer);
    expect(fault).toMatchObject({ code, path });
  });

  it('takes an iat ahead of its clock only within the skew it is given (tolerance signature-iat-skew)', async () => {
    const ahead = signed(BODY, { [OB_IAT]: Math.floor(NOW.getTime() / 1000) + 30 });
    expect(await verifyRequestSignature(ahead, BODY, { ...signer, iatSkewSeconds: 60 })).toBeUndefined();
    expect((await verifyRequestSignature(ahead, BODY, { ...signer, iatSkewSeconds: 0 }))?.code).toBe('UK.OBIE.Signature.InvalidClaim');
    const far = signed(BODY, { [OB_IAT]: Math.floor(NOW.getTime() / 1000) + 61 });
    expect((await verifyRequestSignature(far, BODY, { ...signer, iatSkewSeconds: 60 }))?.code).toBe('UK.OBIE.Signature.InvalidClaim');
  });
});

describe("the bank's signature of an answer", () => {
  it('is a detached PS256 JWS of the exact bytes, with kid, the OB claims and crit, and no b64; Node verifies it', async () => {
    const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privateKey = (await importJWK({ ...bank.privateKey.export({ format: 'jwk' }), alg: 'PS256' }, 'PS256')) as CryptoKey;
    const text = '{"Data":{"Status":"RCVD"}}\n';
    const signature = await signResponse(text, { kid: 'bank-key', privateKey, iss: '0015800001041RHAAY' }, NOW);
    const [encoded = '', payload, sig = ''] = signature.split('.');
    expect(payload).toBe('');
    expect(JSON.parse(Buffer.from(encoded, 'base64url').toString())).toEqual({
      alg: 'PS256',
      kid: 'bank-key',
      [OB_IAT]: Math.floor(NOW.getTime() / 1000),
      [OB_ISS]: '0015800001041RHAAY',
      [OB_TAN]: 'openbanking.org.uk',
      crit: [...OB_CRITICAL],
    });
    const input = Buffer.from(`${encoded}.${b64(text)}`);
    const options = { key: bank.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
    expect(verify('sha256', input, options, Buffer.from(sig, 'base64url'))).toBe(true);
    // The trailing newline is part of what is signed: the body without it does not verify.
    expect(verify('sha256', Buffer.from(`${encoded}.${b64(text.trim())}`), options, Buffer.from(sig, 'base64url'))).toBe(false);
  });
});
