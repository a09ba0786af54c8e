/* global obflowJwsSign */
// The body is signed as it is sent (OB R/W Data API Profile, "Message Signing": the TPP signs the HTTP body): its
// Postman variables are resolved here and the resolved text is set as the body, so the bytes newman sends are the bytes
// signed (postman-runtime resolves variables after this script; none are left). The signature is a detached JWS
// (lib-jws-sign.js) with the signing key (signing_key, signing_kid), iss = {org_id}/{software_id} of the software
// statement, tan = jws_tan; sent as x-jws-signature.
const env = pm.environment;
const body = pm.variables.replaceIn(pm.request.body.raw);
const unresolved = body.match(/\{\{[^}]*\}\}/g);
if (unresolved !== null) throw new Error('the signed body names variables no setting filled: ' + unresolved.join(', '));
pm.request.body.update({ mode: 'raw', raw: body, options: { raw: { language: 'json' } } });
const signature = obflowJwsSign.detached(body, env.get('signing_key'), env.get('signing_kid'), {
  iat: Math.floor(Date.now() / 1000),
  iss: env.get('orgId') + '/' + env.get('softwareId'),
  tan: env.get('jws_tan') || 'openbanking.org.uk',
});
pm.request.headers.upsert({ key: 'x-jws-signature', value: signature });
const counts = JSON.parse(env.get('signatures_checked') || '{}');
counts.signed = (counts.signed || 0) + 1;
env.set('signatures_checked', JSON.stringify(counts));
