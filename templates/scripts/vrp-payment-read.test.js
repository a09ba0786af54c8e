/* global obflowBody */
// GET the payment at its Links.Self: the one payment made (its id, consent and creation time), for the amount sent,
// not rejected; the replay made no second one.
const env = pm.environment;
const notMade = JSON.parse('{{js notMade}}');
const data = (obflowBody() || {}).Data || {};

pm.test('DomesticVRPId, ConsentId and CreationDateTime are the payment made', function () {
  pm.expect(data.DomesticVRPId, 'DomesticVRPId').to.equal(env.get('vrp_payment_id'));
  pm.expect(data.ConsentId, 'ConsentId').to.equal(env.get('consent_id'));
  pm.expect(data.CreationDateTime, 'CreationDateTime').to.equal(env.get('vrp_payment_created'));
});
pm.test('the payment is {{js amount}} {{js currency}}, not rejected (its Status is not ' + notMade.join(' or ') + ')', function () {
  pm.expect((data.Instruction || {}).InstructedAmount, 'InstructedAmount').to.eql({ Amount: '{{js amount}}', Currency: '{{js currency}}' });
  pm.expect(notMade, 'Status ' + data.Status).to.not.include(data.Status);
});
env.set('vrp_payment_status', data.Status || '');
