/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A body checked against one of the collection's JSON schemas. The sandbox bundles ajv 6 (JSON Schema draft-07); the
// schemas are derived for it (src/generate/schemas.ts). The sandbox keeps a module object for the whole run: compiled
// validators are kept on it, so a 100-page transactions loop compiles its schema once. The schema was checked against
// the draft-07 meta-schema when generated (test/unit/generate.test.ts): skipping the meta-schema here makes compiling
// several times faster. Returns '' when the body is valid, else ajv's description of every error.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function obflowSchemaErrors(name, text, body) {
  const Ajv = require('ajv');
  const cache = Ajv.obflowValidators || (Ajv.obflowValidators = {});
  if (cache[name] === undefined) {
    const ajv = new Ajv({ allErrors: true, meta: false, validateSchema: false });
    const schema = JSON.parse(text);
    delete schema.$schema;
    cache[name] = { ajv: ajv, validate: ajv.compile(schema) };
  }
  const validate = cache[name].validate;
  return validate(body) ? '' : cache[name].ajv.errorsText(validate.errors, { dataVar: 'body' });
}
