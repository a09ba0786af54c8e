/* global obflowPss */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// The bank's x-jws-signature on an answer, checked as OB R/W Data API Profile "Process for Verifying a Signature" says
// (Step 2: the JOSE header holds only the claims of Step 2 of signing; typ JOSE and cty json if present; alg PS256; a
// kid of the bank's keys; http://openbanking.org.uk/iat in the past; /iss the bank; /tan a trust anchor obflow
// trusts; crit exactly the three claims. Step 3: RFC 7515 Appendix F, the payload the answer's bytes base64url-encoded)
// with lib-pss.js's PS256 verifier.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowJwsVerify = (function () {
  const btoa = require('btoa');
  const atob = require('atob');
  const OB = 'http://openbanking.org.uk/';
  const CRIT = [OB + 'iat', OB + 'iss', OB + 'tan'];
  const CLAIMS = ['alg', 'typ', 'cty', 'kid', 'crit'].concat(CRIT);
  /** The clock skew allowed on iat, as on an id_token's (docs/pipeline.md, "id_token verification"). */
  const SKEW_SECONDS = 60;
  function base64url(binary) {
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function headerOf(encoded) {
    try {
      const b64 = String(encoded).replace(/-/g, '+').replace(/_/g, '/');
      const header = JSON.parse(decodeURIComponent(escape(atob(b64 + '==='.slice((b64.length + 3) % 4)))));
      return header !== null && typeof header === 'object' && !Array.isArray(header) ? header : undefined;
    } catch {
      return undefined;
    }
  }
  /**
   * What does not hold of `signature` (the x-jws-signature text) over `bodyBinary` (the answer's bytes as a binary
   * string), given the bank's keys [{kid, n, e}] and what is expected: {iss, tan, now (seconds)}. [] when all holds.
   */
  function problems(signature, bodyBinary, keys, expected) {
    if (typeof signature !== 'string' || signature === '') return ['the answer has no x-jws-signature'];
    const parts = signature.split('.');
    if (parts.length !== 3 || parts[1] !== '') return ['x-jws-signature is not a detached JWS (header..signature, RFC 7515 Appendix F)'];
    const header = headerOf(parts[0]);
    if (header === undefined) return ['the JOSE header is not a JSON object'];
    const out = [];
    const others = Object.keys(header).filter(function (name) {
      return CLAIMS.indexOf(name) < 0;
    });
    if (others.length > 0) out.push('the header has claims the profile does not list: ' + others.join(', '));
    if (header.alg !== 'PS256') out.push('alg is ' + header.alg + ', not PS256');
    if (header.typ !== undefined && header.typ !== 'JOSE') out.push('typ is ' + header.typ + ', not JOSE');
    if (header.cty !== undefined && header.cty !== 'json' && header.cty !== 'application/json')
      out.push('cty is ' + header.cty + ', not json');
    if (typeof header.kid !== 'string' || header.kid === '') out.push('no kid');
    const crit = Array.isArray(header.crit) ? header.crit : [];
    const critExact =
      crit.length === CRIT.length &&
      CRIT.every(function (name) {
        return crit.indexOf(name) >= 0;
      });
    if (!critExact) out.push('crit is ' + JSON.stringify(header.crit) + ', not exactly ' + CRIT.join(', '));
    const iat = header[OB + 'iat'];
    if (typeof iat !== 'number') out.push(OB + 'iat is not a number');
    else if (iat > expected.now + SKEW_SECONDS) out.push(OB + 'iat ' + iat + ' is in the future (now ' + expected.now + ')');
    if (header[OB + 'iss'] !== expected.iss) out.push(OB + 'iss is ' + header[OB + 'iss'] + ', not the bank (' + expected.iss + ')');
    if (header[OB + 'tan'] !== expected.tan) out.push(OB + 'tan is ' + header[OB + 'tan'] + ', not ' + expected.tan);
    if (out.length > 0) return out;
    const problem = obflowPss.verifyJws(parts[0] + '.' + base64url(bodyBinary) + '.' + parts[2], keys);
    return problem === '' ? [] : [problem.replace('jwks_uri has', "the bank's keys have") + " over the answer's bytes"];
  }
  return { problems: problems, header: headerOf };
})();
