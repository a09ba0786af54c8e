/* global obflowPss, obflowPssSign */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A detached JWS of a request body (RFC 7515 Appendix F), as OB R/W Data API Profile "Message Signing" writes it
// (Steps 2-4): the protected header {alg PS256, kid, http://openbanking.org.uk/iat, /iss, /tan, crit of those three}
// (no b64: the payload is the body base64url-encoded, since v3.1.4), signed over `header.payload`, sent as
// `header..signature` in x-jws-signature. The PS256 encoding and RSA steps are lib-pss-sign.js's own (its `parts`).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowJwsSign = (function () {
  const btoa = require('btoa');
  const p = obflowPss.primitives;
  const s = obflowPssSign.parts;
  const OB = 'http://openbanking.org.uk/';
  /** The `x-jws-signature` of `body` (the exact text sent) with the private JWK and its kid; claims {iat, iss, tan}. */
  function detached(body, jwk, kid, claims) {
    const header = {
      alg: 'PS256',
      kid: kid,
      [OB + 'iat']: claims.iat,
      [OB + 'iss']: claims.iss,
      [OB + 'tan']: claims.tan,
      crit: [OB + 'iat', OB + 'iss', OB + 'tan'],
    };
    const encodedHeader = s.encodeJson(header);
    // The body's UTF-8 bytes as a binary string, base64url: the payload the bank rebuilds from the bytes it receives.
    const payload = btoa(unescape(encodeURIComponent(body)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const key = s.keyOf(jwk);
    const modBits = key.n.toString(2).length;
    const em = s.emsaPssEncode(s.utf8Bytes(encodedHeader + '.' + payload), modBits - 1);
    const signature = p.bytesOfBig(s.rsasp1(key, p.bigOf(em)), Math.ceil(modBits / 8));
    return encodedHeader + '..' + s.base64url(s.binaryOf(signature));
  }
  return { detached: detached };
})();
