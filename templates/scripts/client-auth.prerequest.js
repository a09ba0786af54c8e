/* global obflowPssSign */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// Client authentication at the token endpoint as the client registered it (token_endpoint_auth_method, OIDC Core §9).
// The request carries client_secret_basic's `Authorization: Basic` with basicToken (docs/bank-interface.md §2.1);
// private_key_jwt replaces it with a client assertion (RFC 7523 §2.2, §3: iss = sub = client id, aud = the token
// endpoint, a fresh jti, iat, a short exp) signed PS256 here with the `signing_key` secret and `signing_kid`;
// tls_client_auth sends client_id only (RFC 8705 §2.1: the transport certificate is the credential, no secret).
const env = pm.environment;
const method = env.get('token_endpoint_auth_method') || '{{js defaultAuthMethod}}';
if (method !== 'client_secret_basic') {
  const uuid = require('uuid');
  const clientId = env.get('_clientId');
  pm.request.headers.remove('Authorization');
  pm.request.body.urlencoded.add({ key: 'client_id', value: clientId });
  if (method === 'private_key_jwt') {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: clientId,
      sub: clientId,
      aud: env.get('{{js audienceVariable}}'),
      jti: uuid.v4(),
      iat: now,
      exp: now + Number('{{js lifetimeSeconds}}'),
    };
    const assertion = obflowPssSign.signJwt(claims, env.get('signing_key'), env.get('signing_kid'));
    // Kept as a secret of the run too, so the runner's redaction knows it wherever the request is reported.
    env.set('client_assertion', assertion);
    pm.request.body.urlencoded.add({ key: 'client_assertion_type', value: '{{js assertionType}}' });
    pm.request.body.urlencoded.add({ key: 'client_assertion', value: assertion });
  } else if (method !== 'tls_client_auth') {
    throw new Error(
      'token_endpoint_auth_method ' + method + ' is not one obflow speaks (client_secret_basic, private_key_jwt, tls_client_auth)',
    );
  }
}
