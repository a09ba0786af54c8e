/* global obflowUnsignedJwt, obflowPssSign */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// Pushed authorization request (RFC 9126 §2, flow.par): the parameters the consent URL would carry, with the request
// object (OIDC Core §6.1; RFC 9126 §3), go in this POST's form body; the client authenticates as at the token endpoint
// (client-auth.prerequest after this part). PKCE (RFC 7636 §4.1–4.2, S256): a fresh code_verifier kept for the code
// exchange, its challenge in the request object and the body.
const env = pm.environment;
const uuid = require('uuid');
const CryptoJS = require('crypto-js');
const lifetimeSeconds = Number('{{js lifetimeSeconds}}');
const scope = '{{js scope}}';
// FAPI 2.0 (flow.fapi): the request object's typ header, oauth-authz-req+jwt (RFC 9101 §10.8); '' otherwise (JWT).
const typ = '{{js typ}}';

const consentId = env.get('consent_id');
const clientId = env.get('_clientId');
const redirectUri = env.get('redirectUrl');
const responseType = env.get('response_type') || 'code id_token';
const loginHint = env.get('psu_login_hint') || '';
const state = uuid.v4();
const nonce = uuid.v4();
const now = Math.floor(Date.now() / 1000);
// RFC 7636 §4.1: 43 to 128 unreserved characters (two UUIDs: 73); §4.2: BASE64URL(SHA256(ASCII(code_verifier))).
const verifier = uuid.v4() + '-' + uuid.v4();
const challenge = CryptoJS.SHA256(verifier).toString(CryptoJS.enc.Base64).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

const intent = { value: consentId, essential: true };
const requestClaims = {
  iss: clientId,
  aud: env.get('issuer'),
  response_type: responseType,
  client_id: clientId,
  redirect_uri: redirectUri,
  scope: scope,
  state: state,
  nonce: nonce,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  iat: now,
  nbf: now,
  exp: now + lifetimeSeconds,
  jti: uuid.v4(),
  claims: {
    id_token: {
      openbanking_intent_id: intent,
      acr: { essential: true, values: ['urn:openbanking:psd2:sca', 'urn:openbanking:psd2:ca'] },
    },
    userinfo: { openbanking_intent_id: intent },
  },
};
if (loginHint !== '') requestClaims.login_hint = loginHint;
// JARM (flow.jarm): response_mode=jwt for code (JARM §2.3.1, FAPI 1 Advanced §5.2.2-2). // obflow:if jarm
if (responseType === 'code') requestClaims.response_mode = 'jwt'; // obflow:if jarm
const requestObject =
  env.get('request_object_signing_alg') === 'PS256'
    ? obflowPssSign.signJwt(requestClaims, env.get('signing_key'), env.get('signing_kid'), typ || undefined)
    : obflowUnsignedJwt(requestClaims, typ || undefined);

const params = [
  ['response_type', responseType],
  ['redirect_uri', redirectUri],
  ['scope', scope],
  ['state', state],
  ['nonce', nonce],
  ['code_challenge', challenge],
  ['code_challenge_method', 'S256'],
];
if (loginHint !== '') params.push(['login_hint', loginHint]);
if (responseType === 'code') params.push(['response_mode', 'jwt']); // obflow:if jarm
params.push(['request', requestObject]);
params.forEach(function (pair) {
  pm.request.body.urlencoded.add({ key: pair[0], value: pair[1] });
});

env.set('state', state);
env.set('nonce', nonce);
env.set('code_verifier', verifier);
