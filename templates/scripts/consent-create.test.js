/* global obflowBody */
// POST /account-access-consents (AIS v3.1 Account Access Consents): created AwaitingAuthorisation with our permissions.
const env = pm.environment;
const permissions = JSON.parse('{{js permissions}}');
const data = (obflowBody() || {}).Data || {};

pm.test('consent is {{js awaitingStatus}}', function () {
  pm.expect(data.Status).to.equal('{{js awaitingStatus}}');
});
pm.test('consent has the requested permissions', function () {
  pm.expect(data.Permissions).to.have.members(permissions);
});
env.set('consent_id', data.ConsentId || '');
// A new consent makes every later grant stale: clear it so no old token can hide a failure.
['auth_code', 'id_token', 'access_token', 'refresh_token', 'consent_url', 'state', 'nonce'].forEach(function (key) {
  env.set(key, '');
});
