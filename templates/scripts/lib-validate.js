/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A body checked against one of the collection's JSON schemas. Each schema is in the collection once, as a collection
// variable (`schema:<name>`, see docs/collections.md "Schemas"), whichever requests check against it. The sandbox
// bundles ajv 6 (JSON Schema draft-07); the schemas are derived for it (src/generate/schemas.ts). The sandbox keeps a
// module object for the whole run: compiled validators are kept on it, so a 100-page transactions loop reads and
// compiles its schema once. The schema was checked against the draft-07 meta-schema when generated
// (test/unit/generate.test.ts): skipping the meta-schema here makes compiling several times faster. Returns '' when
// the body is valid, else ajv's description of every error.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function obflowSchemaErrors(variable, body) {
  const Ajv = require('ajv');
  const cache = Ajv.obflowValidators || (Ajv.obflowValidators = {});
  if (cache[variable] === undefined) {
    const text = pm.collectionVariables.get(variable);
    if (typeof text !== 'string' || text === '')
      throw new Error('no JSON schema in the collection variable ' + variable + ' (is this request in its obflow collection?)');
    const ajv = new Ajv({ allErrors: true, meta: false, validateSchema: false });
    const schema = JSON.parse(text);
    delete schema.$schema;
    cache[variable] = { ajv: ajv, validate: ajv.compile(schema) };
  }
  const validate = cache[variable].validate;
  return validate(body) ? '' : cache[variable].ajv.errorsText(validate.errors, { dataVar: 'body' });
}
