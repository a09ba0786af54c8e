/* global obflowBody */
// The payment again under a new x-idempotency-key: not a replay, a second payment of the consent — which is consumed
// ("A domestic-payment can only be created if its corresponding domestic-payment-consent resource has the Status of
// AUTH"): refused, and no payment in the answer.
const refusals = JSON.parse('{{js refusals}}');
let data = {};
try {
  data = (obflowBody() || {}).Data || {};
} catch {
  data = {};
}

pm.test('the consumed consent refuses a second payment (' + refusals.join(' or ') + ')', function () {
  pm.expect(pm.response.code).to.be.oneOf(refusals);
});
pm.test('the answer names no second payment', function () {
  pm.expect(data.DomesticPaymentId, 'DomesticPaymentId').to.equal(undefined);
});
