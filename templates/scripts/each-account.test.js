/* global obflowBody */
// GET /accounts/{AccountId}: exactly the account asked for.
const accounts = ((obflowBody() || {}).Data || {}).Account || [];

pm.test('exactly one account, the one asked for', function () {
  pm.expect(
    accounts.map(function (account) {
      return account.AccountId;
    }),
  ).to.eql([pm.environment.get('account_id')]);
});
