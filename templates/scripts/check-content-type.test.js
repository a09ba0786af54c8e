// The Content-Type the step's endpoint answers with (AIS v3.1 "Content-Type" for the AIS reads).
const contentType = '{{js contentType}}';

pm.test('Content-Type is ' + contentType, function () {
  pm.expect(pm.response.headers.get('Content-Type')).to.equal(contentType);
});
