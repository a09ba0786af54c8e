// The pm double for the collections' scripts (test/unit/generate-scripts-*.test.ts): the scripts as rendered, run in a
// vm with a small pm (environment, collection variables, request, response, tests, setNextRequest) and the sandbox's
// libraries (ajv 6, chai, crypto-js subset, uuid, querystring, url); the bank's id_token key and a bank's values.

import { constants, createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createRequire } from 'node:module';
import * as querystring from 'node:querystring';
import * as url from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { expect as chaiExpect } from 'chai';
import { buildCollections, FLOW_FILE_NAME } from '../../src/generate/collections.js';
import { loadTemplates } from '../../src/generate/templates.js';

export interface PmItem {
  name: string;
  item?: PmItem[];
  request?: { url: { raw: string } };
  event?: { listen: string; script: { exec: string[] } }[];
}
export const flow = JSON.parse(
  buildCollections({ templates: loadTemplates() }).find((f) => f.fileName === FLOW_FILE_NAME)?.json ?? '{}',
) as {
  item: PmItem[];
  variable?: { key: string; value: string }[];
};
export const items = flow.item.flatMap((folder) => folder.item ?? []);
// The collections carry no variables (each schema is in the script that checks against it, docs/collections.md
// "Schemas"): the double has no pm.collectionVariables, so a script that reads one throws.

export function script(itemName: string, listen: 'prerequest' | 'test'): string {
  const item = items.find((i) => i.name === itemName);
  if (!item) throw new Error(`no item ${itemName}`);
  return item.event?.find((e) => e.listen === listen)?.script.exec.join('\n') ?? '';
}

export const Ajv6 = createRequire(createRequire(import.meta.url).resolve('eslint/package.json'))('ajv') as unknown;

// crypto-js, the subset the scripts use: SHA256 (of text or bytes) → hex, Hex.parse → Base64.
export class WordArray {
  constructor(readonly bytes: Buffer) {}
  toString(encoding: { name: string }): string {
    return this.bytes.toString(encoding.name === 'hex' ? 'hex' : 'base64');
  }
}
export const cryptoJs = {
  SHA256: (data: string | WordArray) =>
    new WordArray(
      typeof data === 'string' ? createHash('sha256').update(data, 'utf8').digest() : createHash('sha256').update(data.bytes).digest(),
    ),
  enc: { Hex: { name: 'hex', parse: (hex: string) => new WordArray(Buffer.from(hex, 'hex')) }, Base64: { name: 'base64' } },
};

/** What the scripts `require()` in the Postman sandbox, as the doubles give it. */
export const SANDBOX_MODULES: Readonly<Record<string, unknown>> = {
  ajv: Ajv6,
  'crypto-js': cryptoJs,
  uuid: { v4: randomUUID },
  querystring,
  url,
  // The sandbox's atob/btoa modules; not globals: the scripts opt out of the legacy globals ('use sandbox2').
  btoa: (s: string) => Buffer.from(s, 'binary').toString('base64'),
  atob: (s: string) => Buffer.from(s, 'base64').toString('binary'),
};

export interface Run {
  env: Map<string, string>;
  tests: { name: string; passed: boolean; error?: string }[];
  next: string | null | undefined;
  requestUrl: string;
  /** How often a script read the body (pm.response.stream, text() or json()). */
  bodyReads: number;
  /** What the script threw outside pm.test (newman reports it as a failure of the item), with `scriptErrors`. */
  scriptError?: unknown;
  /** The body a pre-request script set on the request (pm.request.body.update), if it set one. */
  bodySet?: string;
  /** The request's headers after the scripts (pm.request.headers.upsert), lower-case names. */
  sentHeaders?: Map<string, string>;
  failed(): string[];
  passed(): string[];
}

export interface FakeResponse {
  code: number;
  /** Reason phrase (pm.response.status); default: the usual one for the code. */
  reason?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The bytes on the wire, when they are not the body's JSON text in UTF-8 (e.g. not UTF-8 at all). */
  bytes?: Buffer;
}

export const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  302: 'Found',
  303: 'See Other',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  501: 'Not Implemented',
};

/** The x-fapi-interaction-id a request sent (newman resolves the header's {{$guid}}; pm.request is the sent request). */
export const SENT_ID = 'ia-1';

export function run(
  code: string,
  options: {
    env: Record<string, string>;
    response?: FakeResponse;
    requestUrl?: string;
    /** The request's headers as sent; default the interaction id SENT_ID. */
    sent?: Record<string, string>;
    now?: number;
    scriptErrors?: true;
    /** Counts the script's calls of the global escape() (lib-body.js's UTF-8 decoding). */
    escapes?: { calls: number };
    /** The request's raw body as the collection holds it (pm.request.body.raw, before variables are resolved). */
    body?: string;
    /** What the console received (a skip note: `skipped: …`). */
    console?: unknown[][];
  },
): Run {
  const env = new Map(Object.entries(options.env));
  const result: Run = {
    env,
    tests: [],
    next: undefined,
    requestUrl: options.requestUrl ?? 'https://rs.example/',
    bodyReads: 0,
    failed: () => result.tests.filter((t) => !t.passed).map((t) => t.name),
    passed: () => result.tests.filter((t) => t.passed).map((t) => t.name),
  };
  const response = options.response ?? { code: 200 };
  const bytes =
    response.bytes ??
    (response.body === undefined
      ? undefined
      : Buffer.from(typeof response.body === 'string' ? response.body : JSON.stringify(response.body), 'utf8'));
  const headers = new Map(Object.entries(response.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const sent = new Map(Object.entries(options.sent ?? { 'x-fapi-interaction-id': SENT_ID }).map(([k, v]) => [k.toLowerCase(), v]));
  // pm.request.body as postman-collection's RequestBody: raw text, update() replacing it (a string, or {mode, raw}).
  const requestBody = {
    raw: options.body,
    update(value: string | { mode: string; raw?: string }) {
      requestBody.raw = typeof value === 'string' ? value : value.raw;
      if (requestBody.raw !== undefined) result.bodySet = requestBody.raw;
    },
  };
  // pm.variables.replaceIn: {{name}} from the environment (the only scope the scripts use); an unknown name stays.
  const replaceIn = (text: string) => text.replace(/\{\{([^{}]+)\}\}/g, (whole, name: string) => env.get(name) ?? whole);
  const pm = {
    environment: { get: (key: string) => env.get(key), set: (key: string, value: unknown) => env.set(key, String(value)) },
    request: {
      get url() {
        return { toString: () => result.requestUrl };
      },
      set url(value: { toString(): string }) {
        result.requestUrl = String(value);
      },
      headers: {
        get: (name: string) => sent.get(name.toLowerCase()),
        upsert: (header: { key: string; value: string }) => sent.set(header.key.toLowerCase(), header.value),
      },
      body: requestBody,
    },
    variables: { replaceIn },
    response: {
      code: response.code,
      status: response.reason ?? REASONS[response.code] ?? '',
      headers: { get: (name: string) => headers.get(name.toLowerCase()) },
      // The body as the bank sent it (a string as its raw text, an object as its JSON text, in UTF-8), as the sandbox
      // hands it over: a Buffer (stream) and the SDK's decoders text() and json() (which replace bytes that are not
      // UTF-8, like the SDK).
      get stream() {
        result.bodyReads += 1;
        return bytes;
      },
      text: () => {
        result.bodyReads += 1;
        return bytes === undefined ? '' : bytes.toString('utf8');
      },
      json: () => {
        result.bodyReads += 1;
        return JSON.parse(bytes === undefined ? '' : bytes.toString('utf8')) as unknown;
      },
      to: { have: { status: (status: number) => chaiExpect(response.code, 'status').to.equal(status) } },
    },
    test: (name: string, fn: () => void) => {
      try {
        fn();
        result.tests.push({ name, passed: true });
      } catch (error) {
        result.tests.push({ name, passed: false, error: (error as Error).message });
      }
    },
    expect: chaiExpect,
    execution: { setNextRequest: (name: string | null) => (result.next = name) },
  };
  const modules = SANDBOX_MODULES;
  const escapes = options.escapes;
  const context = createContext({
    ...(escapes === undefined
      ? {}
      : {
          escape: (text: string) => {
            escapes.calls += 1;
            return escape(text);
          },
        }),
    pm,
    ...(options.console === undefined
      ? {}
      : {
          console: {
            ...console,
            info: (...args: unknown[]) => options.console?.push(args),
            log: (...args: unknown[]) => options.console?.push(args),
          },
        }),
    require: (name: string) => {
      if (!(name in modules)) throw new Error(`module ${name} is not in the sandbox double`);
      return modules[name];
    },
    ...(options.console === undefined ? { console } : {}),
    Date:
      options.now === undefined
        ? Date
        : class extends Date {
            static override now(): number {
              return options.now as number;
            }
          },
  });
  result.sentHeaders = sent;
  try {
    runInContext(code, context);
  } catch (error) {
    if (options.scriptErrors !== true) throw error;
    result.scriptError = error;
  }
  return result;
}

export const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
export const halfHash = (value: string): string => createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');

// The bank's id_token key: the scripts verify PS256 signatures with lib-pss against bank_jwks (RFC 7518 §3.5).
export const bankKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
export const bankJwk = bankKey.publicKey.export({ format: 'jwk' });
export const BANK_JWKS = JSON.stringify([{ kid: 'k1', n: bankJwk.n, e: bankJwk.e }]);
/** A compact JWS signed PS256 (RSASSA-PSS, SHA-256, salt 32) with the bank's key, as the emulator signs id_tokens. */
export function signPs256(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: bankKey.privateKey,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: 32,
  });
  return `${input}.${signature.toString('base64url')}`;
}

export const BANK = {
  rs: 'https://rs.example:8443',
  issuer: 'https://auth.example:9443/strict-headless',
  authEndpoint: 'https://auth.example:9443/strict-headless/auth',
  _clientId: 'client-1',
  redirectUrl: 'https://tpp.example/callback',
  obParticipantId: '0015800001041REAAY',
  response_type: 'code id_token',
  consent_mode: 'headless',
  psu_login_hint: '',
  max_pages: '1000',
};
