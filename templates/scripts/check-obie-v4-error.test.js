/* global obflowBody, obflowSchemaErrors */
// A resource server's error answer against what OBL AIS v4.0 gives its status (the v4.0 OpenAPI file's responses):
// 400, 403 and 500 an OBErrorResponse1 body, each Errors[].ErrorCode an OBExternalStatusReason1Code whose HTTP Status
// Category in the OB Internal code set matches the status (U002 a 400, U028 a 403, U000 a 5xx); 401, 404, 405, 406,
// 415 and 429 no body. Never against the success schema.
const schemaName = '{{js schemaName}}';
const schemaTitle = '{{js schemaTitle}}';
const status = pm.response.code;
const empty = pm.response.text() === '';

if ([401, 404, 405, 406, 415, 429].indexOf(status) >= 0) {
  pm.test('error answer ' + status + ' has no body (OBL AIS v4.0)', function () {
    pm.expect(empty, 'the ' + status + ' answer has a body').to.equal(true);
  });
} else if (status >= 400) {
  pm.test('error answer ' + status + ' is valid against ' + schemaTitle, function () {
    const errors = obflowSchemaErrors(schemaName, schemaText, obflowBody());
    pm.expect(errors === '', errors).to.equal(true);
  });
  pm.test('error answer ' + status + ': every ErrorCode is a code set code of its HTTP category', function () {
    const categories = JSON.parse(schemaText())['x-obflow-http-status-category'] || {};
    const wrong = (((obflowBody() || {}).Errors || []).filter(Boolean) || [])
      .map(function (error) {
        const category = categories[error.ErrorCode];
        if (category === undefined) return error.ErrorCode + ' is not an OBExternalStatusReason1Code with an HTTP category';
        const fits = /^\dxx$/.test(category) ? String(status)[0] === category[0] : String(status) === category;
        return fits ? '' : error.ErrorCode + ' has HTTP category ' + category + ', not ' + status;
      })
      .filter(Boolean);
    pm.expect(wrong, wrong.join('; ')).to.eql([]);
  });
}

// The schema {{js schemaName}} (docs/collections.md "Schemas"), without its annotations.
function schemaText() {
  return '{{js schemaText}}';
}
