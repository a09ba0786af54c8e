/* global obflowBody */
// The refreshed token reads the same consent's accounts (AIS v3.1 Accounts): exactly the ids the accounts step read.
const accounts = ((obflowBody() || {}).Data || {}).Account || [];
const ids = accounts.map(function (account) {
  return account.AccountId;
});

pm.test('the refreshed token reads the same accounts', function () {
  pm.expect(ids).to.eql(JSON.parse(pm.environment.get('account_ids') || '[]'));
});
