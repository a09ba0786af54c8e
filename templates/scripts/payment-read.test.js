/* global obflowBody */
// GET the payment at its Links.Self: the one payment made (its id, consent and creation time), with the consent's
// amount — the changed body and the second payment changed nothing — and not rejected.
const env = pm.environment;
const notMade = JSON.parse('{{js notMade}}');
const data = (obflowBody() || {}).Data || {};
const links = (obflowBody() || {}).Links || {};
const consented = JSON.parse(env.get('payment_initiation') || 'null') || {};

pm.test('DomesticPaymentId, ConsentId and CreationDateTime are the payment made', function () {
  pm.expect(data.DomesticPaymentId, 'DomesticPaymentId').to.equal(env.get('payment_id'));
  pm.expect(data.ConsentId, 'ConsentId').to.equal(env.get('consent_id'));
  pm.expect(data.CreationDateTime, 'CreationDateTime').to.equal(env.get('payment_created'));
});
pm.test("the payment's InstructedAmount is the consent's (nothing changed it)", function () {
  pm.expect((data.Initiation || {}).InstructedAmount).to.eql(consented.InstructedAmount);
});
pm.test('the payment is not rejected (its Status is not ' + notMade.join(' or ') + ')', function () {
  pm.expect(notMade, 'Status ' + data.Status).to.not.include(data.Status);
});
pm.test('Links.Self is where it was read', function () {
  pm.expect(links.Self).to.equal(env.get('payment_self_url'));
});
env.set('payment_status', data.Status || '');
