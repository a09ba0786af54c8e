// Loop over account_ids (written by the accounts step): account_index is the cursor, account_id the current id.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
// Nothing to loop over: skipped with the reason (src/runner-rules.ts SKIP_NOTE), never a request for an empty id.
if (ids.length === 0) {
  console.info('skipped: account_ids is empty: no accounts to read (the accounts step writes them; run it first)');
  pm.execution.skipRequest();
}
let index = Number(env.get('account_index') || '0');
// A cursor left by an interrupted run starts the loop again.
if (!(index >= 0 && index < ids.length)) index = 0;
env.set('account_index', String(index));
env.set('account_id', ids[index] === undefined ? '' : ids[index]);
