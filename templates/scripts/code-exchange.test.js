/* global obflowJwt, obflowBody */
// Authorization code grant (RFC 6749 §4.1.3, bank-interface.md §5.3 step 5): the Bearer token for the AIS reads.
// The token endpoint's id_token (OIDC Core §3.1.3.7) must name the same consent and carry our nonce.
const env = pm.environment;
const token = obflowBody();

pm.test('token_type is Bearer', function () {
  pm.expect(String(token.token_type).toLowerCase()).to.equal('bearer');
});
if (token.id_token !== undefined) {
  pm.test('id_token names the consent, the client and our nonce', function () {
    const claims = obflowJwt.decode(token.id_token).payload;
    pm.expect(claims.iss, 'iss').to.equal(env.get('issuer'));
    pm.expect([].concat(claims.aud), 'aud').to.include(env.get('_clientId'));
    pm.expect(claims.openbanking_intent_id, 'openbanking_intent_id').to.equal(env.get('consent_id'));
    pm.expect(claims.nonce, 'nonce').to.equal(env.get('nonce'));
  });
}
env.set('access_token', token.access_token || '');
env.set('refresh_token', token.refresh_token || '');
// Codes are single-use (RFC 6749 §4.1.2): forget it.
env.set('auth_code', '');
