/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// RSASSA-PSS signature verification for PS256 JWS (RFC 7518 §3.5: SHA-256, MGF1 with SHA-256, a 32-byte salt) in plain
// JavaScript, since newman 6.2's sandbox has no crypto: RSAVP1 (RFC 8017 §5.2.2) is a BigInt modular exponentiation,
// EMSA-PSS-VERIFY (§9.1.2) with MGF1 (§B.2.1) hashes with crypto-js. Only the public key is used; nothing is signed here.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowPss = (function () {
  const CryptoJS = require('crypto-js');
  const atob = require('atob');
  const HASH_LENGTH = 32;
  const SALT_LENGTH = 32;
  function bytesFromBase64url(text) {
    const b64 = String(text).replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(b64 + '==='.slice((b64.length + 3) % 4));
    const bytes = new Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function hexOf(bytes) {
    let hex = '';
    for (let i = 0; i < bytes.length; i += 1) hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
    return hex;
  }
  function bytesOfHex(hex) {
    const bytes = new Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.substr(i * 2, 2), 16);
    return bytes;
  }
  function bigOf(bytes) {
    return bytes.length === 0 ? BigInt(0) : BigInt('0x' + hexOf(bytes));
  }
  /** I2OSP (RFC 8017 §4.1): null when the integer does not fit in `length` bytes. */
  function bytesOfBig(value, length) {
    let hex = value.toString(16);
    if (hex.length % 2 === 1) hex = '0' + hex;
    if (hex.length / 2 > length) return null;
    return new Array(length - hex.length / 2).fill(0).concat(bytesOfHex(hex));
  }
  function sha256(bytes) {
    return bytesOfHex(CryptoJS.SHA256(CryptoJS.enc.Hex.parse(hexOf(bytes))).toString(CryptoJS.enc.Hex));
  }
  function modPow(base, exponent, modulus) {
    const zero = BigInt(0);
    const one = BigInt(1);
    let result = one;
    let b = base % modulus;
    let e = exponent;
    while (e > zero) {
      if ((e & one) === one) result = (result * b) % modulus;
      b = (b * b) % modulus;
      e >>= one;
    }
    return result;
  }
  function mgf1(seed, length) {
    let mask = [];
    for (let counter = 0; mask.length < length; counter += 1) {
      mask = mask.concat(sha256(seed.concat([(counter >>> 24) & 255, (counter >>> 16) & 255, (counter >>> 8) & 255, counter & 255])));
    }
    return mask.slice(0, length);
  }
  /** EMSA-PSS-VERIFY (RFC 8017 §9.1.2): '' when EM encodes mHash, else what is wrong. */
  function emsaPssVerify(mHash, em, emBits) {
    const emLen = em.length;
    if (emLen < HASH_LENGTH + SALT_LENGTH + 2) return 'inconsistent: the key is too short for PS256';
    if (em[emLen - 1] !== 0xbc) return 'inconsistent: the encoded message does not end in 0xbc';
    const dbLength = emLen - HASH_LENGTH - 1;
    const maskedDb = em.slice(0, dbLength);
    const h = em.slice(dbLength, emLen - 1);
    const topMask = 0xff >>> (8 * emLen - emBits);
    if ((maskedDb[0] & ~topMask & 0xff) !== 0) return 'inconsistent: the leftmost bits are not zero';
    const dbMask = mgf1(h, dbLength);
    const db = maskedDb.map(function (byte, i) {
      return byte ^ dbMask[i];
    });
    db[0] &= topMask;
    const separator = emLen - HASH_LENGTH - SALT_LENGTH - 2;
    for (let i = 0; i < separator; i += 1) if (db[i] !== 0) return 'inconsistent: the padding is not zero';
    if (db[separator] !== 1) return 'inconsistent: no 0x01 before the salt';
    const salt = db.slice(db.length - SALT_LENGTH);
    const hPrime = sha256([0, 0, 0, 0, 0, 0, 0, 0].concat(mHash, salt));
    return hexOf(hPrime) === hexOf(h) ? '' : 'it signs other bytes than the header and claims';
  }
  /** Verifies a compact PS256 JWS with the RSA key of `keys` ({kid, n, e}) its header names: '' or the problem. */
  function verifyJws(jws, keys) {
    const parts = String(jws).split('.');
    if (parts.length !== 3) return 'not a compact JWS: ' + parts.length + ' parts';
    let header;
    try {
      header = JSON.parse(
        bytesFromBase64url(parts[0])
          .map(function (c) {
            return String.fromCharCode(c);
          })
          .join(''),
      );
    } catch {
      return 'the header does not decode';
    }
    if (header.alg !== 'PS256') return 'alg is ' + header.alg + ', not PS256';
    const set = keys || [];
    // OIDC Core §10.1.1: without a kid, only a JWK Set of one key names the key (obflow's id-token step answers alike).
    if (header.kid === undefined && set.length !== 1)
      return 'the id_token has no kid, and jwks_uri has ' + set.length + ' keys (OIDC Core §10.1.1)';
    const key =
      header.kid === undefined
        ? set[0]
        : set.find(function (candidate) {
            return candidate.kid === header.kid;
          });
    if (key === undefined) return 'jwks_uri has no key with kid ' + header.kid;
    const n = bigOf(bytesFromBase64url(key.n));
    const e = bigOf(bytesFromBase64url(key.e));
    const modBits = n.toString(2).length;
    // RFC 7518 §3.5: RSASSA-PSS keys of 2048 bits or larger (jose refuses smaller ones too).
    if (modBits < 2048) return 'the key with kid ' + key.kid + ' has ' + modBits + ' bits, fewer than 2048 (RFC 7518 §3.5)';
    const signature = bytesFromBase64url(parts[2]);
    if (signature.length !== Math.ceil(modBits / 8))
      return 'the signature is ' + signature.length + ' bytes, the key ' + Math.ceil(modBits / 8);
    const s = bigOf(signature);
    if (s >= n) return 'the signature is out of range';
    // RSAVP1, then the encoded message of emBits = modBits - 1 bits.
    const em = bytesOfBig(modPow(s, e, n), Math.ceil((modBits - 1) / 8));
    if (em === null) return 'the signature does not verify with kid ' + header.kid + ' (inconsistent: the encoded message is too long)';
    const mHash = bytesOfHex(CryptoJS.SHA256(parts[0] + '.' + parts[1]).toString(CryptoJS.enc.Hex));
    const problem = emsaPssVerify(mHash, em, modBits - 1);
    return problem === '' ? '' : 'the signature does not verify with kid ' + header.kid + ' (' + problem + ')';
  }
  // The primitives are shared with lib-pss-sign.js (the signer), so the two cannot drift apart.
  return {
    verifyJws: verifyJws,
    primitives: {
      bytesFromBase64url: bytesFromBase64url,
      hexOf: hexOf,
      bytesOfHex: bytesOfHex,
      bigOf: bigOf,
      bytesOfBig: bytesOfBig,
      sha256: sha256,
      modPow: modPow,
      mgf1: mgf1,
    },
  };
})();
