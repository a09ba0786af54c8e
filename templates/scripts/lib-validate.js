/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A body checked against a JSON schema. Each schema travels with the check that uses it, as JSON text returned by
// `text()` (see docs/collections.md "Schemas"): a script carries only the schemas it checks against, and no execution
// carries one in its variables. The sandbox bundles ajv 6 (JSON Schema draft-07); the schemas are derived for it
// (src/generate/schemas.ts). The sandbox keeps a module object for the whole run: compiled validators are kept on it
// by schema name, so a 100-page transactions loop parses and compiles its schema once; where nothing survives between
// executions (a single send in the Postman app), the text is parsed each time. The schema was checked against the
// draft-07 meta-schema when generated (test/unit/generate.test.ts): skipping the meta-schema here makes compiling
// several times faster. Returns '' when the body is valid, else ajv's description of every error.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function obflowSchemaErrors(name, text, body) {
  const Ajv = require('ajv');
  const cache = Ajv.obflowValidators || (Ajv.obflowValidators = {});
  if (!Object.prototype.hasOwnProperty.call(cache, name)) {
    const ajv = new Ajv({ allErrors: true, meta: false, validateSchema: false });
    const schema = JSON.parse(text());
    delete schema.$schema;
    cache[name] = { ajv: ajv, validate: ajv.compile(schema) };
  }
  const validate = cache[name].validate;
  return validate(body) ? '' : cache[name].ajv.errorsText(validate.errors, { dataVar: 'body' });
}
