/* global obflowBody */
// RFC 9126 §2.2: 201 with request_uri and expires_in; the consent URL then carries only client_id and request_uri
// (RFC 9126 §4). A request_uri is used once: with interactive consent the PSU's browser presents it (psu_consent_url;
// the authorization GET is skipped, par-interactive.prerequest).
const env = pm.environment;
const answer = pm.response.code === 201 ? obflowBody() : {};

if (pm.response.code === 201) {
  pm.test('request_uri and expires_in (RFC 9126 §2.2)', function () {
    pm.expect(answer.request_uri, 'request_uri').to.be.a('string').and.not.equal('');
    pm.expect(answer.expires_in, 'expires_in').to.be.a('number').and.above(0);
  });
}
const authEndpoint = env.get('authEndpoint');
const url =
  authEndpoint +
  (authEndpoint.indexOf('?') >= 0 ? '&' : '?') +
  'client_id=' +
  encodeURIComponent(env.get('_clientId')) +
  '&request_uri=' +
  encodeURIComponent(answer.request_uri || '');
env.set('consent_url', url);
env.set('psu_consent_url', env.get('consent_mode') === 'interactive' ? url : '');
