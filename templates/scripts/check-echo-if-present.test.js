// The authorisation server need not echo x-fapi-interaction-id (FAPI 1 Baseline §6.2.1 item 11 binds the resource
// server); an echo, when there is one, must be the id the request sent (the dynamic variable $guid in its header).
const echoed = pm.response.headers.get('x-fapi-interaction-id');

if (echoed !== undefined) {
  pm.test('x-fapi-interaction-id, when echoed, is ours', function () {
    pm.expect(echoed).to.equal(pm.request.headers.get('x-fapi-interaction-id'));
  });
}
