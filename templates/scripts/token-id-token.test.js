/* global obflowBody, obflowPss */
// The token response's id_token (OIDC Core §3.1.3.3): its signature is verified like the authorisation response's
// (§3.1.3.7 item 6) with the jwks_uri key its kid names, and it is kept as token_id_token for the runner's own checks.
const env = pm.environment;
const token = obflowBody();
const idToken = typeof token.id_token === 'string' ? token.id_token : '';

if (idToken !== '') {
  pm.test('token id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6)', function () {
    const problem = obflowPss.verifyJws(idToken, JSON.parse(env.get('bank_jwks') || '[]'));
    pm.expect(problem === '', problem).to.equal(true);
  });
}
env.set('token_id_token', idToken);
