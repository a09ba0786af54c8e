/* global obflowErrorAnswer */
// The status the step expects. A step whose own script judges the status (a redirect, the unsupported calls' 404)
// leaves this part out. On another status the message names the bank's error (lib-error-answer.js), and the checks of
// the expected answer after this part do not run: the error answer is checked against its own shape instead
// (src/generate/collections.ts, renderScript).
const expectedStatus = Number('{{js status}}');

pm.test('status is ' + expectedStatus, function () {
  if (pm.response.code !== expectedStatus) pm.expect.fail('the bank answered ' + obflowErrorAnswer() + ', not ' + expectedStatus);
});
