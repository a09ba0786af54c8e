// Next account: run this same item again (pm.execution.setNextRequest, newman notes "Loops"), or end the loop.
const env = pm.environment;
const ids = JSON.parse(env.get('account_ids') || '[]');
const index = Number(env.get('account_index') || '0');

pm.test('account_ids (from the accounts step) is not empty', function () {
  pm.expect(ids.length).to.be.above(0);
});
if (index + 1 < ids.length) {
  env.set('account_index', String(index + 1));
  pm.execution.setNextRequest('{{js item}}');
} else {
  env.set('account_index', '');
  env.set('account_id', '');
}
