/* global obflowBody */
// POST …/domestic-vrp-consents/{ConsentId}/funds-confirmation: the consent's, for the amount asked, and the account
// holds it (OBPAFundsAvailableResult1 FundsAvailable).
const data = (obflowBody() || {}).Data || {};
const sent = JSON.parse(pm.request.body.raw).Data;
const result = data.FundsAvailableResult || {};

pm.test("the confirmation is the consent's, for the amount asked", function () {
  pm.expect(data.ConsentId, 'ConsentId').to.equal(pm.environment.get('consent_id'));
  pm.expect(data.InstructedAmount, 'InstructedAmount').to.eql(sent.InstructedAmount);
});
pm.test('FundsAvailable is {{js available}}', function () {
  pm.expect(result.FundsAvailable).to.equal('{{js available}}');
});
pm.environment.set('vrp_funds_available', String(result.FundsAvailable || ''));
