/* global obflowBody */
// JARM (flow.jarm): the provider offers what obflow asks — response_mode jwt (JARM §3
// response_modes_supported) and PS256 responses where it lists the algorithms (JARM §4
// authorization_signing_alg_values_supported). Rendered only in collections generated with JARM on.
const config = obflowBody();

pm.test('offers JARM (response_modes_supported includes jwt; flow.jarm)', function () {
  pm.expect(config.response_modes_supported || [], 'response_modes_supported').to.include('jwt');
});
if (config.authorization_signing_alg_values_supported !== undefined) {
  pm.test('signs authorisation responses PS256 (authorization_signing_alg_values_supported)', function () {
    pm.expect(config.authorization_signing_alg_values_supported).to.include('PS256');
  });
}
