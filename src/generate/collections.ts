// Assembles Postman v2.1 collections from the flow's steps with the postman-collection SDK: one per step plus the
// whole flow (a folder per step); each JSON schema inside the script part that checks against it. Deterministic: uuid
// v5 ids from item paths everywhere (Scripts too), url.raw set, keys sorted, 2-space JSON with a trailing newline. No
// addresses and no secrets: only {{variables}}.

import type { VrpSettings } from './vrp-plan.js';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import pc from 'postman-collection';
import { ObflowError } from '../errors.js';
import { writeTemporary, type TemporaryFile } from '../fs.js';
import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import { DEFAULT_FAPI_PROFILE, FAPI_PROFILES, type FapiProfile } from '../fapi-profile.js';
import { apiLabel, API_VERSION_ROWS, DEFAULT_API_VERSION } from './api-versions.js';
import type { ApiVersion } from './api-versions.js';
import { flowFileName, stepFileName } from './files.js';
import { buildFlow } from './flow.js';
import { uuidV5 } from './ids.js';
import type { RequestItemSpec, ResponseSchema, ScriptPart, StepContext, StepSpec, UnsupportedCall } from './model.js';
import { STATUS_PART, typesRequestObjects } from './steps/common.js';
import { DEFAULT_UNSUPPORTED_CALLS } from './steps/unsupported.js';
import { render, type Templates } from './templates.js';

/** Consent permissions obflow asks for: everything its reads need, Detail variants (AIS v3.1 "Permissions"). */
export const DEFAULT_PERMISSIONS: readonly string[] = [
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
  'ReadTransactionsDetail',
];

export interface GenerateOptions {
  /** The API family whose flow the collections are (default accounts: src/api-families.ts). */
  family?: ApiFamily;
  /** The API version the collections speak (default 3.1). */
  apiVersion?: ApiVersion;
  permissions?: readonly string[];
  unsupported?: readonly UnsupportedCall[];
  /** Pushed authorization requests with PKCE (StepContext.par); default off. */
  par?: boolean;
  /** JARM for response_type code (StepContext.jarm); default off. */
  jarm?: boolean;
  /** The FAPI profile's row (StepContext.fapi, flow.fapi); absent: the default profile's (FAPI 1 Advanced). */
  fapi?: FapiProfile;
  /** The VRP family's type and mandate (StepContext.vrp, flow.vrp); absent: the defaults. */
  vrp?: VrpSettings;
}

export interface BuildOptions extends GenerateOptions {
  /** templates/ as loadTemplates() reads it. */
  templates: Templates;
}

export interface GeneratedFile {
  fileName: string;
  json: string;
}

export { FLOW_COLLECTION_NAME, FLOW_FILE_NAME, stepFileName } from './files.js';

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key] as JsonValue);
  return out;
}

/** Lines that only serve linting and formatting the templates (eslint directives, sandbox globals, a formatter's
 *  ignore mark) are left out of collections. */
function stripLintLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\*\s*(eslint-disable|global)\b.*\*\/|\/\/\s*(eslint-disable-next-line|prettier-ignore)\b.*)\s*$/.test(line))
    .join('\n');
}

/** A schema without its annotations (description, example text): what ajv needs, a fraction of the script size. */
function withoutAnnotations(node: JsonValue, inProperties = false): JsonValue {
  if (Array.isArray(node)) return node.map((item) => withoutAnnotations(item));
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(node)) {
    // Inside `properties` the keys are field names (a field may be called "description"); elsewhere they are keywords.
    if (!inProperties && key === 'description') continue;
    out[key] = withoutAnnotations(value, !inProperties && (key === 'properties' || key === 'definitions'));
  }
  return out;
}

function schemaOf(name: ResponseSchema, templates: Templates): { [key: string]: JsonValue } {
  const schema = templates.schemas[name];
  if (schema === undefined) throw new TypeError(`no schema templates/schemas/${name}.json`);
  return schema;
}

function renderPart(part: ScriptPart, templates: Templates): string {
  const template = templates.scripts[part.template];
  if (template === undefined) throw new TypeError(`no script template ${part.template}`);
  const params: Record<string, unknown> = { ...part.params };
  if (part.schema !== undefined) {
    // The schema travels with the part that checks against it (docs/collections.md "Schemas"): as JSON text, which
    // lib-validate.js parses once per run, not as a collection variable every script execution would carry.
    const schema = schemaOf(part.schema, templates);
    params.schemaName = part.schema;
    params.schemaTitle = String(schema.title ?? part.schema);
    params.schemaText = JSON.stringify(withoutAnnotations(schema));
  }
  const text = stripLintLines(render(template, params)).trim();
  // Library parts define helpers for the parts after them; every other part runs in its own function scope.
  return part.template.startsWith('lib-') ? text : `(function () {\n${text}\n})();`;
}

/**
 * Library parts (templates/scripts/lib-*.js): each defines one global helper, and is put once at the top of a script
 * whose other parts use that global — only there, so no script carries a helper it does not call. Reading and writing
 * a JWT are two libraries: an item's pre-request script writes the request object, its test script reads the
 * id_token, and neither carries the other's code.
 */
const LIBRARIES: readonly { template: string; global: RegExp }[] = [
  { template: 'lib-body', global: /\bobflowBody\b/ },
  { template: 'lib-error-answer', global: /\bobflowErrorAnswer\b/ },
  { template: 'lib-jwt', global: /\bobflowJwt\b/ },
  { template: 'lib-jwt-unsigned', global: /\bobflowUnsignedJwt\b/ },
  { template: 'lib-location', global: /\bobflowLocation\b/ },
  // The signer uses the verifier's primitives: a script that signs carries both, the verifier first; a detached JWS
  // (message signing) is made with the signer and checked with the verifier.
  { template: 'lib-pss', global: /\bobflowPss(Sign)?\b|\bobflowJws(Sign|Verify)\b/ },
  { template: 'lib-pss-sign', global: /\bobflowPssSign\b|\bobflowJwsSign\b/ },
  { template: 'lib-jws-sign', global: /\bobflowJwsSign\b/ },
  { template: 'lib-jws-verify', global: /\bobflowJwsVerify\b/ },
  { template: 'lib-validate', global: /\bobflowSchemaErrors\b/ },
];

/**
 * postman-sandbox reads a script that starts with exactly this directive as one that uses no legacy globals
 * (`tests[]`, `responseBody`, `environment`, the liquid-json `JSON`, …). Without it, every execution builds those from
 * the request, the response and the scopes — decoding the whole response body into `responseBody` once more —
 * whether the script reads them or not. The scripts use `pm.*` and `require()` only; elsewhere the line is a plain
 * string statement that does nothing.
 */
export const NON_LEGACY_DIRECTIVE = "'use sandbox2';";

/**
 * The parts in order, except that after a status check (check-status.test) the parts that check the expected answer
 * run only when the answer has that status, and the parts for an error answer (`answer: 'error'`) only when it has
 * another: a refusal is checked against the error shape the standard gives it, never against the success schema, and
 * its one failing status check names the bank's error. Parts with `answer: 'any'` run for every answer.
 */
function guardedParts(parts: readonly ScriptPart[], templates: Templates): string[] {
  const at = parts.findIndex((part) => part.template === STATUS_PART);
  const status = parts[at]?.params?.status;
  if (typeof status !== 'number') return parts.map((part) => renderPart(part, templates));
  const after = parts.slice(at + 1);
  const rendered = (answer: ScriptPart['answer']) =>
    after.filter((part) => part.answer === answer).map((part) => renderPart(part, templates));
  const [expected, error] = [rendered(undefined), rendered('error')];
  const lines = [...parts.slice(0, at + 1).map((part) => renderPart(part, templates)), ...rendered('any')];
  if (expected.length > 0)
    lines.push(`if (pm.response.code === ${status}) {`, ...expected, ...(error.length > 0 ? ['} else {', ...error] : []), '}');
  else if (error.length > 0) lines.push(`if (pm.response.code !== ${status}) {`, ...error, '}');
  return lines;
}

/** An item whose answer with `skipOn.status` means the bank does not offer it: on that answer only the skip note runs
 *  (src/runner-rules.ts SKIP_NOTE), otherwise every check as usual. */
function skippableParts(parts: readonly ScriptPart[], templates: Templates, skipOn: RequestItemSpec['skipOn']): string[] {
  const rendered = guardedParts(parts, templates);
  if (skipOn === undefined) return rendered;
  return [
    `if (pm.response.code === ${skipOn.status}) {`,
    `  console.info(${JSON.stringify(`skipped: ${skipOn.reason}`)});`,
    '} else {',
    ...rendered,
    '}',
  ];
}

function renderScript(parts: readonly ScriptPart[], templates: Templates, skipOn?: RequestItemSpec['skipOn']): string[] {
  const rendered = skippableParts(parts, templates, skipOn);
  const libraries = LIBRARIES.filter((library) => rendered.some((text) => library.global.test(text))).map((library) =>
    renderPart({ template: library.template }, templates),
  );
  return [NON_LEGACY_DIRECTIVE, ...libraries, ...rendered].join('\n').split('\n');
}

function renderBody(item: RequestItemSpec, templates: Templates): pc.RequestBodyDefinition | undefined {
  const body = item.body;
  if (body === undefined) return undefined;
  if (body.mode === 'urlencoded') return { mode: 'urlencoded', urlencoded: body.pairs.map(([key, value]) => ({ key, value })) };
  const template = templates.bodies[body.template];
  if (template === undefined) throw new TypeError(`no body template ${body.template}`);
  return { mode: 'raw', raw: render(template, body.params ?? {}), options: { raw: { language: 'json' } } } as pc.RequestBodyDefinition;
}

function buildItem(item: RequestItemSpec, path: string, templates: Templates): pc.Item {
  const id = uuidV5(`${path}/${item.name}`);
  const body = renderBody(item, templates);
  // postman-collection 4.4 reads `event` (the v2.1 name); @types/postman-collection 3.5 calls it `events`.
  const definition: pc.ItemDefinition & { event: pc.EventDefinition[]; protocolProfileBehavior?: Record<string, boolean> } = {
    id,
    name: item.name,
    description: item.description,
    request: {
      url: item.url,
      method: item.method,
      header: item.headers.map(([key, value]) => ({ key, value })),
      ...(body === undefined ? {} : { body }),
    },
    event: [
      // No pre-request script when the item has no part for one: postman-sandbox would still run it, at its fixed cost
      // per execution (context serialised both ways, a vm run).
      ...(item.prerequest.length === 0
        ? []
        : [
            {
              listen: 'prerequest',
              script: {
                id: uuidV5(`${path}/${item.name}#prerequest`),
                type: 'text/javascript',
                exec: renderScript(item.prerequest, templates),
              },
            },
          ]),
      {
        listen: 'test',
        script: {
          id: uuidV5(`${path}/${item.name}#test`),
          type: 'text/javascript',
          exec: renderScript(item.test, templates, item.skipOn),
        },
      },
    ],
  };
  if (item.followRedirects === false) {
    definition.protocolProfileBehavior = { followRedirects: false };
  }
  return new pc.Item(definition);
}

type ItemJson = { id?: string; request?: { url?: string | { raw?: string } }; item?: ItemJson[] };

/** The SDK writes `url` without `raw`; put the template URL back as raw (newman notes "Deterministic collections"). */
function setRawUrls(items: ItemJson[] | undefined, raws: Map<string, string>): void {
  for (const item of items ?? []) {
    setRawUrls(item.item, raws);
    const raw = item.id === undefined ? undefined : raws.get(item.id);
    if (raw !== undefined && item.request !== undefined && typeof item.request.url === 'object') item.request.url.raw = raw;
  }
}

/** What tells one version's collections from another's: v3.1's are as they always were (golden files); another
 *  version's name it (collection names, descriptions) and have ids of their own (a path prefix), so both can be
 *  imported into one Postman workspace. The version's row says each (src/generate/api-versions.ts). */
interface VersionMarks {
  label: string;
  namePrefix: string;
  idPrefix: string;
}

function versionMarks(version: ApiVersion, family: ApiFamily): VersionMarks {
  const row = API_VERSION_ROWS[version];
  // Another family's collections have ids of their own (its folder before the version's), so every family's
  // collections import into one Postman workspace; accounts' are as they always were.
  const idPrefix = `${family.folder === '' ? '' : `${family.folder}/`}${row.collectionIdPrefix}`;
  return { label: apiLabel(family, version), namePrefix: row.collectionName(family.short), idPrefix };
}

function collectionDescription(steps: readonly StepSpec[], marks: VersionMarks): string {
  return [
    `Generated by obflow (\`obflow generate\`): UK Open Banking ${marks.label} flow. Do not edit by hand.`,
    'Run with the environment obflow writes (bank helper variables + obflow flow variables, see docs/collections.md) and',
    "client certificates through newman's sslClientCertList. State passes between requests through the environment only.",
    '',
    ...steps.map((step) => `- ${step.name}: ${step.description}`),
  ].join('\n');
}

function toFile(
  fileName: string,
  name: string,
  steps: readonly StepSpec[],
  asFolders: boolean,
  templates: Templates,
  marks: VersionMarks,
): GeneratedFile {
  const collectionPath = `${marks.idPrefix}${fileName.replace(/\.postman_collection\.json$/, '')}`;
  const collection = new pc.Collection({
    info: { id: uuidV5(`collection/${collectionPath}`), name, description: collectionDescription(steps, marks) },
  } as pc.CollectionDefinition);
  const raws = new Map<string, string>();
  for (const step of steps) {
    const stepPath = `${collectionPath}/${step.name}`;
    const items = step.items.map((spec) => {
      const item = buildItem(spec, stepPath, templates);
      raws.set(item.id, spec.url);
      return item;
    });
    if (asFolders) {
      const folder = new pc.ItemGroup<pc.Item>({
        id: uuidV5(stepPath),
        name: step.name,
        description: `${step.title}: ${step.description}`,
      } as pc.ItemGroupDefinition);
      for (const item of items) folder.items.add(item);
      collection.items.add(folder);
    } else {
      for (const item of items) collection.items.add(item);
    }
  }
  const json = collection.toJSON() as { item?: ItemJson[] };
  setRawUrls(json.item, raws);
  return { fileName, json: `${JSON.stringify(sortKeys(json as JsonValue), null, 2)}\n` };
}

/** Pure: every collection file for these options (templates already loaded). */
export function buildCollections(options: BuildOptions): GeneratedFile[] {
  const fapi = options.fapi ?? FAPI_PROFILES[DEFAULT_FAPI_PROFILE];
  const family = options.family ?? API_FAMILIES.accounts;
  const context: StepContext = {
    family,
    apiVersion: options.apiVersion ?? DEFAULT_API_VERSION,
    permissions: options.permissions ?? DEFAULT_PERMISSIONS,
    unsupported: options.unsupported ?? DEFAULT_UNSUPPORTED_CALLS,
    // A profile that pushes every authorization request (FAPI 2.0 Security Profile §5.3.2.2) pushes whatever flow.par says.
    ...(options.par === true || fapi.par === 'always' ? { par: true } : {}),
    ...(options.jarm === true ? { jarm: true } : {}),
    fapi,
    ...(options.vrp === undefined ? {} : { vrp: options.vrp }),
  };
  const steps = buildFlow(context);
  const typed = typesRequestObjects(fapi) ? withTypedJwtLibraries(options.templates) : options.templates;
  const templates = family.signsMessages ? withMessageSigningLibraries(typed) : typed;
  const marks = versionMarks(context.apiVersion, family);
  const files = steps.map((step) =>
    toFile(stepFileName(step.name), `${marks.namePrefix} — ${step.title}`, [step], false, templates, marks),
  );
  files.push(toFile(flowFileName(family), `${marks.namePrefix} — whole flow`, steps, true, templates, marks));
  return files;
}

/**
 * The collections of a profile that types its request objects (FAPI 2.0): the JWT libraries take an optional `typ`
 * for the header, so the request object says `typ: oauth-authz-req+jwt` (RFC 9101 §10.8) while the client assertion
 * keeps `JWT`. A build-time edit of the two libraries, not a parameter in their text: the default collections (the
 * golden files) carry them byte for byte as they are. Each edit must match exactly once, so a change to a library
 * cannot silently undo it.
 */
export function withTypedJwtLibraries(templates: Templates): Templates {
  const edit = (name: string, pairs: readonly (readonly [string, string])[]): string => {
    let text = templates.scripts[name];
    if (text === undefined) throw new TypeError(`no script template ${name}`);
    for (const [from, to] of pairs) {
      if (text.split(from).length !== 2) throw new TypeError(`templates/scripts/${name}.js: expected "${from}" exactly once`);
      text = text.replace(from, to);
    }
    return text;
  };
  return {
    ...templates,
    scripts: {
      ...templates.scripts,
      'lib-pss-sign': edit('lib-pss-sign', [
        ['function signJwt(payload, jwk, kid) {', 'function signJwt(payload, jwk, kid, typ) {'],
        ["{ alg: 'PS256', kid: kid, typ: 'JWT' }", "{ alg: 'PS256', kid: kid, typ: typ || 'JWT' }"],
      ]),
      'lib-jwt-unsigned': edit('lib-jwt-unsigned', [
        ['return function (payload) {', 'return function (payload, typ) {'],
        ["{ alg: 'none', typ: 'JWT' }", "{ alg: 'none', typ: typ || 'JWT' }"],
      ]),
    },
  };
}

/**
 * The collections of a family that signs its requests (OB R/W Data API Profile, "Message Signing"): lib-jws-sign.js
 * signs a detached JWS with lib-pss-sign.js's own PS256 encoding and RSA steps, which this build-time edit hands out
 * beside signJwt (the default collections carry the library byte for byte as it is; the edit must match exactly once).
 */
export function withMessageSigningLibraries(templates: Templates): Templates {
  const name = 'lib-pss-sign';
  const text = templates.scripts[name];
  if (text === undefined) throw new TypeError(`no script template ${name}`);
  const from = '  return { signJwt: signJwt };';
  if (text.split(from).length !== 2) throw new TypeError(`templates/scripts/${name}.js: expected "${from}" exactly once`);
  const to =
    '  return {\n    signJwt: signJwt,\n    // For lib-jws-sign.js (message signing): the same encoding and RSA steps, over any signing input.\n' +
    '    parts: { keyOf: keyOf, emsaPssEncode: emsaPssEncode, rsasp1: rsasp1, utf8Bytes: utf8Bytes, base64url: base64url, binaryOf: binaryOf, encodeJson: encodeJson },\n  };';
  return { ...templates, scripts: { ...templates.scripts, [name]: text.replace(from, to) } };
}

/** Writes every file into dir: all temporary files first (a failure there — disk full, unwritable — leaves every
 *  existing file untouched), then one atomic rename each; any failure removes the temporaries (src/fs.ts). */
export async function writeCollections(dir: string, files: readonly GeneratedFile[]): Promise<void> {
  const temporaries: TemporaryFile[] = [];
  try {
    for (const file of files) {
      if (file.fileName.includes('/') || file.fileName.includes('\\')) throw new TypeError(`not a plain file name: ${file.fileName}`);
      temporaries.push(await writeTemporary(join(dir, file.fileName), file.json));
    }
    for (const [index, file] of files.entries()) await rename((temporaries[index] as TemporaryFile).tmp, join(dir, file.fileName));
  } catch (cause) {
    if (cause instanceof TypeError) throw cause;
    throw new ObflowError('ERR_WRITE_FAILED', `could not write the collections into ${dir}: ${(cause as Error).message}`, {
      hint: 'Check that the output folder is writable and the disk has space.',
      cause,
    });
  } finally {
    await Promise.all(temporaries.map((temporary) => temporary.discard()));
  }
}
