// Validates the emulator's payments (PISP), funds-confirmation (CBPII) and VRP answers against the official OpenAPI file of
// their version (v3.1.11 or v4.0, read from OBFLOW_SPECS_DIR): the documented body for (method, path template, status)
// with ajv, every ErrorCode one the version allows (v3.1.11: its OBError1 ErrorCode list; v4.0: an
// OBExternalStatusReason1Code of the status's HTTP category), and the response headers the file marks required
// (x-jws-signature). Without the files nothing is checked and the calling test is reported as skipped at its end.

import { readFileSync } from 'node:fs';

import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

import { inHttpCategory, statusReason } from './obie-v4.js';
import { obiePaymentSpecs, obieVrpSpecs, presentOrSkipAtTheEnd, SPEC_FILES, specPath } from './prerequisites.js';

/** pisp, cbpii; vrp (domestic VRP) and cvrp (the OBL commercial VRP file, v4.0 only). */
export type PaymentApi = 'pisp' | 'cbpii' | 'vrp' | 'cvrp';
export type ApiVersion = '3.1' | '4.0';

const FILES: Readonly<Record<PaymentApi, Partial<Record<ApiVersion, string>>>> = {
  pisp: { '3.1': SPEC_FILES.pisp3111, '4.0': SPEC_FILES.pisp40 },
  cbpii: { '3.1': SPEC_FILES.cbpii3111, '4.0': SPEC_FILES.cbpii40 },
  vrp: { '3.1': SPEC_FILES.vrp3111, '4.0': SPEC_FILES.vrp40 },
  cvrp: { '4.0': SPEC_FILES.cvrp40 },
};

function fileOf(api: PaymentApi, version: ApiVersion): string {
  const file = FILES[api][version];
  if (file === undefined) throw new TypeError(`no ${api} file of v${version}`);
  return file;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Loaded {
  doc: JsonObject;
  ajv: Ajv;
  cache: Map<string, ValidateFunction>;
}

const loaded = new Map<string, Loaded>();

const asObject = (value: Json | undefined): JsonObject | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;

/** The parsed OpenAPI file of (api, version). */
export function openApiDoc(api: PaymentApi, version: ApiVersion): JsonObject {
  return load(fileOf(api, version)).doc;
}

function load(file: string): Loaded {
  let spec = loaded.get(file);
  if (spec) return spec;
  const doc = parse(readFileSync(specPath(file), 'utf8')) as JsonObject;
  const schemas = asObject(asObject(doc.components)?.schemas);
  if (!schemas) throw new Error(`${file} has no components.schemas`);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  (addFormatsModule as unknown as (ajv: Ajv) => Ajv)(ajv);
  ajv.addSchema({ components: { schemas } } as object, file);
  spec = { doc, ajv, cache: new Map() };
  loaded.set(file, spec);
  return spec;
}

function resolve(doc: JsonObject, value: Json | undefined): JsonObject | undefined {
  const object = asObject(value);
  const ref = object?.$ref;
  if (typeof ref !== 'string') return object;
  let node: Json | undefined = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) node = asObject(node)?.[part];
  return asObject(node);
}

/** The v3.1.11 OBError1 ErrorCode list of a file (x-namespaced-enum: ajv does not read it). */
function errorCodes(doc: JsonObject): string[] {
  const schema = asObject(asObject(asObject(asObject(doc.components)?.schemas)?.OBError1)?.properties);
  const codes = asObject(schema?.ErrorCode)?.['x-namespaced-enum'];
  return Array.isArray(codes) ? codes.map(String) : [];
}

/**
 * Every problem of an answer (empty when it is what the file documents). `text` is the raw body ('' for none),
 * `headers` the response's.
 */
export function apiProblems(
  api: PaymentApi,
  version: ApiVersion,
  method: string,
  template: string,
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined> = {},
): string[] {
  if (!presentOrSkipAtTheEnd(api === 'vrp' || api === 'cvrp' ? obieVrpSpecs : obiePaymentSpecs)) return [];
  const file = fileOf(api, version);
  const spec = load(file);
  const where = `${api} v${version} ${method} ${template} ${status}`;
  const operation = asObject(asObject(asObject(spec.doc.paths)?.[template])?.[method.toLowerCase()]);
  if (!operation) return [`${where}: the file has no such operation`];
  const response = resolve(spec.doc, asObject(operation.responses)?.[String(status)]);
  if (!response) return [`${where}: the file documents no ${status} for it`];
  const problems: string[] = [];
  for (const [name, header] of Object.entries(asObject(response.headers) ?? {}))
    if (asObject(header)?.required === true && headers[name.toLowerCase()] === undefined) problems.push(`${where}: no ${name} header`);
  const content = asObject(response.content);
  if (!content) return text === '' ? problems : [...problems, `${where}: a body where the file documents none`];
  const ref = asObject(asObject(content['application/json; charset=utf-8'] ?? content['application/json'])?.schema)?.$ref;
  if (typeof ref !== 'string') return [...problems, `${where}: no schema`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `${where}: the body is not JSON`];
  }
  let validate = spec.cache.get(ref);
  if (!validate) {
    validate = spec.ajv.compile({ $ref: `${file}${ref}` });
    spec.cache.set(ref, validate);
  }
  if (validate(body) !== true)
    problems.push(
      `${where}: ${(validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`).join('; ')}`,
    );
  const errors = (body as { Errors?: { ErrorCode?: unknown }[] } | undefined)?.Errors;
  const allowed = errorCodes(spec.doc);
  for (const error of Array.isArray(errors) ? errors : []) {
    const code = String(error.ErrorCode);
    if (version === '3.1') {
      if (!allowed.includes(code)) problems.push(`${where}: ErrorCode ${code} is not one of the file's OBError1 codes`);
      continue;
    }
    const entry = statusReason(code);
    if (entry === undefined) problems.push(`${where}: ErrorCode ${code} is not in OBExternalStatusReason1Code`);
    else if (!inHttpCategory(status, entry.category))
      problems.push(`${where}: ErrorCode ${code} (${entry.name}) has HTTP category ${entry.category || 'none'}, not ${status}`);
  }
  return problems;
}
