/* global obflowUnsignedJwt, obflowPssSign */
/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// PSU consent URL (OIDC Core §6.1 request object; unsigned when the registration asked for request_object_signing_alg
// none, docs/bank-interface.md §2.1; PS256 with the `signing_key` secret when it asked for PS256, FAPI 1 Advanced
// Part 2 §5.2.2): authEndpoint + response_type, client_id, redirect_uri, scope, state, nonce,
// login_hint and `request`, whose claims ask for the consent id as an essential openbanking_intent_id.
const env = pm.environment;
const uuid = require('uuid');
const lifetimeSeconds = Number('{{js lifetimeSeconds}}');
const scope = '{{js scope}}';

const consentId = env.get('consent_id');
const clientId = env.get('_clientId');
const redirectUri = env.get('redirectUrl');
const responseType = env.get('response_type') || 'code id_token';
const loginHint = env.get('psu_login_hint') || '';
const state = uuid.v4();
const nonce = uuid.v4();
const now = Math.floor(Date.now() / 1000);

const intent = { value: consentId, essential: true };
const authEndpoint = env.get('authEndpoint');

// Builds the consent URL; each call mints a fresh request-object jti (a bank may refuse one presented twice).
function consentUrl() {
  const requestClaims = {
    iss: clientId,
    aud: env.get('issuer'),
    response_type: responseType,
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: scope,
    state: state,
    nonce: nonce,
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
  // FAPI 1 Advanced §5.2.2-10: a strict bank reads only what the request object carries, so login_hint goes in it too.
  if (loginHint !== '') requestClaims.login_hint = loginHint;
  // JARM (flow.jarm): response_mode=jwt for code (JARM §2.3.1, FAPI 1 Advanced §5.2.2-2). // obflow:if jarm
  if (responseType === 'code') requestClaims.response_mode = 'jwt'; // obflow:if jarm
  const requestObject =
    env.get('request_object_signing_alg') === 'PS256'
      ? obflowPssSign.signJwt(requestClaims, env.get('signing_key'), env.get('signing_kid'))
      : obflowUnsignedJwt(requestClaims);

  const params = [
    ['response_type', responseType],
    ['client_id', clientId],
    ['redirect_uri', redirectUri],
    ['scope', scope],
    ['state', state],
    ['nonce', nonce],
  ];
  if (loginHint !== '') params.push(['login_hint', loginHint]);
  if (responseType === 'code') params.push(['response_mode', 'jwt']); // obflow:if jarm
  params.push(['request', requestObject]);
  const query = params
    .map(function (pair) {
      return encodeURIComponent(pair[0]) + '=' + encodeURIComponent(pair[1]);
    })
    .join('&');
  return authEndpoint + (authEndpoint.indexOf('?') >= 0 ? '&' : '?') + query;
}

env.set('state', state);
env.set('nonce', nonce);
env.set('consent_url', consentUrl());
// Interactive: this request only checks the URL leads to the login page; the PSU's browser gets its own URL (same state
// and nonce, fresh jti), so no request object is presented twice.
env.set('psu_consent_url', env.get('consent_mode') === 'interactive' ? consentUrl() : '');
