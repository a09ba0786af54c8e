// The emulator's request log: one line per request (method, path, status, ms, client id, interaction id) with every
// secret-bearing query parameter redacted; verbose mode adds request and response bodies with secrets masked.

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestContext } from '../contracts.js';
import { bodyOf } from './io.js';

/**
 * Parameter and field names whose values never reach a log line: credentials (client_secret, the PSU's password,
 * Basic credentials, a client_assertion JWT), what redeems or proves a grant (code, code_verifier — RFC 7636 §7.1,
 * refresh and access tokens), and the values that tie a response to its request (state, nonce, request objects).
 */
const SECRET_NAMES = new Set([
  'client_secret',
  'client_assertion',
  'assertion',
  'code_verifier',
  '_clientsecret',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'request',
  'password',
  'basictoken',
  'software_statement',
  'authorization',
  'state',
  'nonce',
]);

/** Query and form parameter names: compared case-insensitively (servers differ in how they spell them). */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase());
}

/**
 * JSON member names are compared exactly: OBIE bodies are full of capitalised names that only look like a secret's
 * when case is ignored (OBErrorResponse1 Code, BankTransactionCode.Code), and none of them is one.
 */
const SECRET_JSON_KEYS = new Set([...SECRET_NAMES, '_clientSecret', 'basicToken']);

function isSecretJsonKey(name: string): boolean {
  return SECRET_JSON_KEYS.has(name);
}

/** Path with the query kept but secret values replaced (`code=…` → `code=[redacted]`). */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = new URLSearchParams(url.slice(at + 1));
  const parts: string[] = [];
  for (const [key, value] of params) parts.push(`${key}=${isSecretName(key) ? '[redacted]' : encodeURIComponent(value)}`);
  return `${url.slice(0, at)}?${parts.join('&')}`;
}

/** Masks secrets in a body: JSON (any depth), form-encoded, or a bare JWT. */
export function maskBody(text: string, contentType: string): string {
  if (text === '') return '';
  if (contentType.includes('json')) {
    try {
      return JSON.stringify(maskJson(JSON.parse(text) as unknown));
    } catch {
      return '[unparseable JSON body]';
    }
  }
  if (contentType.includes('x-www-form-urlencoded')) return redactUrl(`?${text}`).slice(1);
  if (contentType.includes('jwt')) return `[JWT ${text.length} chars]`;
  if (contentType.includes('html')) return `[HTML ${text.length} chars]`;
  return `[${text.length} bytes]`;
}

function maskJson(value: unknown, key?: string): unknown {
  if (key !== undefined && isSecretJsonKey(key)) return '[redacted]';
  if (Array.isArray(value)) return value.map((item) => maskJson(item));
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // Postman environment values: { key: '_clientSecret', value: '…', type: 'secret' }.
    if (record.type === 'secret' && 'value' in record) return { ...record, value: '[redacted]' };
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, maskJson(v, k)]));
  }
  return value;
}

export interface RequestLogger {
  /** Call once per request before dispatch; writes the line when the response finishes. */
  track(origin: 'resource' | 'auth', req: IncomingMessage, res: ServerResponse, ctx: RequestContext): void;
}

export function createRequestLogger(log: ((line: string) => void) | undefined, verbose: boolean): RequestLogger {
  if (!log) return { track() {} };
  return {
    track(origin, req, res, ctx) {
      const started = process.hrtime.bigint();
      const chunks: Buffer[] = [];
      if (verbose) {
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
        const keep = (chunk: unknown): void => {
          if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
          else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
        };
        res.write = ((...args: unknown[]) => {
          keep(args[0]);
          return write(...args);
        }) as typeof res.write;
        res.end = ((...args: unknown[]) => {
          if (typeof args[0] !== 'function') keep(args[0]);
          return end(...args);
        }) as typeof res.end;
      }
      let finished = false;
      // A request the client abandoned before the answer was sent never finishes: say so instead of staying silent.
      res.once('close', () => {
        if (finished) return;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log(
          `${origin} ${req.method ?? '-'} ${redactUrl(req.url ?? '/')} aborted ${ms.toFixed(1)}ms client=${ctx.clientId ?? '-'} interaction=${ctx.interactionId}`,
        );
      });
      res.once('finish', () => {
        finished = true;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const line = `${origin} ${req.method ?? '-'} ${redactUrl(req.url ?? '/')} ${res.statusCode} ${ms.toFixed(1)}ms client=${ctx.clientId ?? '-'} interaction=${ctx.interactionId}`;
        log(line);
        if (verbose) {
          const requestBody = bodyOf(req);
          if (requestBody) log(`  > ${maskBody(requestBody, String(req.headers['content-type'] ?? ''))}`);
          const responseBody = Buffer.concat(chunks).toString('utf8');
          if (responseBody) log(`  < ${maskBody(responseBody, String(res.getHeader('content-type') ?? ''))}`);
          const location = res.getHeader('location');
          if (typeof location === 'string') log(`  < Location: ${redactLocation(location)}`);
        }
      });
    },
  };
}

/** Redirect locations carry code / id_token in the query or the fragment. */
function redactLocation(location: string): string {
  const hash = location.indexOf('#');
  if (hash < 0) return redactUrl(location);
  return `${redactUrl(location.slice(0, hash))}#${redactUrl(`?${location.slice(hash + 1)}`).slice(1)}`;
}
