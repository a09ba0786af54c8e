/* global obflowBody */
// The bank's signing keys (RFC 7517 §5 JWK Set) from jwks_uri: the RSA signature keys with a kid go into bank_jwks,
// so later scripts verify id_token signatures (lib-pss) without another request.
const jwks = obflowBody();
const keys = (Array.isArray(jwks.keys) ? jwks.keys : []).filter(function (key) {
  return key.kty === 'RSA' && typeof key.kid === 'string' && (key.use === undefined || key.use === 'sig');
});

pm.test('jwks_uri lists RSA signature keys with kid (RFC 7517 §4.5, §5)', function () {
  pm.expect(keys.length, 'RSA keys with kid').to.be.above(0);
});
pm.environment.set(
  'bank_jwks',
  JSON.stringify(
    keys.map(function (key) {
      return { kid: key.kid, n: key.n, e: key.e };
    }),
  ),
);
