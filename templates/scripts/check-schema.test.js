/* global obflowBody, obflowSchemaErrors */
// The body against its JSON schema, kept once per collection in a collection variable (lib-validate.js reads it).
const schemaVariable = '{{js schemaVariable}}';
const schemaTitle = '{{js schemaTitle}}';

pm.test('body is valid against ' + schemaTitle, function () {
  const errors = obflowSchemaErrors(schemaVariable, obflowBody());
  pm.expect(errors === '', errors).to.equal(true);
});
