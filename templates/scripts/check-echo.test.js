// FAPI 1 Baseline §6.2.1 item 11: the resource server echoes the client's x-fapi-interaction-id — the fresh UUID the
// request sent (the dynamic variable $guid in its header; pm.request is the request as sent).
pm.test('x-fapi-interaction-id is echoed', function () {
  pm.expect(pm.response.headers.get('x-fapi-interaction-id'), 'x-fapi-interaction-id response header').to.equal(
    pm.request.headers.get('x-fapi-interaction-id'),
  );
});
