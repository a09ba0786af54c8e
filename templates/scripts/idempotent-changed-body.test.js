/* global obflowBody */
// The same x-idempotency-key with another body (OB R/W Data API Profile, "Idempotency": "The TPP must not change the
// request body while using the same x-idempotency-key. If the TPP changes the request body, the ASPSP must not modify
// the end resource"): refused with a status the operation's OpenAPI file documents for a refused request, and no
// resource in the answer; the read that follows checks nothing changed.
const env = pm.environment;
const refusals = JSON.parse('{{js refusals}}');
let data = {};
try {
  data = (obflowBody() || {}).Data || {};
} catch {
  data = {};
}

pm.test('the same x-idempotency-key with another body is refused (' + refusals.join(' or ') + ')', function () {
  pm.expect(pm.response.code).to.be.oneOf(refusals);
});
pm.test('the answer names no {{js idMember}} other than the first one (no second resource)', function () {
  const id = data['{{js idMember}}'];
  pm.expect(id === undefined || id === env.get('{{js idVariable}}'), 'a new ' + '{{js idMember}}' + ' ' + id).to.equal(true);
});
