// Transactions loop, outer: one account of account_ids at a time; inner: its pages, following Links.Next
// (AIS v3.1 "Pagination"): the next page's URL is the bank's absolute link, requested as given.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
// Nothing to loop over: skipped with the reason (src/runner-rules.ts SKIP_NOTE), never a request for an empty id.
if (ids.length === 0) {
  console.info('skipped: account_ids is empty: no accounts to read (the accounts step writes them; run it first)');
  pm.execution.skipRequest();
}
let index = Number(env.get('account_index') || '0');
if (!(index >= 0 && index < ids.length)) index = 0;
env.set('account_index', String(index));
env.set('account_id', ids[index] === undefined ? '' : ids[index]);

const next = env.get('transactions_next_url') || '';
if (next !== '') {
  pm.request.url = next;
}
