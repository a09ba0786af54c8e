/* global obflowBody */
// GET /domestic-payment-consents/{ConsentId}: our consent, in the state the flow has reached ("Payment Order Consent"
// state model: v3.1 names, v4.0 codes), with the Initiation it was created with (nothing sent since changed it).
const env = pm.environment;
const data = (obflowBody() || {}).Data || {};

pm.test('ConsentId is ours', function () {
  pm.expect(data.ConsentId).to.equal(env.get('consent_id'));
});
pm.test('consent is {{js status}}', function () {
  pm.expect(data.Status).to.equal('{{js status}}');
});
pm.test("the consent's Initiation is unchanged (the amount first sent)", function () {
  pm.expect(data.Initiation).to.eql(JSON.parse(env.get('payment_initiation') || 'null'));
});
env.set('payment_consent_status', data.Status || '');
