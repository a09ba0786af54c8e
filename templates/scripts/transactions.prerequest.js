// Transactions loop, first page of an account (AIS v3.1 "Pagination"): picks the account of account_ids at
// account_index and starts its paging afresh. The later pages are the next item, whose URL is the bank's Links.Next as
// the previous page's test script left it (transactions.test.js): they run no pre-request script.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
let index = Number(env.get('account_index') || '0');
if (!(index >= 0 && index < ids.length)) index = 0;
env.set('account_index', String(index));
env.set('account_id', ids[index] === undefined ? '' : ids[index]);
// A cursor left by an interrupted run belongs to no page of this one.
['transactions_next_url', 'transactions_first_url', 'transactions_seen_urls', 'transactions_page'].forEach(function (key) {
  env.set(key, '');
});
