/* global obflowBody */
// Discovery (OIDC Discovery 1.0 §3, bank-interface.md §4.3): the provider is the one the environment names and
// supports what obflow's flow uses; its endpoints replace the helper's authEndpoint/tokenEndpoint.
const config = obflowBody();
const env = pm.environment;

pm.test("issuer is the environment's issuer", function () {
  pm.expect(config.issuer).to.equal(env.get('issuer'));
});
pm.test('supports response_type ' + env.get('response_type'), function () {
  pm.expect(config.response_types_supported).to.include(env.get('response_type'));
});
// As registered (docs/bank-interface.md §2.1: none and client_secret_basic; today's banks: PS256, private_key_jwt or
// tls_client_auth). OIDC Discovery §3: no token_endpoint_auth_methods_supported means client_secret_basic.
const requestObjectAlg = env.get('request_object_signing_alg') || 'none';
const authMethod = env.get('token_endpoint_auth_method') || '{{js defaultAuthMethod}}';
pm.test(
  'accepts ' +
    (requestObjectAlg === 'none' ? 'unsigned' : requestObjectAlg) +
    ' request objects (request_object_signing_alg ' +
    requestObjectAlg +
    ')',
  function () {
    pm.expect(config.request_object_signing_alg_values_supported || []).to.include(requestObjectAlg);
  },
);
pm.test('authenticates clients with ' + authMethod, function () {
  pm.expect(config.token_endpoint_auth_methods_supported || ['client_secret_basic']).to.include(authMethod);
});
// prettier-ignore
pm.test('supports scopes openid and {{js scope}}', function () { // obflow:if scopeListed
  pm.expect(config.scopes_supported || []).to.include.members(['openid', '{{js scope}}']); // obflow:if scopeListed
}); // obflow:if scopeListed
pm.test('offers the openbanking_intent_id claim', function () {
  pm.expect(config.claims_supported || []).to.include('openbanking_intent_id');
});

env.set('authEndpoint', config.authorization_endpoint);
env.set('tokenEndpoint', config.token_endpoint);
