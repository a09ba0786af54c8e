/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// obflow script helpers (JWT and redirect parsing) for newman 6.2's sandbox: no crypto, URL or base64url there, so
// base64url is the sandbox's atob/btoa modules plus the RFC 4648 §5 alphabet swap, and hashes come from crypto-js.
// (atob and btoa are modules, not globals: the scripts opt out of the legacy globals, see src/generate/collections.ts.)
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowJwt = (function () {
  const atob = require('atob');
  const btoa = require('btoa');
  function b64urlFromBase64(b64) {
    return b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function encodeJson(value) {
    // unescape(encodeURIComponent()) turns the UTF-8 bytes into the binary string btoa expects.
    return b64urlFromBase64(btoa(unescape(encodeURIComponent(JSON.stringify(value)))));
  }
  function decodeJson(part) {
    const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const padded = b64 + '==='.slice((b64.length + 3) % 4);
    return JSON.parse(decodeURIComponent(escape(atob(padded))));
  }
  /** An unsigned JWT (RFC 7519 §6: alg "none", empty signature) – the registration asked for request_object_signing_alg none. */
  function unsigned(payload) {
    return encodeJson({ alg: 'none', typ: 'JWT' }) + '.' + encodeJson(payload) + '.';
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
    return b64urlFromBase64(CryptoJS.enc.Hex.parse(hex.slice(0, hex.length / 2)).toString(CryptoJS.enc.Base64));
  }
  /** Splits a redirect Location into its base (before ? and #), query and fragment parameters. */
  function splitLocation(location) {
    const qs = require('querystring');
    const text = String(location || '');
    const hashAt = text.indexOf('#');
    const beforeHash = hashAt >= 0 ? text.slice(0, hashAt) : text;
    const queryAt = beforeHash.indexOf('?');
    return {
      base: queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash,
      query: queryAt >= 0 ? qs.parse(beforeHash.slice(queryAt + 1)) : {},
      fragment: hashAt >= 0 ? qs.parse(text.slice(hashAt + 1)) : {},
    };
  }
  return { unsigned: unsigned, decode: decode, halfHash: halfHash, splitLocation: splitLocation, encodeJson: encodeJson };
})();
