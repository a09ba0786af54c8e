/* global obflowBody */
// POST /funds-confirmation-consents: created awaiting authorisation, for the account sent. Writes consent_id.
const env = pm.environment;
const data = (obflowBody() || {}).Data || {};
const sent = JSON.parse(pm.request.body.raw).Data.DebtorAccount;

pm.test('consent is {{js awaitingStatus}}', function () {
  pm.expect(data.Status).to.equal('{{js awaitingStatus}}');
});
pm.test('the consent is for the account sent (DebtorAccount)', function () {
  const account = data.DebtorAccount || {};
  pm.expect(account.SchemeName, 'SchemeName').to.equal(sent.SchemeName);
  pm.expect(account.Identification, 'Identification').to.equal(sent.Identification);
});
env.set('consent_id', data.ConsentId || '');
env.set('funds_consent_status', data.Status || '');
// A new consent makes every later grant stale: clear it so no old token can hide a failure.
['auth_code', 'id_token', 'access_token', 'refresh_token', 'consent_url', 'state', 'nonce', 'funds_checks'].forEach(function (key) {
  env.set(key, '');
});
