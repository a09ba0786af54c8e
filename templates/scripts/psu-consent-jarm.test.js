/* global obflowJwt, obflowPss, obflowLocation */
// JARM (flow.jarm; JWT Secured Authorization Response Mode for OAuth 2.0, FAPI 1 Advanced §5.2.2-2): for
// response_type code the authorisation response is one JWT in `response` (query, JARM §2.3.1 query.jwt), verified
// before the code is taken: the signature with the jwks_uri key its kid names (§2.4 item 3; PS256, FAPI 1 Advanced
// §8.6), iss = the issuer (§2.4 item 1), aud = the client id (§2.4 item 2), exp in the future (§2.4 item 4); then state
// and code from its claims. JARM collections are generated for response_type code (flow.jarm): another one fails here.
const env = pm.environment;
const mode = env.get('consent_mode') || 'headless';
const responseType = env.get('response_type') || 'code id_token';

if (responseType !== 'code') {
  pm.test('response_type is code (flow.jarm collections ask JARM for code only)', function () {
    pm.expect(responseType).to.equal('code');
  });
} else if (mode === 'headless') {
  const where = obflowLocation(pm.response.headers.get('Location') || '');
  const response = where.query.response;
  let claims = {};
  pm.test('redirects (302/303) to the registered redirect URI', function () {
    pm.expect(pm.response.code).to.be.oneOf([302, 303]);
    pm.expect(where.base).to.equal(env.get('redirectUrl'));
  });
  pm.test('no error in the redirect', function () {
    const error = where.query.error;
    pm.expect(error, error ? error + ': ' + (where.query.error_description || '') : '').to.equal(undefined);
  });
  pm.test('the response JWT is present and decodes (JARM §2.3.1 query.jwt)', function () {
    pm.expect(response, 'response').to.be.a('string');
    claims = obflowJwt.decode(response).payload;
  });
  pm.test('the response JWT signature verifies with the jwks_uri key named by kid (JARM §2.4 item 3)', function () {
    const problem = obflowPss.verifyJws(response || '', JSON.parse(env.get('bank_jwks') || '[]'));
    pm.expect(problem === '', problem).to.equal(true);
  });
  pm.test('the response JWT iss is the issuer (JARM §2.4 item 1)', function () {
    pm.expect(claims.iss).to.equal(env.get('issuer'));
  });
  pm.test('the response JWT aud is the client id (JARM §2.4 item 2)', function () {
    pm.expect([].concat(claims.aud)).to.include(env.get('_clientId'));
  });
  pm.test('the response JWT has not expired (JARM §2.4 item 4)', function () {
    pm.expect(claims.exp, 'exp')
      .to.be.a('number')
      .and.above(Math.floor(Date.now() / 1000) - 30);
  });
  pm.test('no error in the response JWT; state comes back unchanged; code is present', function () {
    pm.expect(claims.error, claims.error ? claims.error + ': ' + (claims.error_description || '') : '').to.equal(undefined);
    pm.expect(claims.state, 'state').to.equal(env.get('state'));
    pm.expect(claims.code, 'code').to.be.a('string').and.not.equal('');
  });
  env.set('auth_code', typeof claims.code === 'string' ? claims.code : '');
  env.set('id_token', '');
}
