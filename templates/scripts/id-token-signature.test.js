/* global obflowPss */
// FAPI 1 Advanced §5.2.2.1 / §5.2.3.1 item 3: the hybrid flow's id_token is a detached signature of the authorisation
// response, so its signature is verified before the code is used (OIDC Core §3.1.3.7 item 6), with the jwks_uri key
// its kid names (bank_jwks). Headless only: interactively the runner reads the redirect and verifies it locally.
const env = pm.environment;
const idToken =
  (env.get('consent_mode') || 'headless') === 'headless' && (env.get('response_type') || 'code id_token') === 'code id_token'
    ? env.get('id_token') || ''
    : '';

if (idToken !== '') {
  pm.test(
    'id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6, FAPI 1 Advanced §5.2.2.1)',
    function () {
      const problem = obflowPss.verifyJws(idToken, JSON.parse(env.get('bank_jwks') || '[]'));
      pm.expect(problem === '', problem).to.equal(true);
    },
  );
}
