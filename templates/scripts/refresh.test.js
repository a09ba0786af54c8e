/* global obflowBody */
// Refresh token grant (RFC 6749 §6): a new Bearer access token for the same consent; a rotated refresh token (§6,
// "MAY issue a new refresh token") replaces the old one.
const env = pm.environment;
const token = obflowBody();

pm.test('token_type is Bearer', function () {
  pm.expect(String(token.token_type).toLowerCase()).to.equal('bearer');
});
pm.test('the access token is a new one', function () {
  pm.expect(token.access_token, 'access_token').to.be.a('string').and.not.equal(env.get('access_token'));
});
env.set('access_token', token.access_token || '');
if (typeof token.refresh_token === 'string' && token.refresh_token !== '') env.set('refresh_token', token.refresh_token);
