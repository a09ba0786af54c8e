/* global obflowBody */
// GET …/funds-confirmation (OB R/W Payment Initiation API, "Domestic Payment Consents"): whether the account to be
// debited holds the amount; the payment is made only after a yes.
const data = (obflowBody() || {}).Data || {};
const result = data.FundsAvailableResult || {};

pm.test('FundsAvailableResult says the funds are available', function () {
  pm.expect(result.FundsAvailable, 'FundsAvailable').to.equal(true);
});
pm.environment.set('payment_funds_available', String(result.FundsAvailable));
