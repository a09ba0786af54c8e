/* global obflowBody, obflowSchemaErrors */
// The body against its JSON schema. The schema travels with this check, as JSON text at the end of the part: only
// the executions that check against it carry it, and lib-validate.js parses and compiles it once per run.
const schemaName = '{{js schemaName}}';
const schemaTitle = '{{js schemaTitle}}';

pm.test('body is valid against ' + schemaTitle, function () {
  const errors = obflowSchemaErrors(schemaName, schemaText, obflowBody());
  pm.expect(errors === '', errors).to.equal(true);
});

// The schema {{js schemaName}} (docs/collections.md "Schemas"), without its annotations.
function schemaText() {
  return '{{js schemaText}}';
}
