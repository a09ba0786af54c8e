/* global obflowPss */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// PS256 JWS signing (RFC 7518 §3.5: RSASSA-PSS, SHA-256, MGF1 with SHA-256, a 32-byte salt) in newman's sandbox, which
// has no crypto: EMSA-PSS-ENCODE (RFC 8017 §9.1.1) with lib-pss.js's SHA-256 and MGF1, then RSASP1 (§5.2.1) as BigInt
// modular exponentiations with the Chinese remainder theorem (the JWK's p, q, dp, dq, qi). Signs the client assertion
// (RFC 7523 §3) and the PS256 request object (FAPI 1 Advanced Part 2 §5.2.2); the key is the `signing_key` secret.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowPssSign = (function () {
  const btoa = require('btoa');
  const uuid = require('uuid');
  const p = obflowPss.primitives;
  const HASH_LENGTH = 32;
  const SALT_LENGTH = 32;
  function base64url(binary) {
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function encodeJson(value) {
    // unescape(encodeURIComponent()) turns the UTF-8 bytes into the binary string btoa expects.
    return base64url(unescape(encodeURIComponent(JSON.stringify(value))));
  }
  function binaryOf(bytes) {
    let text = '';
    for (let i = 0; i < bytes.length; i += 1) text += String.fromCharCode(bytes[i]);
    return text;
  }
  function utf8Bytes(text) {
    const binary = unescape(encodeURIComponent(text));
    const bytes = new Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  /** 32 salt bytes from two v4 UUIDs' random bits (the sandbox has no getRandomValues of its own to call). */
  function salt() {
    const hex = (uuid.v4() + uuid.v4() + uuid.v4()).replace(/-/g, '');
    return p.bytesOfHex(hex.slice(0, SALT_LENGTH * 2));
  }
  /** EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of the message bytes into emBits bits. */
  function emsaPssEncode(message, emBits) {
    const emLen = Math.ceil(emBits / 8);
    const mHash = p.sha256(message);
    const s = salt();
    const h = p.sha256([0, 0, 0, 0, 0, 0, 0, 0].concat(mHash, s));
    const db = new Array(emLen - SALT_LENGTH - HASH_LENGTH - 2).fill(0).concat([1], s);
    const dbMask = p.mgf1(h, emLen - HASH_LENGTH - 1);
    const maskedDb = db.map(function (byte, i) {
      return byte ^ dbMask[i];
    });
    maskedDb[0] &= 0xff >>> (8 * emLen - emBits);
    return maskedDb.concat(h, [0xbc]);
  }
  /** The private JWK ({kty: RSA, n, e, d, p, q, dp, dq, qi}) as BigInts; throws naming what is missing. */
  function keyOf(jwk) {
    const key = typeof jwk === 'string' ? JSON.parse(jwk) : jwk;
    const big = {};
    for (const name of ['n', 'd', 'p', 'q', 'dp', 'dq', 'qi']) {
      if (typeof key[name] !== 'string') throw new Error('the signing key has no ' + name + ' (a private RSA JWK is needed)');
      big[name] = p.bigOf(p.bytesFromBase64url(key[name]));
    }
    return big;
  }
  /** RSASP1 with CRT (RFC 8017 §5.2.1 2.b). */
  function rsasp1(key, m) {
    const s1 = p.modPow(m % key.p, key.dp, key.p);
    const s2 = p.modPow(m % key.q, key.dq, key.q);
    const h = (((s1 - s2) % key.p) + key.p) % key.p;
    return s2 + key.q * ((key.qi * h) % key.p);
  }
  /** A compact PS256 JWS of `payload` with header {alg: PS256, kid, typ: JWT}. */
  function signJwt(payload, jwk, kid) {
    const key = keyOf(jwk);
    const modBits = key.n.toString(2).length;
    const input = encodeJson({ alg: 'PS256', kid: kid, typ: 'JWT' }) + '.' + encodeJson(payload);
    const em = emsaPssEncode(utf8Bytes(input), modBits - 1);
    const signature = p.bytesOfBig(rsasp1(key, p.bigOf(em)), Math.ceil(modBits / 8));
    return input + '.' + base64url(binaryOf(signature));
  }
  return { signJwt: signJwt };
})();
