/* global obflowBody, obflowSchemaErrors */
// Checks every response gets: status, x-fapi-interaction-id echo, Content-Type and the body's JSON schema.
const expectedStatusText = '{{js status}}';
const echo = '{{js echo}}';
const contentType = '{{js contentType}}';
const schemaName = '{{js schemaName}}';
const schemaTitle = '{{js schemaTitle}}';
const schemaText = '{{js schema}}';

// Empty: the step's own test script checks the status (e.g. a redirect, 302 or 303).
if (expectedStatusText !== '') {
  const expectedStatus = Number(expectedStatusText);
  pm.test('status is ' + expectedStatus, function () {
    pm.response.to.have.status(expectedStatus);
  });
}

const sentInteractionId = pm.environment.get('x_fapi_interaction_id');
const echoed = pm.response.headers.get('x-fapi-interaction-id');
if (echo === 'required') {
  // FAPI 1 Baseline §6.2.1 item 11: the resource server echoes the client's x-fapi-interaction-id.
  pm.test('x-fapi-interaction-id is echoed', function () {
    pm.expect(echoed, 'x-fapi-interaction-id response header').to.equal(sentInteractionId);
  });
} else if (echoed !== undefined) {
  pm.test('x-fapi-interaction-id, when echoed, is ours', function () {
    pm.expect(echoed).to.equal(sentInteractionId);
  });
}

if (contentType !== '') {
  pm.test('Content-Type is ' + contentType, function () {
    pm.expect(pm.response.headers.get('Content-Type')).to.equal(contentType);
  });
}

if (schemaText !== '') {
  pm.test('body is valid against ' + schemaTitle, function () {
    const errors = obflowSchemaErrors(schemaName, schemaText, obflowBody());
    pm.expect(errors === '', errors).to.equal(true);
  });
}
