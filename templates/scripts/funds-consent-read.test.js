/* global obflowBody */
// GET /funds-confirmation-consents/{ConsentId}: our consent, in the state the flow has reached.
const data = (obflowBody() || {}).Data || {};

pm.test('ConsentId is ours', function () {
  pm.expect(data.ConsentId).to.equal(pm.environment.get('consent_id'));
});
pm.test('consent is {{js status}}', function () {
  pm.expect(data.Status).to.equal('{{js status}}');
});
pm.environment.set('funds_consent_status', data.Status || '');
