// Validates response bodies against the official OBIE Account and Transaction API OpenAPI files (v3.1.1 and
// v3.1.11, read from OBFLOW_SPECS_DIR: see prerequisites.ts) with ajv: the (method, path template, status) triple
// picks the documented response, and its JSON schema (OpenAPI 3.0 schema objects) judges the body. Without the files,
// responseProblems/schemaProblems find nothing and the calling test runs its other assertions, then is reported as
// skipped with the reason (presentOrSkipAtTheEnd): a strict rule checked beside a schema is checked either way.

import { readFileSync } from 'node:fs';

import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

import { needs, obieSpecs, obieV4Specs, presentOrSkipAtTheEnd, SPEC_FILES as FILES, specPath } from './prerequisites.js';
import type { Prerequisite } from './prerequisites.js';

export const SPEC_FILES = { '3.1.1': FILES.obie311, '3.1.11': FILES.obie3111, '4.0': FILES.obie40 } as const;
export type SpecVersion = keyof typeof SPEC_FILES;
/** The v3.1 files the emulator's v3.1 answers must all satisfy (v4.0 answers: obie-v4.ts). */
export const SPEC_VERSIONS: SpecVersion[] = ['3.1.1', '3.1.11'];
const PREREQUISITE: Record<SpecVersion, Prerequisite> = { '3.1.1': obieSpecs, '3.1.11': obieSpecs, '4.0': obieV4Specs };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface LoadedSpec {
  version: SpecVersion;
  doc: JsonObject;
  ajv: Ajv;
  cache: Map<string, ValidateFunction>;
}

const specs = new Map<SpecVersion, LoadedSpec>();

function asObject(value: Json | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/**
 * Known defect of the v3.1.x files: OBTransaction5 (and the other OB*Basic / OB*Detail pairs) are `oneOf` two schemas
 * where every Basic record is also a valid Detail record (same required fields, Detail a superset), so `oneOf` can
 * never accept a Basic record. The intent ("one of these two field sets") is `anyOf`; only such pairs are rewritten,
 * and tests check the Basic/Detail field sets themselves.
 */
function relaxBasicDetailOneOf(schemas: JsonObject): void {
  for (const schema of Object.values(schemas)) {
    const object = asObject(schema);
    const branches = object?.oneOf;
    if (!object || !Array.isArray(branches) || branches.length !== 2) continue;
    const refs = branches.map((branch) => String(asObject(branch)?.$ref ?? ''));
    if (refs[0]?.endsWith('Basic') && refs[1]?.endsWith('Detail')) {
      object.anyOf = branches;
      delete object.oneOf;
    }
  }
}

function loadSpec(version: SpecVersion): LoadedSpec {
  let spec = specs.get(version);
  if (spec) return spec;
  needs(PREREQUISITE[version]);
  const doc = parse(readFileSync(specPath(SPEC_FILES[version]), 'utf8')) as JsonObject;
  const components = asObject(doc.components);
  const schemas = asObject(components?.schemas);
  if (!schemas) throw new Error(`${SPEC_FILES[version]} has no components.schemas`);
  relaxBasicDetailOneOf(schemas);
  // OpenAPI 3.0 schema objects: `nullable` is understood by ajv's own keyword; vendor keywords (x-namespaced-enum)
  // and `example` are ignored with strict: false; formats (date-time, uri, int32, float, …) come from ajv-formats.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  addFormats(ajv);
  ajv.addSchema({ components: { schemas } } as object, `obie-${version}`);
  spec = { version, doc, ajv, cache: new Map() };
  specs.set(version, spec);
  return spec;
}

function compile(spec: LoadedSpec, ref: string): ValidateFunction {
  let validate = spec.cache.get(ref);
  if (!validate) {
    validate = spec.ajv.compile({ $ref: `obie-${spec.version}${ref}` });
    spec.cache.set(ref, validate);
  }
  return validate;
}

function resolveRef(doc: JsonObject, value: Json | undefined): JsonObject | undefined {
  const object = asObject(value);
  const ref = object?.$ref;
  if (typeof ref !== 'string') return object;
  let node: Json | undefined = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) node = asObject(node)?.[part];
  return asObject(node);
}

function operationOf(version: SpecVersion, method: string, pathTemplate: string): JsonObject | undefined {
  return asObject(asObject(asObject(loadSpec(version).doc.paths)?.[pathTemplate])?.[method.toLowerCase()]);
}

/** Does this spec version define the operation at all (a path one version lacks, e.g. v3.1.1's parties)? */
export function definesOperation(version: SpecVersion, method: string, pathTemplate: string): boolean {
  return operationOf(version, method, pathTemplate) !== undefined;
}

/** What the spec documents for a response: undefined when it documents no body for that status. */
export function documentedSchemaRef(version: SpecVersion, method: string, pathTemplate: string, status: number): string | undefined {
  const spec = loadSpec(version);
  const operation = operationOf(version, method, pathTemplate);
  if (!operation) throw new Error(`v${version} has no ${method.toUpperCase()} ${pathTemplate}`);
  const response = resolveRef(spec.doc, asObject(operation.responses)?.[String(status)]);
  if (!response) throw new Error(`v${version} documents no ${status} for ${method.toUpperCase()} ${pathTemplate}`);
  const content = asObject(response.content);
  if (!content) return undefined;
  const media = asObject(content['application/json; charset=utf-8']) ?? asObject(content['application/json']);
  const ref = asObject(media?.schema)?.$ref;
  if (typeof ref !== 'string') throw new Error(`v${version} ${status} of ${pathTemplate} has no schema reference`);
  return ref;
}

export interface ValidationResult {
  version: SpecVersion;
  valid: boolean;
  errors: string[];
}

function run(spec: LoadedSpec, ref: string, body: unknown): ValidationResult {
  const validate = compile(spec, ref);
  const valid = validate(body) === true;
  const errors = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );
  return { version: spec.version, valid, errors };
}

/**
 * Validates `body` as the response of (method, path template, status), e.g. ('GET', '/accounts/{AccountId}', 200),
 * against one spec version. A status the spec documents without a body must come with no body (undefined or '').
 * Throws when the spec does not document the response at all.
 */
export function validateResponse(
  version: SpecVersion,
  method: string,
  pathTemplate: string,
  status: number,
  body: unknown,
): ValidationResult {
  const ref = documentedSchemaRef(version, method, pathTemplate, status);
  if (ref === undefined) {
    const empty = body === undefined || body === '';
    return { version, valid: empty, errors: empty ? [] : ['the spec documents no body for this response'] };
  }
  return run(loadSpec(version), ref, body);
}

/** Validates `body` against a named schema of components.schemas (e.g. OBErrorResponse1 for a 501 answer). */
export function validateSchema(version: SpecVersion, schemaName: string, body: unknown): ValidationResult {
  return run(loadSpec(version), `#/components/schemas/${schemaName}`, body);
}

/** Both versions at once; a one-line summary of every failure (empty when the body is valid in both, or when the
 *  files are missing: then the test is reported as skipped at its end). */
export function responseProblems(method: string, pathTemplate: string, status: number, body: unknown): string[] {
  if (!presentOrSkipAtTheEnd(obieSpecs)) return [];
  return SPEC_VERSIONS.flatMap((version) => {
    const result = validateResponse(version, method, pathTemplate, status, body);
    return result.valid ? [] : [`v${version} ${method} ${pathTemplate} ${status}: ${result.errors.join('; ')}`];
  });
}

/** Both versions at once for a named schema. */
export function schemaProblems(schemaName: string, body: unknown): string[] {
  if (!presentOrSkipAtTheEnd(obieSpecs)) return [];
  return SPEC_VERSIONS.flatMap((version) => {
    const result = validateSchema(version, schemaName, body);
    return result.valid ? [] : [`v${version} ${schemaName}: ${result.errors.join('; ')}`];
  });
}
