/* global obflowBody */
// POST /domestic-payment-consents: created awaiting authorisation, its Initiation the one sent (the response "contains
// the full original payload from the request"): the ids, the amount and the payee. Writes consent_id and what the
// later checks compare with (the Initiation, when it was created).
const env = pm.environment;
const data = (obflowBody() || {}).Data || {};
const sent = JSON.parse(pm.request.body.raw).Data.Initiation;
const initiation = data.Initiation || {};

pm.test('consent is {{js awaitingStatus}}', function () {
  pm.expect(data.Status).to.equal('{{js awaitingStatus}}');
});
pm.test('the consent carries the payment sent: ids, InstructedAmount, CreditorAccount', function () {
  pm.expect(initiation.InstructionIdentification, 'InstructionIdentification').to.equal(sent.InstructionIdentification);
  pm.expect(initiation.EndToEndIdentification, 'EndToEndIdentification').to.equal(sent.EndToEndIdentification);
  pm.expect(initiation.InstructedAmount, 'InstructedAmount').to.eql(sent.InstructedAmount);
  pm.expect(initiation.CreditorAccount, 'CreditorAccount').to.eql(sent.CreditorAccount);
});
env.set('consent_id', data.ConsentId || '');
env.set('payment_initiation', JSON.stringify(data.Initiation || null));
env.set('payment_consent_created', data.CreationDateTime || '');
env.set('payment_consent_status', data.Status || '');
// A new consent makes every later grant and payment stale: clear them so nothing old can hide a failure.
[
  'auth_code',
  'id_token',
  'access_token',
  'refresh_token',
  'consent_url',
  'state',
  'nonce',
  'payment_id',
  'payment_self_url',
  'payment_status',
].forEach(function (key) {
  env.set(key, '');
});
