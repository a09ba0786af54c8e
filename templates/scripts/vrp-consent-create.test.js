/* global obflowBody */
// POST /domestic-vrp-consents: created awaiting authorisation, with the mandate sent (the response carries the
// request's ControlParameters and Initiation). Writes consent_id and what the later checks compare with.
const env = pm.environment;
const data = (obflowBody() || {}).Data || {};
const sent = JSON.parse(pm.request.body.raw).Data;

pm.test('consent is {{js status}}', function () {
  pm.expect(data.Status).to.equal('{{js status}}');
});
pm.test('the consent carries the mandate sent: VRPType {{js vrpType}}, its limits, its payee', function () {
  const control = data.ControlParameters || {};
  pm.expect(control.VRPType, 'VRPType').to.eql(sent.ControlParameters.VRPType);
  pm.expect(control.MaximumIndividualAmount, 'MaximumIndividualAmount').to.eql(sent.ControlParameters.MaximumIndividualAmount);
  pm.expect(control.PeriodicLimits, 'PeriodicLimits').to.eql(sent.ControlParameters.PeriodicLimits);
  pm.expect((data.Initiation || {}).CreditorAccount, 'CreditorAccount').to.eql(sent.Initiation.CreditorAccount);
});
env.set('consent_id', data.ConsentId || '');
env.set('vrp_consent_created', data.CreationDateTime || '');
env.set('vrp_control_parameters', JSON.stringify(data.ControlParameters || null));
env.set('vrp_consent_status', data.Status || '');
// A new consent makes every later grant and payment stale: clear them so nothing old can hide a failure.
[
  'auth_code',
  'id_token',
  'access_token',
  'refresh_token',
  'consent_url',
  'state',
  'nonce',
  'vrp_payment_id',
  'vrp_payment_self_url',
  'vrp_payment_status',
  'vrp_walk',
].forEach(function (key) {
  env.set(key, '');
});
