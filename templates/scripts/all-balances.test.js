/* global obflowBody */
// GET /balances: InterimAvailable only, one for each consented account, the same as the per-account reads.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
const recorded = JSON.parse(env.get('interim_balances') || '{}');
const balances = ((obflowBody() || {}).Data || {}).Balance || [];
const balanceIds = balances.map(function (balance) {
  return balance.AccountId;
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
pm.test('balances cover exactly the consented accounts', function () {
  pm.expect(balanceIds).to.have.members(ids);
});
pm.test("each balance equals the account's own balances read", function () {
  balances.forEach(function (balance) {
    const own = recorded[balance.AccountId];
    if (own !== undefined) {
      pm.expect(
        { Amount: balance.Amount.Amount, Currency: balance.Amount.Currency, CreditDebitIndicator: balance.CreditDebitIndicator },
        balance.AccountId,
      ).to.eql(own);
    }
  });
});
