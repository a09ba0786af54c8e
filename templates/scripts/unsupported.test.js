/* global obflowSchemaErrors */
// An endpoint of the standard the bank does not implement (docs/bank-interface.md §4.5 rule 1, §4.7). OBIE Read/Write
// Data API Profile, "HTTP Status Codes": it must answer 404. The 404 may come without a body (the OpenAPI files'
// 404Error response defines none); a body, when sent, must be an OBErrorResponse1. The echo is check-echo.test.js.
const family = '{{js family}}';
const path = '{{js path}}';
const schemaName = '{{js schemaName}}';
const schemaTitle = '{{js schemaTitle}}';
const rule =
  'OBIE Read/Write Data API Profile, "HTTP Status Codes": "If an ASPSP has not implemented an API endpoint, it must respond with a 404 (Not Found) for requests to that URL."';
const status = pm.response.code;

pm.test(
  family + ': GET ' + path + " answers 404 Not Found (the standard's answer for an endpoint the bank does not implement)",
  function () {
    pm.expect(status, 'GET ' + path + ' answered ' + status + ' ' + pm.response.status + ', not 404; ' + rule).to.equal(404);
  },
);

// Only a 404 is judged further: another status already failed above, with the rule, and its body says nothing more.
const text = pm.response.text();
if (status === 404 && text.trim() !== '') {
  pm.test(family + ': the 404 body is JSON and valid against ' + schemaTitle, function () {
    pm.expect(pm.response.headers.get('Content-Type') || '', 'Content-Type of a 404 with a body').to.match(/^application\/json\b/i);
    const errors = obflowSchemaErrors(schemaName, schemaText, JSON.parse(text));
    pm.expect(errors === '', errors).to.equal(true);
  });
}

// The schema {{js schemaName}} (docs/collections.md "Schemas"), without its annotations.
function schemaText() {
  return '{{js schemaText}}';
}
