/* global obflowBody */
// POST /domestic-payments: the payment of our consent, its Initiation the consent's (the bank must refuse another),
// made (not in a rejected state). Writes the payment's id, Links.Self (where it is read back) and status.
const env = pm.environment;
const notMade = JSON.parse('{{js notMade}}');
const data = (obflowBody() || {}).Data || {};
const links = (obflowBody() || {}).Links || {};
const consented = JSON.parse(env.get('payment_initiation') || 'null') || {};

pm.test("ConsentId is the consent's", function () {
  pm.expect(data.ConsentId).to.equal(env.get('consent_id'));
});
pm.test("the payment's InstructedAmount and CreditorAccount are the consent's", function () {
  const initiation = data.Initiation || {};
  pm.expect(initiation.InstructedAmount, 'InstructedAmount').to.eql(consented.InstructedAmount);
  pm.expect(initiation.CreditorAccount, 'CreditorAccount').to.eql(consented.CreditorAccount);
});
pm.test('the payment is made (its Status is not ' + notMade.join(' or ') + ')', function () {
  pm.expect(notMade, 'Status ' + data.Status).to.not.include(data.Status);
});
pm.test('Links.Self names the payment', function () {
  pm.expect(String(links.Self || '')).to.match(
    new RegExp('/domestic-payments/' + String(data.DomesticPaymentId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$'),
  );
});
env.set('payment_id', data.DomesticPaymentId || '');
env.set('payment_self_url', links.Self || '');
env.set('payment_created', data.CreationDateTime || '');
env.set('payment_status', data.Status || '');
