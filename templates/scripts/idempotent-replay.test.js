/* global obflowBody */
// The same x-idempotency-key and body again (OB R/W Data API Profile, "Idempotency"): "The ASPSP must not create a new
// resource for a POST request if it is determined to be an idempotent request" and answers 201 with the resource
// created first — the same id, created at the same time. Another id would be a second {{js resource}}.
const env = pm.environment;
const data = (obflowBody() || {}).Data || {};

pm.test('the replay answers the {{js resource}} created first (the same {{js idMember}}), not a second one', function () {
  pm.expect(data['{{js idMember}}'], 'a second {{js resource}}').to.equal(env.get('{{js idVariable}}'));
});
pm.test('the replay answers the {{js resource}} created first (the same CreationDateTime)', function () {
  pm.expect(data.CreationDateTime).to.equal(env.get('{{js createdVariable}}'));
});
