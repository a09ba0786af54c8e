/* global obflowBody */
// A payment under the deleted consent: "The ASPSP must fail any future payment order request using the ConsentId"
// (VRP v4.0 domestic-vrp-consents, DELETE). Passes only when the bank refuses: a 201 is a payment made under a revoked
// mandate.
const refusals = JSON.parse('{{js refusals}}');
let data = {};
try {
  data = (obflowBody() || {}).Data || {};
} catch {
  data = {};
}

pm.test('the deleted consent refuses a payment of {{js amount}} {{js currency}} (' + refusals.join(' or ') + ')', function () {
  pm.expect(pm.response.code, 'a payment under a deleted consent').to.be.oneOf(refusals);
});
pm.test('the answer names no payment', function () {
  pm.expect(data.DomesticVRPId, 'DomesticVRPId').to.equal(undefined);
});
