/* global obflowBody */
// GET /account-access-consents/{ConsentId}: the consent we created, still AwaitingAuthorisation before the PSU acts.
const data = (obflowBody() || {}).Data || {};

pm.test('ConsentId is ours', function () {
  pm.expect(data.ConsentId).to.equal(pm.environment.get('consent_id'));
});
pm.test('consent is {{js awaitingStatus}}', function () {
  pm.expect(data.Status).to.equal('{{js awaitingStatus}}');
});
