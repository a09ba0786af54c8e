/* global obflowJwsVerify */
// The bank signs every answer of these APIs that has a body, refusals too (the OpenAPI files list x-jws-signature
// among their headers; OB R/W Data API Profile, "Message Signing": "The TPP should verify the signature of API
// responses"): verified over the answer's exact bytes with the bank's key (bank_signing_jwks), its iss the bank's
// (bank_jws_iss, else obParticipantId: "When issued by an ASPSP of the form org-id") and tan jws_tan.
const env = pm.environment;
const bytes = pm.response.stream;
let binary = '';
if (bytes && typeof bytes.subarray === 'function') {
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
} else {
  binary = unescape(encodeURIComponent(pm.response.text()));
}

if (binary !== '') {
  pm.test(
    "the bank's x-jws-signature verifies: PS256, its key, iat, iss, tan, crit (OB R/W Data API Profile, Message Signing)",
    function () {
      const problems = obflowJwsVerify.problems(
        pm.response.headers.get('x-jws-signature'),
        binary,
        JSON.parse(env.get('bank_signing_jwks') || '[]'),
        {
          iss: env.get('bank_jws_iss') || env.get('obParticipantId'),
          tan: env.get('jws_tan') || 'openbanking.org.uk',
          now: Math.floor(Date.now() / 1000),
        },
      );
      pm.expect(problems, problems.join('; ')).to.eql([]);
      const counts = JSON.parse(env.get('signatures_checked') || '{}');
      counts.verified = (counts.verified || 0) + 1;
      env.set('signatures_checked', JSON.stringify(counts));
    },
  );
}
