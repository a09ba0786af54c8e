/* global obflowBody */
// The bank's signing keys (RFC 7517 §5 JWK Set): the RSA signature keys with a kid go into bank_signing_jwks, so every
// later answer's x-jws-signature is verified (lib-jws-verify.js) without another request.
const jwks = obflowBody();
const keys = (Array.isArray(jwks.keys) ? jwks.keys : []).filter(function (key) {
  return key.kty === 'RSA' && typeof key.kid === 'string' && (key.use === undefined || key.use === 'sig');
});

pm.test("the bank's key set lists RSA signature keys with kid (RFC 7517 §4.5, §5)", function () {
  pm.expect(keys.length, 'RSA keys with kid').to.be.above(0);
});
pm.environment.set(
  'bank_signing_jwks',
  JSON.stringify(
    keys.map(function (key) {
      return { kid: key.kid, n: key.n, e: key.e };
    }),
  ),
);
