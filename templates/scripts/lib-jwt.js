/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// Reading a JWT the bank sent (an id_token) in newman 6.2's sandbox: no crypto or base64url there, so base64url is the
// sandbox's atob module plus the RFC 4648 §5 alphabet swap, and hashes come from crypto-js. (atob is a module, not a
// global: the scripts opt out of the legacy globals, see src/generate/collections.ts.) Writing one is
// lib-jwt-unsigned.js: a pre-request script gets that one, a test script this one, so an item carries each once.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowJwt = (function () {
  const atob = require('atob');
  function decodeJson(part) {
    const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const padded = b64 + '==='.slice((b64.length + 3) % 4);
    return JSON.parse(decodeURIComponent(escape(atob(padded))));
  }
  /** { header, payload } of a compact JWS; the signature cannot be checked in the sandbox (no crypto). */
  function decode(jwt) {
    const parts = String(jwt).split('.');
    if (parts.length !== 3) throw new Error('not a compact JWT: ' + parts.length + ' parts');
    return { header: decodeJson(parts[0]), payload: decodeJson(parts[1]) };
  }
  /** OIDC Core §3.3.2.11 c_hash / s_hash (FAPI 1 Advanced §5.2.2.1) for PS256: left half of SHA-256, base64url. */
  function halfHash(value) {
    const CryptoJS = require('crypto-js');
    const hex = CryptoJS.SHA256(String(value)).toString(CryptoJS.enc.Hex);
    const b64 = CryptoJS.enc.Hex.parse(hex.slice(0, hex.length / 2)).toString(CryptoJS.enc.Base64);
    return b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  return { decode: decode, halfHash: halfHash };
})();
