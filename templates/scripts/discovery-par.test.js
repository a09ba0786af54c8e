/* global obflowBody */
// Pushed authorization requests (flow.par): the provider offers what obflow is configured to send — the
// pushed authorization request endpoint (RFC 9126 §5) and PKCE with S256 (RFC 8414 §2 code_challenge_methods_supported;
// FAPI 2.0 requires S256). Rendered only in collections generated with PAR on.
const config = obflowBody();
const env = pm.environment;

pm.test('offers pushed authorization requests (flow.par "always" needs pushed_authorization_request_endpoint)', function () {
  pm.expect(config.pushed_authorization_request_endpoint, 'pushed_authorization_request_endpoint').to.be.a('string').and.not.equal('');
});
pm.test('supports PKCE with S256 (code_challenge_methods_supported)', function () {
  pm.expect(config.code_challenge_methods_supported || [], 'code_challenge_methods_supported').to.include('S256');
});
env.set('parEndpoint', config.pushed_authorization_request_endpoint || '');
