// Response schemas of the AIS endpoints: derived from the OBIE OpenAPI files (3.0 → JSON Schema draft-07) and vendored.
// v3.1: the intersection of v3.1.1 and v3.1.11 (docs/collections.md, "Schemas"); v4.0: the v4.0 file alone,
// its error schema carrying the HTTP Status Category of each OBExternalStatusReason1Code from the OB Internal code set.

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

/** The v4.0 Account and Transaction API file and the OB Internal code set (error codes' HTTP categories). */
export const V4_SPEC_FILE_NAME = 'obie-account-info-v4.0.yaml';
export const V4_CODESET_FILE_NAME = 'obl-internal-codeset.csv';

/** The keyword of obie-v4-error.json that maps each OBExternalStatusReason1Code with a category to it ("400", "5xx"):
 *  read by templates/scripts/check-obie-v4-error.test.js, ignored by ajv. */
export const HTTP_CATEGORY_KEYWORD = 'x-obflow-http-status-category';

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

/** The v4.0 twins of SCHEMA_TARGETS (same endpoints and statuses), derived from the v4.0 file alone. */
export const V4_SCHEMA_TARGETS = {
  'obie-v4-consent-created': SCHEMA_TARGETS['obie-consent-created'],
  'obie-v4-consent-read': SCHEMA_TARGETS['obie-consent-read'],
  'obie-v4-accounts': SCHEMA_TARGETS['obie-accounts'],
  'obie-v4-account': SCHEMA_TARGETS['obie-account'],
  'obie-v4-account-balances': SCHEMA_TARGETS['obie-account-balances'],
  'obie-v4-balances': SCHEMA_TARGETS['obie-balances'],
  'obie-v4-account-transactions': SCHEMA_TARGETS['obie-account-transactions'],
  'obie-v4-error': SCHEMA_TARGETS['obie-error'],
} as const satisfies Record<`obie-v4-${string}`, SchemaTarget>;

/** The OBIE files of the other API families, each version's own (v3.1: the 3.1.11 file alone; there is no older file
 *  whose bodies a v3.1 bank may still send, as AIS v3.1.1's). */
export const FAMILY_SPEC_FILE_NAMES = {
  pisp: { '3.1': 'obie-payment-initiation-v3.1.11.yaml', '4.0': 'obie-payment-initiation-v4.0.yaml' },
  cbpii: { '3.1': 'obie-confirmation-funds-v3.1.11.yaml', '4.0': 'obie-confirmation-funds-v4.0.yaml' },
  vrp: { '3.1': 'obie-vrp-v3.1.11.yaml', '4.0': 'obie-vrp-v4.0.yaml' },
  // The commercial VRP file: v4.0 only (its VRPTypes CVRP1/2/3; its payment Status has no CANC).
  cvrp: { '4.0': 'obl-cvrp-v4.0.yaml' },
} as const satisfies Record<string, Partial<Record<'3.1' | '4.0', string>>>;
export type FamilySpec = keyof typeof FAMILY_SPEC_FILE_NAMES;

/** One response of another family's API: which API's file, and the endpoint (relative to its base path). */
export interface FamilySchemaTarget extends SchemaTarget {
  api: FamilySpec;
  method: 'get' | 'post';
}

/** One response of a family's file: its API, method, status and endpoint (relative to the file's base path). */
function target(api: FamilySpec, method: FamilySchemaTarget['method'], status: string, path: string): FamilySchemaTarget {
  return { api, path, method, status };
}

/** The VRP responses the collections validate, of the VRP file (`obie-vrp-…`) or the cVRP file (`obie-cvrp-…`, whose
 *  only version is v4.0: `obie-v4-cvrp-…`). */
function vrpTargets<Api extends 'vrp' | 'cvrp'>(api: Api) {
  return {
    [`obie-${api}-consent-created`]: target(api, 'post', '201', '/domestic-vrp-consents'),
    [`obie-${api}-consent-read`]: target(api, 'get', '200', '/domestic-vrp-consents/{ConsentId}'),
    [`obie-${api}-funds-confirmation`]: target(api, 'post', '201', '/domestic-vrp-consents/{ConsentId}/funds-confirmation'),
    [`obie-${api}-payment-created`]: target(api, 'post', '201', '/domestic-vrps'),
    [`obie-${api}-payment-read`]: target(api, 'get', '200', '/domestic-vrps/{DomesticVRPId}'),
    [`obie-${api}-payment-details`]: target(api, 'get', '200', '/domestic-vrps/{DomesticVRPId}/payment-details'),
    [`obie-${api}-error`]: target(api, 'get', '4xx', ''),
  } satisfies Record<string, FamilySchemaTarget> as Record<
    `obie-${Api}-${'consent-created' | 'consent-read' | 'funds-confirmation' | 'payment-created' | 'payment-read' | 'payment-details' | 'error'}`,
    FamilySchemaTarget
  >;
}

/** The payments (PISP) and funds (CBPII) responses the collections validate, by their v3.1 schema's name; each has a
 *  v4.0 twin `obie-v4-…` from the v4.0 file (the same endpoint and status). */
export const FAMILY_SCHEMA_TARGETS = {
  'obie-pis-consent-created': target('pisp', 'post', '201', '/domestic-payment-consents'),
  'obie-pis-consent-read': target('pisp', 'get', '200', '/domestic-payment-consents/{ConsentId}'),
  'obie-pis-funds-confirmation': target('pisp', 'get', '200', '/domestic-payment-consents/{ConsentId}/funds-confirmation'),
  'obie-pis-payment-created': target('pisp', 'post', '201', '/domestic-payments'),
  'obie-pis-payment-read': target('pisp', 'get', '200', '/domestic-payments/{DomesticPaymentId}'),
  'obie-pis-payment-details': target('pisp', 'get', '200', '/domestic-payments/{DomesticPaymentId}/payment-details'),
  'obie-pis-error': target('pisp', 'get', '4xx', ''),
  'obie-cof-consent-created': target('cbpii', 'post', '201', '/funds-confirmation-consents'),
  'obie-cof-consent-read': target('cbpii', 'get', '200', '/funds-confirmation-consents/{ConsentId}'),
  'obie-cof-confirmation': target('cbpii', 'post', '201', '/funds-confirmations'),
  'obie-cof-error': target('cbpii', 'get', '4xx', ''),
  ...vrpTargets('vrp'),
  ...vrpTargets('cvrp'),
} satisfies Record<string, FamilySchemaTarget>;

export type FamilyV31SchemaName = keyof typeof FAMILY_SCHEMA_TARGETS;
export type FamilyV4SchemaName = FamilyV31SchemaName extends `obie-${infer Rest}` ? `obie-v4-${Rest}` : never;

/** The family schemas of both versions, by file name. */
interface FamilySchema {
  target: FamilySchemaTarget;
  version: '3.1' | '4.0';
  /** An error schema of a file whose ErrorCodes are OBExternalStatusReason1Codes with HTTP categories (v4.0). */
  categories: boolean;
}
const FAMILY_SCHEMAS: Readonly<Record<string, FamilySchema>> = Object.fromEntries(
  Object.entries(FAMILY_SCHEMA_TARGETS as Readonly<Record<string, FamilySchemaTarget>>).flatMap(([name, target]) => [
    // A file of v4.0 only (cVRP) has no v3.1 schema.
    ...('3.1' in FAMILY_SPEC_FILE_NAMES[target.api] ? [[name, { target, version: '3.1', categories: false }]] : []),
    [name.replace(/^obie-/, 'obie-v4-'), { target, version: '4.0', categories: target.path === '' }],
  ]),
);

export type V31SchemaName = keyof typeof SCHEMA_TARGETS | FamilyV31SchemaName;
export type V4SchemaName = keyof typeof V4_SCHEMA_TARGETS | FamilyV4SchemaName;
export type SchemaName = V31SchemaName | V4SchemaName;
export const SCHEMA_NAMES = [
  ...Object.keys(SCHEMA_TARGETS),
  ...Object.keys(V4_SCHEMA_TARGETS),
  ...Object.keys(FAMILY_SCHEMAS),
].sort() as SchemaName[];

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

/** The OBIE files, parsed: what `deriveSchemas` needs (v4.0: its OpenAPI file and the OB Internal code set's text; the
 *  other families' files by API and version). */
export type SpecDocuments = Record<SpecVersion, Json> & {
  '4.0': Json;
  codeset: string;
  families: Record<FamilySpec, Partial<Record<'3.1' | '4.0', Json>>>;
};

/** Reads and parses the OBIE files from a folder (e.g. `<repo>/../shared/specs`). */
export function readSpecDocuments(specsDir: string): SpecDocuments {
  const out = {} as SpecDocuments;
  for (const version of SPEC_VERSIONS) out[version] = parse(readFileSync(join(specsDir, SPEC_FILE_NAMES[version]), 'utf8')) as Json;
  out['4.0'] = parse(readFileSync(join(specsDir, V4_SPEC_FILE_NAME), 'utf8')) as Json;
  out.codeset = readFileSync(join(specsDir, V4_CODESET_FILE_NAME), 'utf8');
  const read = (file: string) => parse(readFileSync(join(specsDir, file), 'utf8')) as Json;
  out.families = {
    pisp: { '3.1': read(FAMILY_SPEC_FILE_NAMES.pisp['3.1']), '4.0': read(FAMILY_SPEC_FILE_NAMES.pisp['4.0']) },
    cbpii: { '3.1': read(FAMILY_SPEC_FILE_NAMES.cbpii['3.1']), '4.0': read(FAMILY_SPEC_FILE_NAMES.cbpii['4.0']) },
    vrp: { '3.1': read(FAMILY_SPEC_FILE_NAMES.vrp['3.1']), '4.0': read(FAMILY_SPEC_FILE_NAMES.vrp['4.0']) },
    cvrp: { '4.0': read(FAMILY_SPEC_FILE_NAMES.cvrp['4.0']) },
  };
  return out;
}

/** RFC 4180 rows of a CSV text (quoted fields may hold commas, quotes and newlines); a leading BOM is dropped. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** Pure: each OBExternalStatusReason1Code the OB Internal code set gives an HTTP Status Category, with it. */
export function errorCodeCategories(codeset: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of csvRows(codeset)) {
    const [set = '', code = '', , , category = ''] = row.map((cell) => cell.trim());
    if (set === 'OBExternalStatusReason1Code' && code !== '' && category !== '') out[code] = category;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The definitions reachable from one response of one file, prefixed `v<version>.`; returns the root's name. */
function collect(doc: Json, version: string, target: SchemaTarget, definitions: JsonObject): string {
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
  return `#/definitions/${prefix}${rootName}`;
}

/** Pure: the draft-07 schema of one v4.0 endpoint response (the error one with the code set's HTTP categories). */
function deriveV4Schema(docs: SpecDocuments, name: keyof typeof V4_SCHEMA_TARGETS): JsonObject {
  const target: SchemaTarget = V4_SCHEMA_TARGETS[name];
  const definitions: JsonObject = {};
  const root = collect(docs['4.0'], '4.0', target, definitions);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `${target.method.toUpperCase()} ${target.path || '(any)'} ${target.status} (OBL AIS v4.0)`,
    allOf: [{ $ref: root }],
    ...(name === 'obie-v4-error' ? { [HTTP_CATEGORY_KEYWORD]: errorCodeCategories(docs.codeset) } : {}),
    definitions,
  };
}

/** How a family schema's title names its file (`OBIE PIS v3.1.11`, `OBL PIS v4.0`). */
const FAMILY_TITLES: Record<FamilySpec, Record<'3.1' | '4.0', string>> = {
  pisp: { '3.1': 'OBIE PIS v3.1.11', '4.0': 'OBL PIS v4.0' },
  cbpii: { '3.1': 'OBIE CoF v3.1.11', '4.0': 'OBL CoF v4.0' },
  vrp: { '3.1': 'OBIE VRP v3.1.11', '4.0': 'OBL VRP v4.0' },
  cvrp: { '3.1': 'OBL cVRP v4.0', '4.0': 'OBL cVRP v4.0' },
};

/** Pure: the draft-07 schema of one payments or funds response, from its version's file alone (a v4.0 error schema
 *  carries the code set's HTTP categories, as AIS v4.0's). */
function deriveFamilySchema(docs: SpecDocuments, entry: FamilySchema): JsonObject {
  const { target, version } = entry;
  const definitions: JsonObject = {};
  const doc = docs.families[target.api][version];
  if (doc === undefined) throw new TypeError(`no ${target.api} file of v${version}`);
  const root = collect(doc, `${version}.${target.api}`, target, definitions);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `${target.method.toUpperCase()} ${target.path || '(any)'} ${target.status} (${FAMILY_TITLES[target.api][version]})`,
    allOf: [{ $ref: root }],
    ...(entry.categories ? { [HTTP_CATEGORY_KEYWORD]: errorCodeCategories(docs.codeset) } : {}),
    definitions,
  };
}

/** Pure: the draft-07 schema of one endpoint response, valid only for bodies valid under every spec version. */
export function deriveSchema(docs: SpecDocuments, name: SchemaName): JsonObject {
  const family = FAMILY_SCHEMAS[name];
  if (family !== undefined) return deriveFamilySchema(docs, family);
  if (name in V4_SCHEMA_TARGETS) return deriveV4Schema(docs, name as keyof typeof V4_SCHEMA_TARGETS);
  const target: SchemaTarget = SCHEMA_TARGETS[name as keyof typeof SCHEMA_TARGETS];
  const definitions: JsonObject = {};
  const allOf: Json[] = [];
  for (const version of SPEC_VERSIONS) allOf.push({ $ref: collect(docs[version], version, target, definitions) });
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
