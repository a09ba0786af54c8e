// Loop over account_ids (written by the accounts step): account_index is the cursor, account_id the current id.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
let index = Number(env.get('account_index') || '0');
// A cursor left by an interrupted run starts the loop again.
if (!(index >= 0 && index < ids.length)) index = 0;
env.set('account_index', String(index));
env.set('account_id', ids[index] === undefined ? '' : ids[index]);
