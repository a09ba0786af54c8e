/* global obflowJwt, obflowLocation */
// The answer to the consent URL, redirects not followed (newman notes "Redirects").
// headless: straight back to the registered redirect URI with code (+ id_token), state; the front-channel id_token's
// claims (OIDC Core §3.3.2.11 c_hash, FAPI 1 Advanced §5.2.2.1 s_hash) are checked; its signature cannot be here.
// interactive: the bank's login page instead; the runner then drives a browser with consent_url.
const env = pm.environment;
const mode = env.get('consent_mode') || 'headless';
const redirectUri = env.get('redirectUrl');
const responseType = env.get('response_type') || 'code id_token';
const location = pm.response.headers.get('Location') || '';
const where = obflowLocation(location);

if (mode === 'interactive') {
  pm.test('interactive consent does not land on the redirect URI', function () {
    pm.expect(pm.response.code, 'status').to.be.within(200, 399);
    pm.expect(where.base, 'Location').to.not.equal(redirectUri);
    pm.expect(where.query.code || where.fragment.code, 'code').to.equal(undefined);
  });
} else {
  // code id_token: parameters in the fragment (OAuth 2.0 Multiple Response Types §5); code: in the query.
  const params = responseType === 'code' ? where.query : where.fragment;
  pm.test('redirects (302/303)', function () {
    pm.expect(pm.response.code).to.be.oneOf([302, 303]);
  });
  pm.test('redirect is the registered redirect URI', function () {
    pm.expect(where.base).to.equal(redirectUri);
  });
  pm.test('no error in the redirect', function () {
    const error = params.error || where.query.error || where.fragment.error;
    pm.expect(error, error ? error + ': ' + (params.error_description || where.query.error_description || '') : '').to.equal(undefined);
  });
  pm.test('state comes back unchanged', function () {
    pm.expect(params.state).to.equal(env.get('state'));
  });
  pm.test('code is present in the ' + (responseType === 'code' ? 'query' : 'fragment'), function () {
    pm.expect(params.code).to.be.a('string').and.not.equal('');
  });
  if (params.iss !== undefined) {
    pm.test('iss (RFC 9207) is the issuer', function () {
      pm.expect(params.iss).to.equal(env.get('issuer'));
    });
  }
  env.set('auth_code', params.code || '');

  if (responseType === 'code id_token') {
    let token = { header: {}, payload: {} };
    pm.test('id_token is present and decodes', function () {
      pm.expect(params.id_token).to.be.a('string');
      token = obflowJwt.decode(params.id_token);
    });
    const claims = token.payload;
    pm.test('id_token is PS256 (registered id_token_signed_response_alg)', function () {
      pm.expect(token.header.alg).to.equal('PS256');
    });
    pm.test('id_token iss, aud and nonce are right', function () {
      pm.expect(claims.iss, 'iss').to.equal(env.get('issuer'));
      pm.expect([].concat(claims.aud), 'aud').to.include(env.get('_clientId'));
      pm.expect(claims.nonce, 'nonce').to.equal(env.get('nonce'));
    });
    pm.test('id_token openbanking_intent_id is the consent id', function () {
      pm.expect(claims.openbanking_intent_id).to.equal(env.get('consent_id'));
    });
    pm.test('id_token c_hash matches the code', function () {
      pm.expect(claims.c_hash).to.equal(obflowJwt.halfHash(params.code));
    });
    pm.test('id_token s_hash matches the state', function () {
      pm.expect(claims.s_hash).to.equal(obflowJwt.halfHash(params.state));
    });
    pm.test('id_token is not expired', function () {
      pm.expect(claims.exp * 1000).to.be.above(Date.now());
    });
    env.set('id_token', params.id_token || '');
  }
}
