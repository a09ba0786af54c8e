/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// An unsigned JWT (RFC 7519 §6: alg "none", empty signature), the request object of the consent URL: the registration
// asked for request_object_signing_alg none. base64url is the sandbox's btoa module plus the RFC 4648 §5 alphabet swap
// (btoa is a module, not a global: the scripts opt out of the legacy globals, see src/generate/collections.ts).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowUnsignedJwt = (function () {
  const btoa = require('btoa');
  function encodeJson(value) {
    // unescape(encodeURIComponent()) turns the UTF-8 bytes into the binary string btoa expects.
    return btoa(unescape(encodeURIComponent(JSON.stringify(value))))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  }
  return function (payload) {
    return encodeJson({ alg: 'none', typ: 'JWT' }) + '.' + encodeJson(payload) + '.';
  };
})();
