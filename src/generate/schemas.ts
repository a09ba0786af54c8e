// Response schemas of the AIS endpoints: derived from the OBIE OpenAPI files (3.0 → JSON Schema draft-07) and vendored.
// Why the intersection of v3.1.1 and v3.1.11: see docs/collections.md ("Schemas").

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** The two OBIE Account and Transaction API files (in OBFLOW_SPECS_DIR, see README) the intersection is taken over. */
export const SPEC_VERSIONS = ['3.1.1', '3.1.11'] as const;
export type SpecVersion = (typeof SPEC_VERSIONS)[number];

export const SPEC_FILE_NAMES: Record<SpecVersion, string> = {
  '3.1.1': 'obie-account-info-v3.1.1.yaml',
  '3.1.11': 'obie-account-info-v3.1.11.yaml',
};

/** One endpoint response the collections validate: OpenAPI path (relative to /open-banking/v3.1/aisp), method, status. */
export interface SchemaTarget {
  path: string;
  method: 'get' | 'post';
  status: string;
}

/** Every derived schema by its file name (without `.json`) under templates/schemas/. */
export const SCHEMA_TARGETS = {
  'obie-consent-created': { path: '/account-access-consents', method: 'post', status: '201' },
  'obie-consent-read': { path: '/account-access-consents/{ConsentId}', method: 'get', status: '200' },
  'obie-accounts': { path: '/accounts', method: 'get', status: '200' },
  'obie-account': { path: '/accounts/{AccountId}', method: 'get', status: '200' },
  'obie-account-balances': { path: '/accounts/{AccountId}/balances', method: 'get', status: '200' },
  'obie-balances': { path: '/balances', method: 'get', status: '200' },
  'obie-account-transactions': { path: '/accounts/{AccountId}/transactions', method: 'get', status: '200' },
  // Any path: the standard's error body (OBErrorResponse1, AIS v3.1 "Error Response"), e.g. of a 404 that has one.
  'obie-error': { path: '', method: 'get', status: '4xx' },
} as const satisfies Record<string, SchemaTarget>;
export type SchemaName = keyof typeof SCHEMA_TARGETS;
export const SCHEMA_NAMES = Object.keys(SCHEMA_TARGETS).sort() as SchemaName[];

/** A JSON value as parsed from YAML/JSON. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(doc: Json, pointer: string): Json {
  let node: Json | undefined = doc;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : undefined;
    if (node === undefined) throw new TypeError(`unresolvable $ref ${pointer}`);
  }
  return node;
}

/** Follows component-level $refs (responses, schemas) until a non-$ref object. */
function deref(doc: Json, node: Json): Json {
  let current = node;
  while (isObject(current) && typeof current.$ref === 'string') current = at(doc, current.$ref);
  return current;
}

// ajv 6 (bundled in newman 6.2's script sandbox) throws on unknown formats; these two it knows and OBIE uses.
const KEPT_FORMATS = new Set(['date-time', 'uri']);
// OpenAPI 3.0 Schema Object keywords that are not JSON Schema (or only annotations that would make ajv strict modes fail).
const DROPPED_KEYWORDS = new Set([
  'example',
  'examples',
  'xml',
  'externalDocs',
  'discriminator',
  'deprecated',
  'nullable',
  'readOnly',
  'writeOnly',
]);

/** OpenAPI 3.0 Schema Object → JSON Schema draft-07, $refs rewritten to `#/definitions/<prefix><Name>`. */
function convert(node: Json, prefix: string, seen: Set<string>): Json {
  if (Array.isArray(node)) return node.map((item) => convert(item, prefix, seen));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (value === undefined || DROPPED_KEYWORDS.has(key)) continue;
    if (key === '$ref' && typeof value === 'string') {
      const name = value.replace('#/components/schemas/', '');
      seen.add(name);
      out.$ref = `#/definitions/${prefix}${name}`;
    } else if (key === 'oneOf') {
      // v3.1.1's Basic/Detail unions (OBTransaction5, OBAccount3, …) are `oneOf` of two closed objects with the same
      // required fields: a Basic transaction matches both, so `oneOf` rejects every valid Basic body. v3.1.2+ dropped
      // the unions; `anyOf` keeps what the spec meant ("one of these shapes"). See docs/collections.md.
      out.anyOf = convert(value, prefix, seen);
    } else if (key === 'format') {
      if (typeof value === 'string' && KEPT_FORMATS.has(value)) out.format = value;
    } else if (key === 'properties' && isObject(value)) {
      // Property names are data, not keywords: convert each value, keep every name.
      const props: JsonObject = {};
      for (const name of Object.keys(value)) props[name] = convert(value[name] as Json, prefix, seen);
      out.properties = props;
    } else {
      out[key] = convert(value, prefix, seen);
    }
  }
  // OpenAPI 3.0 `nullable: true` is `type: [T, "null"]` in JSON Schema.
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function responseSchemaRef(doc: Json, target: SchemaTarget): string {
  if (target.path === '') return '#/components/schemas/OBErrorResponse1';
  const operation = at(doc, `#/paths/${target.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${target.method}`);
  if (!isObject(operation) || !isObject(operation.responses)) throw new TypeError(`no responses for ${target.method} ${target.path}`);
  const response = deref(doc, operation.responses[target.status] ?? null);
  if (!isObject(response) || !isObject(response.content))
    throw new TypeError(`no content for ${target.method} ${target.path} ${target.status}`);
  const media = response.content['application/json; charset=utf-8'] ?? response.content['application/json'];
  if (!isObject(media) || !isObject(media.schema) || typeof media.schema.$ref !== 'string') {
    throw new TypeError(`no JSON schema $ref for ${target.method} ${target.path} ${target.status}`);
  }
  return media.schema.$ref;
}

/** The OBIE files, parsed: what `deriveSchemas` needs. */
export type SpecDocuments = Record<SpecVersion, Json>;

/** Reads and parses the two OBIE files from a folder (e.g. `<repo>/../shared/specs`). */
export function readSpecDocuments(specsDir: string): SpecDocuments {
  const out = {} as SpecDocuments;
  for (const version of SPEC_VERSIONS) out[version] = parse(readFileSync(join(specsDir, SPEC_FILE_NAMES[version]), 'utf8')) as Json;
  return out;
}

/** Pure: the draft-07 schema of one endpoint response, valid only for bodies valid under every spec version. */
export function deriveSchema(docs: SpecDocuments, name: SchemaName): JsonObject {
  const target: SchemaTarget = SCHEMA_TARGETS[name];
  const definitions: JsonObject = {};
  const allOf: Json[] = [];
  for (const version of SPEC_VERSIONS) {
    const doc = docs[version];
    const prefix = `v${version}.`;
    const rootName = responseSchemaRef(doc, target).replace('#/components/schemas/', '');
    const pending = [rootName];
    const done = new Set<string>();
    while (pending.length > 0) {
      const schemaName = pending.pop() as string;
      if (done.has(schemaName)) continue;
      done.add(schemaName);
      const seen = new Set<string>();
      definitions[`${prefix}${schemaName}`] = convert(at(doc, `#/components/schemas/${schemaName}`), prefix, seen);
      pending.push(...seen);
    }
    allOf.push({ $ref: `#/definitions/${prefix}${rootName}` });
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `${target.method.toUpperCase()} ${target.path || '(any)'} ${target.status} (OBIE AIS v${SPEC_VERSIONS.join(' ∩ v')})`,
    allOf,
    definitions,
  };
}

/** Pure: every schema, keyed by name. */
export function deriveSchemas(docs: SpecDocuments): Record<SchemaName, JsonObject> {
  const out = {} as Record<SchemaName, JsonObject>;
  for (const name of SCHEMA_NAMES) out[name] = deriveSchema(docs, name);
  return out;
}

/** Pure: the vendored schema files (templates/schemas/) for the given OBIE spec folder. */
export function buildSchemaFiles(specsDir: string): { fileName: string; json: string }[] {
  const schemas = deriveSchemas(readSpecDocuments(specsDir));
  return SCHEMA_NAMES.map((name) => ({ fileName: `${name}.json`, json: `${JSON.stringify(schemas[name], null, 2)}\n` }));
}
