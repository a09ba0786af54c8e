/* global obflowBody, obflowSchemaErrors */
// A resource server's error answer against what OBIE AIS v3.1 gives its status (the OpenAPI files' responses): 400 and
// 500 an OBErrorResponse1 body; 403 one in v3.1.11 and none in v3.1.1 (either passes); 401, 404, 405, 406, 415 and
// 429 no body. Never against the success schema.
const schemaName = '{{js schemaName}}';
const schemaTitle = '{{js schemaTitle}}';
const status = pm.response.code;
const empty = pm.response.text() === '';

if ([401, 404, 405, 406, 415, 429].indexOf(status) >= 0) {
  pm.test('error answer ' + status + ' has no body (OBIE AIS v3.1)', function () {
    pm.expect(empty, 'the ' + status + ' answer has a body').to.equal(true);
  });
} else if (status >= 400 && !(status === 403 && empty)) {
  pm.test('error answer ' + status + ' is valid against ' + schemaTitle, function () {
    const errors = obflowSchemaErrors(schemaName, schemaText, obflowBody());
    pm.expect(errors === '', errors).to.equal(true);
  });
}

// The schema {{js schemaName}} (docs/collections.md "Schemas"), without its annotations.
function schemaText() {
  return '{{js schemaText}}';
}
