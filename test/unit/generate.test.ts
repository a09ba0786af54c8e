// The generated collections: deterministic, Postman v2.1 schema-valid, the checked-in golden files and vendored
// schemas up to date, only {{variables}} from the contract, the headers and scripts every request must carry.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  buildCollections,
  FLOW_FILE_NAME,
  NON_LEGACY_DIRECTIVE,
  stepFileName,
  writeCollections,
  type GeneratedFile,
} from '../../src/generate/collections.js';
import { ObflowError } from '../../src/errors.js';
import { API_FAMILIES } from '../../src/api-families.js';
import { VRP_CONTROL_DEFAULTS } from '../../src/generate/vrp-types.js';
import { STEP_NAMES } from '../../src/generate/flow.js';
import { buildSchemaFiles, deriveSchemas, errorCodeCategories, readSpecDocuments, SCHEMA_NAMES } from '../../src/generate/schemas.js';
import { DEFAULT_UNSUPPORTED_CALLS } from '../../src/generate/steps/unsupported.js';
import { loadTemplates } from '../../src/generate/templates.js';
import { ENVIRONMENT_VARIABLES, VARIABLE_KEYS } from '../../src/generate/variables.js';
import { needs, obieSpecs, postmanSchema, REPO_ROOT, SPEC_FILES, SPECS_DIR, specPath } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const templates = loadTemplates();
const files = buildCollections({ templates });
/** The AIS v4.0 collections, in collections/v4.0/. */
const v4Files = buildCollections({ templates, apiVersion: '4.0' });
/** The payments and funds families' collections, both versions (test/unit/generate-families.test.ts tests them). */
const familyFiles = [
  ...[API_FAMILIES.payments, API_FAMILIES.funds, API_FAMILIES.vrp].flatMap((family) =>
    (['3.1', '4.0'] as const).flatMap((apiVersion) => buildCollections({ templates, family, apiVersion })),
  ),
  // A commercial mandate's answers follow the cVRP file (its own schemas).
  ...buildCollections({
    templates,
    family: API_FAMILIES.vrp,
    apiVersion: '4.0',
    vrp: { type: 'CVRP1', controlParameters: VRP_CONTROL_DEFAULTS },
  }),
];

interface PmItem {
  id: string;
  name: string;
  item?: PmItem[];
  request?: {
    method: string;
    url: { raw: string };
    header: { key: string; value: string }[];
    body?: { raw?: string; urlencoded?: { key: string; value: string }[] };
  };
  event?: { listen: string; script: { id: string; exec: string[] } }[];
  protocolProfileBehavior?: { followRedirects?: boolean };
}
interface PmCollection {
  info: { _postman_id: string; name: string };
  item: PmItem[];
  variable?: { key: string; value: string; type: string; description: string }[];
}

function parse(file: GeneratedFile): PmCollection {
  return JSON.parse(file.json) as PmCollection;
}
function requests(items: PmItem[]): PmItem[] {
  return items.flatMap((item) => (item.item ? requests(item.item) : [item]));
}
const flow = parse(files.find((file) => file.fileName === FLOW_FILE_NAME) as GeneratedFile);
const flowRequests = requests(flow.item);
/** Each helper library's global and the text that defines it (templates/scripts/lib-*.js). */
const LIBRARY_DEFINITIONS = [
  ['obflowBody', 'var obflowBody ='],
  ['obflowJwt', 'var obflowJwt ='],
  ['obflowUnsignedJwt', 'var obflowUnsignedJwt ='],
  ['obflowLocation', 'function obflowLocation('],
  ['obflowSchemaErrors', 'function obflowSchemaErrors('],
] as const;

describe('buildCollections', () => {
  it('emits one collection per step plus the whole flow, named by convention', () => {
    expect(files.map((file) => file.fileName)).toEqual([...STEP_NAMES.map(stepFileName), 'obflow-ais.postman_collection.json']);
  });

  it('is byte-identical across runs (fresh template load too)', () => {
    expect(buildCollections({ templates: loadTemplates() })).toEqual(files);
  });

  it('writes sorted keys, 2-space JSON and a trailing newline', () => {
    for (const file of files) {
      const sorted = JSON.stringify(
        JSON.parse(file.json),
        (_key, value: unknown) =>
          value !== null && typeof value === 'object' && !Array.isArray(value)
            ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
            : value,
        2,
      );
      expect(file.json).toBe(`${sorted}\n`);
    }
  });

  it('validates against the Postman v2.1.0 collection schema', () => {
    needs(postmanSchema);
    const schema = JSON.parse(readFileSync(specPath(SPEC_FILES.postman), 'utf8')) as object;
    const validate = new Ajv({ strict: false }).compile(schema);
    for (const file of files) {
      expect(validate(JSON.parse(file.json)), `${file.fileName}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('gives explicit, unique uuid v5 ids to the collection, folders, items and every script', () => {
    for (const file of files) {
      const collection = parse(file);
      const ids = [collection.info._postman_id];
      const walk = (items: PmItem[]): void => {
        for (const item of items) {
          ids.push(item.id);
          for (const event of item.event ?? []) ids.push(event.script.id);
          walk(item.item ?? []);
        }
      };
      walk(collection.item);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('has a folder per step, in flow order, in the whole-flow collection; item names unique (setNextRequest targets)', () => {
    expect(flow.item.map((folder) => folder.name)).toEqual([...STEP_NAMES]);
    const names = flowRequests.map((item) => item.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('sets url.raw on every request, from {{variables}} only: no addresses, no secrets', () => {
    for (const file of files) {
      for (const item of requests(parse(file).item)) {
        expect(item.request?.url.raw, item.name).toMatch(/^\{\{[A-Za-z_-]+\}\}/);
        const values = [
          item.request?.url.raw ?? '',
          ...(item.request?.header ?? []).map((h) => h.value),
          ...(item.request?.body?.urlencoded ?? []).map((p) => p.value),
          item.request?.body?.raw ?? '',
        ];
        for (const value of values) expect(value, item.name).not.toMatch(/:\/\/|localhost|127\.0\.0\.1/);
      }
      expect(file.json).not.toMatch(/localhost|127\.0\.0\.1|BEGIN [A-Z ]*PRIVATE KEY/);
    }
  });

  it('uses only variables of the contract, in requests and in scripts', () => {
    const text = flow.item.length > 0 ? files.map((file) => file.json).join('\n') : '';
    const used = new Set<string>();
    for (const match of text.matchAll(/\{\{([^{}\s]+)\}\}/g)) used.add(match[1] as string);
    for (const match of text.matchAll(/env(?:\.get|\.set)\('([^']+)'/g)) used.add(match[1] as string);
    for (const match of text.matchAll(/pm\.environment\.(?:get|set)\('([^']+)'/g)) used.add(match[1] as string);
    // the keys the scripts clear in loops (['a', 'b'].forEach(... env.set(key, '')))
    for (const match of text.matchAll(/\[((?:'[a-z_]+', )+'[a-z_]+')\]\.forEach/g))
      for (const key of (match[1] as string).matchAll(/'([a-z_]+)'/g)) used.add(key[1] as string);
    // Postman's dynamic variables newman resolves itself: a fresh UUID per request for x-fapi-interaction-id.
    const dynamic = new Set(['$guid']);
    const unknown = [...used].filter((key) => !VARIABLE_KEYS.has(key) && !dynamic.has(key));
    expect(unknown).toEqual([]);
    for (const key of ['rs', 'consent_id', 'access_token', 'transactions_next_url', 'interim_balances', 'transaction_counts'])
      expect(used).toContain(key);
  });

  it('docs/collections.md lists every contract variable and every step', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'collections.md'), 'utf8');
    for (const spec of ENVIRONMENT_VARIABLES) expect(doc, spec.key).toContain(`| \`${spec.key}\` | ${spec.source} |`);
    for (const step of STEP_NAMES) expect(doc, step).toContain(`| \`${step}\` |`);
  });

  it('documents every contract variable with a description; secrets are the tokens and client credentials', () => {
    for (const spec of ENVIRONMENT_VARIABLES) expect(spec.description.length, spec.key).toBeGreaterThan(10);
    expect(
      ENVIRONMENT_VARIABLES.filter((v) => v.secret)
        .map((v) => v.key)
        .sort(),
    ).toEqual(
      [
        '_clientSecret',
        'access_token',
        'auth_code',
        'basicToken',
        'client_assertion',
        'client_credentials_token',
        'code_verifier',
        'id_token',
        'refresh_token',
        'signing_key',
        'token_id_token',
      ].sort(),
    );
  });

  it('sends Bearer, x-fapi-financial-id, x-fapi-interaction-id and Accept on every AIS request', () => {
    const ais = flowRequests.filter((item) => item.request?.url.raw.startsWith('{{rs}}/open-banking/v3.1/aisp/'));
    expect(ais.length).toBe(8 + DEFAULT_UNSUPPORTED_CALLS.length);
    for (const item of ais) {
      const headers = Object.fromEntries((item.request?.header ?? []).map((h) => [h.key.toLowerCase(), h.value]));
      expect(headers.authorization, item.name).toMatch(/^Bearer \{\{(access_token|client_credentials_token)\}\}$/);
      expect(headers['x-fapi-financial-id'], item.name).toBe('{{obParticipantId}}');
      expect(headers['x-fapi-interaction-id'], item.name).toBe('{{$guid}}');
      expect(headers.accept, item.name).toBe('application/json');
    }
  });

  it('gives every request a fresh interaction id ({{$guid}}, no pre-request script for it) and status + echo tests after it', () => {
    for (const item of flowRequests) {
      const headers = Object.fromEntries((item.request?.header ?? []).map((h) => [h.key.toLowerCase(), h.value]));
      expect(headers['x-fapi-interaction-id'], item.name).toBe('{{$guid}}');
      const test = item.event?.find((e) => e.listen === 'test')?.script.exec.join('\n') ?? '';
      expect(test, item.name).toContain("pm.request.headers.get('x-fapi-interaction-id')");
      // The status test: the generic one, the consent redirect's, or the unsupported calls' 404 (named for the rule).
      expect(test, item.name).toMatch(
        /pm\.test\(\s*'(status is|redirects|interactive consent)|pm\.test\(\s*family \+ ': GET ' \+ path \+ ["'] answers 404 Not Found/,
      );
      expect(test, item.name).toMatch(/x-fapi-interaction-id|interactive consent|redirects/);
    }
  });

  it('turns redirects off for the PSU consent request only', () => {
    const off = flowRequests.filter((item) => item.protocolProfileBehavior?.followRedirects === false).map((item) => item.name);
    expect(off).toEqual(['psu-consent: GET authorization endpoint']);
  });

  it('produces scripts that are valid JavaScript, without template or lint leftovers', () => {
    for (const item of flowRequests) {
      for (const event of item.event ?? []) {
        const code = event.script.exec.join('\n');
        expect(() => new Script(code), `${item.name} ${event.listen}`).not.toThrow();
        expect(code).not.toMatch(/\{\{|eslint-disable|\/\* global/);
      }
    }
  });

  it('opens every script with the non-legacy directive and gives it each helper library once, only where it is used', () => {
    for (const file of files) {
      for (const item of requests(parse(file).item)) {
        for (const event of item.event ?? []) {
          const code = event.script.exec.join('\n');
          // postman-sandbox compares the script's first 15 characters with this directive (no legacy globals).
          expect(code.slice(0, 15), `${item.name} ${event.listen}`).toBe(NON_LEGACY_DIRECTIVE);
          for (const [helper, definition] of LIBRARY_DEFINITIONS) {
            const uses = code.split(definition).join('').includes(helper);
            expect(code.split(definition).length - 1, `${item.name} ${event.listen} ${helper}`).toBe(uses ? 1 : 0);
          }
          expect(code, `${item.name} ${event.listen}`).not.toMatch(
            /\b(responseBody|responseCode|postman\.|tests\[|CryptoJS\.(?!SHA256|enc))/,
          );
        }
      }
    }
  });

  it('gives an item each helper library once: the pre-request script writes the request object, the test reads the id_token', () => {
    for (const item of flowRequests) {
      const code = (item.event ?? []).map((event) => event.script.exec.join('\n')).join('\n');
      for (const [helper, definition] of LIBRARY_DEFINITIONS)
        expect(code.split(definition).length - 1, `${item.name} ${helper}`).toBeLessThanOrEqual(1);
    }
    const consent = flowRequests.find((item) => item.name === 'psu-consent: GET authorization endpoint');
    const script = (listen: string): string => consent?.event?.find((e) => e.listen === listen)?.script.exec.join('\n') ?? '';
    expect(script('prerequest')).toContain('var obflowUnsignedJwt =');
    expect(script('test')).toContain('var obflowJwt =');
    expect(script('test')).toContain('function obflowLocation(');
  });

  it('renders only the checks a step asks for: no empty rendered constant, no status check where the step judges it', () => {
    for (const item of flowRequests) {
      for (const event of item.event ?? []) {
        const code = event.script.exec.join('\n');
        expect(code, `${item.name} ${event.listen}`).not.toMatch(/^const \w+ = (''|Number\(''\));$/m);
      }
    }
    const test = (name: string): string =>
      flowRequests
        .find((item) => item.name === name)
        ?.event?.find((e) => e.listen === 'test')
        ?.script.exec.join('\n') ?? '';
    expect(test('psu-consent: GET authorization endpoint')).not.toContain("pm.test('status is");
    expect(test('psu-consent: GET authorization endpoint')).toContain("pm.test('x-fapi-interaction-id, when echoed, is ours'");
    expect(test('psu-consent: GET authorization endpoint')).not.toContain("pm.test('x-fapi-interaction-id is echoed'");
    expect(test('discovery: GET openid-configuration')).not.toContain("pm.test('Content-Type is");
    expect(test('accounts: GET /accounts')).toContain("pm.test('x-fapi-interaction-id is echoed'");
  });

  it('carries each JSON schema in the script part that checks against it, and no collection variable', () => {
    // docs/collections.md "Schemas": a schema as a collection variable would travel with every script execution.
    const inline = /^const schemaName = '([^']+)';$[\s\S]*?^function schemaText\(\) \{\n {2}return '(.*)';\n\}$/gm;
    const checked = new Set<string>();
    for (const file of [...files, ...v4Files, ...familyFiles]) {
      const collection = parse(file);
      expect(collection.variable ?? [], file.fileName).toEqual([]);
      for (const item of requests(collection.item)) {
        for (const event of item.event ?? []) {
          const code = event.script.exec.join('\n');
          const names = [...code.matchAll(/obflowSchemaErrors\(schemaName, schemaText, /g)].length;
          const parts = [...code.matchAll(inline)];
          // Every call of the validator has its own part's schema next to it.
          expect(parts.length, `${item.name} ${event.listen}`).toBe(names);
          for (const [, name, text] of parts) {
            const schema = JSON.parse(new Function(`return '${text as string}';`)() as string) as { title?: string };
            expect(schema.title, `${item.name}: ${name as string}`).toBe(templates.schemas[name as string]?.title);
            // Annotations are left out (a field may be called description; its value is then a schema, not text).
            expect(JSON.stringify(schema), 'annotations left out').not.toMatch(/"description":"/);
            checked.add(name as string);
          }
        }
      }
    }
    expect([...checked].sort()).toEqual([...SCHEMA_NAMES, 'oauth-error', 'openid-configuration', 'token-response'].sort());
  });

  it("asks for one unsupported call per family and GET /transactions, each expecting the standard's 404", () => {
    const unsupported = flowRequests.filter((item) => item.name.startsWith('unsupported: '));
    expect(unsupported.map((item) => item.request?.url.raw)).toEqual(
      DEFAULT_UNSUPPORTED_CALLS.map((call) => `{{rs}}/open-banking/v3.1/aisp${call.path}`),
    );
    for (const [index, item] of unsupported.entries()) {
      const exec = item.event?.find((e) => e.listen === 'test')?.script.exec.join('\n') ?? '';
      // The status is judged once, by the step's own test (naming the rule); the generic checks leave it out.
      expect(exec).not.toContain("pm.test('status is");
      expect(exec).not.toContain('const expectedStatus');
      expect(exec).toContain(`const path = '${DEFAULT_UNSUPPORTED_CALLS[index]?.path ?? ''}';`);
      expect(exec).toContain('answers 404 Not Found');
      expect(exec).toContain('it must respond with a 404 (Not Found) for requests to that URL.');
    }
  });

  it('honours options: permissions go into the consent body and its test', () => {
    const custom = buildCollections({ templates, permissions: ['ReadAccountsBasic'] });
    const consent = requests(
      parse(custom.find((file) => file.fileName === stepFileName('account-access-consent')) as GeneratedFile).item,
    )[0] as PmItem;
    expect(JSON.parse(consent.request?.body?.raw ?? '')).toEqual({ Data: { Permissions: ['ReadAccountsBasic'] }, Risk: {} });
    expect(consent.event?.find((e) => e.listen === 'test')?.script.exec.join('\n')).toContain(`JSON.parse('["ReadAccountsBasic"]')`);
  });
});

describe('AIS v4.0 collections', () => {
  const v4Flow = requests(parse(v4Files.find((file) => file.fileName === FLOW_FILE_NAME) as GeneratedFile).item);
  const exec = (item: PmItem): string => item.event?.find((e) => e.listen === 'test')?.script.exec.join('\n') ?? '';

  it('asks the v4.0 paths, without x-fapi-financial-id (v4.0 has no such header), and has ids of its own', () => {
    const ais = v4Flow.filter((item) => item.request?.url.raw.startsWith('{{rs}}/open-banking/'));
    expect(ais.length).toBeGreaterThan(0);
    for (const item of ais) {
      expect(item.request?.url.raw, item.name).toMatch(/^\{\{rs\}\}\/open-banking\/v4\.0\/aisp\//);
      expect(item.request?.header.map((header) => header.key) ?? [], item.name).not.toContain('x-fapi-financial-id');
    }
    const v31Ids = new Set(flowRequests.map((item) => item.id));
    for (const item of v4Flow) expect(v31Ids.has(item.id), item.name).toBe(false);
    expect(parse(v4Files.find((file) => file.fileName === FLOW_FILE_NAME) as GeneratedFile).info.name).toBe('obflow AIS v4.0 — whole flow');
  });

  it('reads ITAV balances and an AWAU consent, validates against the v4.0 schemas and errors by the code set', () => {
    const byName = (name: string): string => exec(v4Flow.find((item) => item.name === name) as PmItem);
    for (const name of ['account-balances: GET /accounts/{AccountId}/balances', 'all-balances: GET /balances']) {
      expect(byName(name)).toContain("return type !== 'ITAV';");
      expect(byName(name)).not.toContain("InterimAvailable'");
    }
    expect(byName('account-access-consent: POST /account-access-consents')).toContain("pm.expect(data.Status).to.equal('AWAU');");
    for (const item of v4Flow.filter((candidate) => candidate.request?.url.raw.includes('/aisp/'))) {
      const text = exec(item);
      expect(text, item.name).not.toMatch(/const schemaName = 'obie-(?!v4-)/);
      if (!item.name.startsWith('unsupported: ')) expect(text, item.name).toContain("const schemaName = 'obie-v4-error';");
      expect(text, item.name).not.toContain('OBIE AIS v3.1)');
    }
    expect(byName('transactions: GET /accounts/{AccountId}/transactions')).toContain("'/open-banking/v4.0/aisp/accounts/'");
  });
});

describe('writeCollections', () => {
  it('writes every file, and rewrites them unchanged', async () => {
    const dir = join(tempDirSync('obflow-generate-'), 'out');
    await writeCollections(dir, files);
    await writeCollections(dir, files);
    expect(readdirSync(dir).sort()).toEqual(files.map((file) => file.fileName).sort());
    for (const file of files) expect(readFileSync(join(dir, file.fileName), 'utf8')).toBe(file.json);
  });

  it('fails with ERR_WRITE_FAILED and leaves no temporary file behind', async () => {
    const parent = tempDirSync('obflow-generate-');
    writeFileSync(join(parent, 'not-a-dir'), 'x');
    await expect(writeCollections(join(parent, 'not-a-dir'), files)).rejects.toMatchObject({ code: 'ERR_WRITE_FAILED' });
    const dir = join(parent, 'out');
    mkdirSync(join(dir, FLOW_FILE_NAME), { recursive: true }); // a folder in the way of the last rename
    const error: unknown = await writeCollections(dir, files).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObflowError);
    expect((error as ObflowError).code).toBe('ERR_WRITE_FAILED');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a file name with a path (programmer error)', async () => {
    await expect(writeCollections(tempDirSync('obflow-generate-'), [{ fileName: '../x.json', json: '{}' }])).rejects.toBeInstanceOf(
      TypeError,
    );
  });
});

describe('golden files', () => {
  it('collections/ holds exactly the collections of the default options (update: npm run collections:update)', () => {
    const dir = join(REPO_ROOT, 'collections');
    expect(
      readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .sort(),
    ).toEqual(files.map((file) => file.fileName).sort());
    for (const file of files) expect(readFileSync(join(dir, file.fileName), 'utf8'), file.fileName).toBe(file.json);
  });

  it('collections/v4.0/ holds exactly the AIS v4.0 collections, with the same file names as v3.1', () => {
    const dir = join(REPO_ROOT, 'collections', 'v4.0');
    expect(readdirSync(dir).sort()).toEqual(files.map((file) => file.fileName).sort());
    expect(v4Files.map((file) => file.fileName)).toEqual(files.map((file) => file.fileName));
    for (const file of v4Files) expect(readFileSync(join(dir, file.fileName), 'utf8'), file.fileName).toBe(file.json);
  });

  it('templates/schemas/obie-*.json are what the OBIE files derive today (update: npm run collections:update -- --schemas)', () => {
    needs(obieSpecs);
    const dir = join(REPO_ROOT, 'templates', 'schemas');
    const derived = buildSchemaFiles(SPECS_DIR);
    expect(
      readdirSync(dir)
        .filter((name) => name.startsWith('obie-'))
        .sort(),
    ).toEqual(derived.map((file) => file.fileName).sort());
    for (const file of derived) expect(readFileSync(join(dir, file.fileName), 'utf8'), file.fileName).toBe(file.json);
  });
});

describe('derived OBIE schemas', () => {
  // The sandbox's own ajv (6, draft-07): resolved through eslint, which depends on ajv 6 as postman-sandbox 4.7 does.
  const Ajv6 = createRequire(createRequire(import.meta.url).resolve('eslint/package.json'))('ajv') as new (options: object) => {
    compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown };
  };

  it("compile in ajv 6 (what newman 6.2's script sandbox bundles), formats included", () => {
    for (const name of [...SCHEMA_NAMES, 'oauth-error', 'openid-configuration', 'token-response']) {
      const schema = templates.schemas[name] as object;
      expect(() => new Ajv6({ allErrors: true }).compile(schema), name).not.toThrow();
    }
  });

  it('obie-v4-error carries the HTTP category of each error code the OB Internal code set gives one (and only those)', () => {
    const categories = (templates.schemas['obie-v4-error'] as Record<string, Record<string, string>>)['x-obflow-http-status-category'];
    expect(categories).toMatchObject({ U001: '400', U009: '400', U028: '403', U029: '409', U000: '5xx' });
    expect(categories).not.toHaveProperty('AC01');
    expect(
      errorCodeCategories(
        'Code Set,Code Value,Code Name,Code Definition,HTTP Status Category\nOBExternalStatusReason1Code,U002,"UK.OBIE.Field.Invalid","a, ""quoted""\nline",400\nOBExternalStatusReason1Code,AC01,x,y,\n',
      ),
    ).toEqual({ U002: '400' });
  });

  it('require a body valid under both v3.1.1 and v3.1.11', () => {
    needs(obieSpecs);
    const schemas = deriveSchemas(readSpecDocuments(SPECS_DIR));
    const validate = new Ajv6({ allErrors: true }).compile(schemas['obie-error']);
    const refusal = {
      Code: '404 Not Found',
      Id: 'a1b2',
      Message: 'not found',
      Errors: [{ ErrorCode: 'UK.OBIE.Resource.NotFound', Message: 'Beneficiaries are not offered' }],
    };
    expect(validate(refusal)).toBe(true);
    expect(validate({ ...refusal, Errors: [] })).toBe(false);
    expect(validate({ ...refusal, Extra: 1 })).toBe(false);
    const accounts = new Ajv6({ allErrors: true }).compile(schemas['obie-accounts']);
    const page = {
      Data: { Account: [{ AccountId: 'a1', Currency: 'GBP', AccountType: 'Personal', AccountSubType: 'CurrentAccount' }] },
      Links: { Self: 'https://bank.example/open-banking/v3.1/aisp/accounts' },
      Meta: { TotalPages: 1 },
    };
    expect(accounts(page), JSON.stringify(accounts.errors)).toBe(true);
    expect(accounts({ ...page, Data: { Account: [{ AccountId: 'a1', Currency: 'pounds' }] } })).toBe(false);
    // Both versions are in: every definition is prefixed with its spec version.
    expect(Object.keys(schemas['obie-accounts'].definitions as object).some((key) => key.startsWith('v3.1.1.'))).toBe(true);
    expect(Object.keys(schemas['obie-accounts'].definitions as object).some((key) => key.startsWith('v3.1.11.'))).toBe(true);
  });
});
