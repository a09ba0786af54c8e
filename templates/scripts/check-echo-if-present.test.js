// The authorisation server need not echo x-fapi-interaction-id (FAPI 1 Baseline §6.2.1 item 11 binds the resource
// server); an echo, when there is one, must be the id fapi.prerequest.js sent.
const echoed = pm.response.headers.get('x-fapi-interaction-id');

if (echoed !== undefined) {
  pm.test('x-fapi-interaction-id, when echoed, is ours', function () {
    pm.expect(echoed).to.equal(pm.environment.get('x_fapi_interaction_id'));
  });
}
