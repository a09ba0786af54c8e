/* global obflowBody */
// OIDC Discovery 1.0 §3 jwks_uri: the keys that sign the bank's id_tokens; the psu-consent step reads them from there.
const config = obflowBody();

pm.test('jwks_uri is an https address (OIDC Discovery 1.0 §3)', function () {
  pm.expect(String(config.jwks_uri)).to.match(/^https:\/\//);
});
pm.environment.set('jwksUri', config.jwks_uri || '');
