/* global obflowBody */
// GET /accounts/{AccountId}/balances: InterimAvailable only (bank-interface.md §2.3), all of this account.
const env = pm.environment;
const accountId = env.get('account_id');
const balances = ((obflowBody() || {}).Data || {}).Balance || [];

pm.test('at least one balance', function () {
  pm.expect(balances.length).to.be.above(0);
});
pm.test('every balance is {{js balanceType}}', function () {
  pm.expect(
    balances
      .map(function (balance) {
        return balance.Type;
      })
      .filter(function (type) {
        return type !== '{{js balanceType}}';
      }),
  ).to.eql([]);
});
pm.test('every balance belongs to the account asked for', function () {
  balances.forEach(function (balance) {
    pm.expect(balance.AccountId).to.equal(accountId);
  });
});
const recorded = JSON.parse(env.get('interim_balances') || '{}');
if (balances[0] !== undefined && balances[0].Amount !== undefined) {
  recorded[accountId] = {
    Amount: balances[0].Amount.Amount,
    Currency: balances[0].Amount.Currency,
    CreditDebitIndicator: balances[0].CreditDebitIndicator,
  };
}
env.set('interim_balances', JSON.stringify(recorded));
