/* global obflowLocation */
// FAPI 2.0 (flow.fapi "2.0"): the authorization response carries `iss` (RFC 9207 §2; FAPI 2.0 Security Profile
// §5.3.2.2 has the server send it, §5.3.3 the client check it), equal to the issuer of the discovery document (RFC 9207
// §2.4): a response without it may come from another authorization server (mix-up, RFC 9207 §1). psu-consent.test checks
// the value when present; this part makes it required. Headless only: interactive consent checks it in obflow's
// browser and manual drivers (src/run/consent/redirect.ts).
const env = pm.environment;
if ((env.get('consent_mode') || 'headless') !== 'interactive') {
  const where = obflowLocation(pm.response.headers.get('Location') || '');
  const params = (env.get('response_type') || 'code id_token') === 'code' ? where.query : where.fragment;
  pm.test('iss (RFC 9207 §2) is in the redirect and is the issuer (FAPI 2.0)', function () {
    pm.expect(params.iss, 'iss').to.be.a('string');
    pm.expect(params.iss, 'iss').to.equal(env.get('issuer'));
  });
  // RFC 9207 §2.4: the client must not go on with a response whose iss is missing or another issuer's, so the code
  // psu-consent.test wrote is taken back (plain newman's code exchange then has none to send).
  if (params.iss === undefined || params.iss !== env.get('issuer')) env.unset('auth_code');
}
