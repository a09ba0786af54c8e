/* global obflowBody */
// GET /accounts (AIS v3.1 Accounts): the accounts the PSU selected; their ids drive the per-account loops.
const env = pm.environment;
const accounts = ((obflowBody() || {}).Data || {}).Account || [];
const ids = accounts.map(function (account) {
  return account.AccountId;
});

pm.test('at least one account', function () {
  pm.expect(accounts.length).to.be.above(0);
});
pm.test('AccountIds are unique', function () {
  pm.expect(
    ids.filter(function (id, i) {
      return ids.indexOf(id) !== i;
    }),
  ).to.eql([]);
});
env.set('account_ids', JSON.stringify(ids));
// Loops start from the first account; per-account results of an earlier run (another consent) are forgotten.
[
  'account_index',
  'account_id',
  'transactions_next_url',
  'transactions_first_url',
  'transactions_seen_urls',
  'transactions_page',
  'interim_balances',
  'transaction_counts',
].forEach(function (key) {
  env.set(key, '');
});
