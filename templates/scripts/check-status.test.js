// The status the step expects. A step whose own script judges the status (a redirect, the unsupported calls' 404)
// leaves this part out.
const expectedStatus = Number('{{js status}}');

pm.test('status is ' + expectedStatus, function () {
  pm.response.to.have.status(expectedStatus);
});
