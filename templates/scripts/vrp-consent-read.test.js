/* global obflowBody */
// GET /domestic-vrp-consents/{ConsentId}: our consent, in the state the flow has reached (v3.1.11 names, v4.0 codes;
// a VRP consent stays authorised while payments are made under it), its ControlParameters as created.
const env = pm.environment;
const data = (obflowBody() || {}).Data || {};

pm.test('ConsentId is ours', function () {
  pm.expect(data.ConsentId).to.equal(env.get('consent_id'));
});
pm.test('consent is {{js status}}', function () {
  pm.expect(data.Status).to.equal('{{js status}}');
});
pm.test("the consent's ControlParameters are unchanged", function () {
  pm.expect(data.ControlParameters).to.eql(JSON.parse(env.get('vrp_control_parameters') || 'null'));
});
env.set('vrp_consent_status', data.Status || '');
