/* global obflowBody */
// POST /funds-confirmations (OB R/W Confirmation of Funds API): for our consent and the amount sent, FundsAvailable is
// what the account says — {{js expected}} for {{js amountVariable}}. Adds the check to funds_checks (the reports).
const env = pm.environment;
const expected = '{{js expected}}' === 'true';
const data = (obflowBody() || {}).Data || {};
const sent = JSON.parse(pm.request.body.raw).Data;

pm.test('FundsAvailable is ' + expected + ' for {{js amountVariable}}', function () {
  pm.expect(data.FundsAvailable, sent.InstructedAmount.Amount + ' ' + sent.InstructedAmount.Currency).to.equal(expected);
});
pm.test('the confirmation is of our consent, amount and reference', function () {
  pm.expect(data.ConsentId, 'ConsentId').to.equal(env.get('consent_id'));
  pm.expect(data.InstructedAmount, 'InstructedAmount').to.eql(sent.InstructedAmount);
  pm.expect(data.Reference, 'Reference').to.equal(sent.Reference);
});
const checks = JSON.parse(env.get('funds_checks') || '[]');
checks.push({
  Amount: sent.InstructedAmount.Amount,
  Currency: sent.InstructedAmount.Currency,
  FundsAvailable: data.FundsAvailable,
  FundsConfirmationId: data.FundsConfirmationId,
});
env.set('funds_checks', JSON.stringify(checks));
