// FAPI 1 Baseline §6.2.1 item 11: the resource server echoes the client's x-fapi-interaction-id (set by
// fapi.prerequest.js).
pm.test('x-fapi-interaction-id is echoed', function () {
  pm.expect(pm.response.headers.get('x-fapi-interaction-id'), 'x-fapi-interaction-id response header').to.equal(
    pm.environment.get('x_fapi_interaction_id'),
  );
});
