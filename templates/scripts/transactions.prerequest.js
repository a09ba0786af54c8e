// Transactions loop, outer: one account of account_ids at a time; inner: its pages, following Links.Next
// (AIS v3.1 "Pagination"): the next page's URL is the bank's absolute link, requested as given.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
let index = Number(env.get('account_index') || '0');
if (!(index >= 0 && index < ids.length)) index = 0;
env.set('account_index', String(index));
env.set('account_id', ids[index] === undefined ? '' : ids[index]);

const next = env.get('transactions_next_url') || '';
if (next !== '') {
  pm.request.url = next;
}
