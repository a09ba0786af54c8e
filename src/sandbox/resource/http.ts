// Response plumbing of the resource origin: JSON and empty answers with the common headers (refusals are ObieErrors,
// http/errors.ts, answered with these by index.ts), and request-side checks on Accept, Content-Type and the origin
// the client used (for absolute Links).

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestContext } from '../contracts.js';
import { commonHeaders } from '../http/io.js';

export function sendJsonBody(
  res: ServerResponse,
  ctx: RequestContext,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  commonHeaders(res, ctx, headers);
  res.statusCode = status;
  res.end(`${JSON.stringify(body)}\n`);
}

/** sendJsonBody with the body already serialised (the resource server's kept bodies). */
export function sendJsonText(res: ServerResponse, ctx: RequestContext, status: number, text: string): void {
  commonHeaders(res, ctx, {});
  res.statusCode = status;
  res.end(text);
}

export function sendEmpty(res: ServerResponse, ctx: RequestContext, status: number, headers: Record<string, string> = {}): void {
  commonHeaders(res, ctx, headers);
  res.statusCode = status;
  res.end();
}

/** RFC 9110 §12.5.1: does the Accept header allow application/json (in UTF-8)? An absent header allows anything. */
export function acceptsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  // Absent, empty, or what TPPs send on every read (answered without taking the header apart).
  if (accept === undefined || accept === 'application/json' || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    let q = 1;
    let charsetOk = true;
    for (const param of params) {
      const [name, value = ''] = param.split('=').map((part) => part.trim());
      if (name === 'q') q = Number(value);
      if (name === 'charset') charsetOk = value.replace(/"/g, '') === 'utf-8';
    }
    return q > 0 && charsetOk && (type === '*/*' || type === 'application/*' || type === 'application/json');
  });
}

/** POST bodies must be JSON in UTF-8 (OBIE R/W "Content-Type"); anything else is 415. */
export function isJsonContentType(req: IncomingMessage): boolean {
  const header = req.headers['content-type'];
  if (header === undefined) return false;
  const [type = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => !param.startsWith('charset=') || param.slice(8).replace(/"/g, '') === 'utf-8');
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The origin the client addressed (Host header), so Links are absolute URLs it can follow as given. */
export function requestOrigin(req: IncomingMessage): string {
  const host = req.headers.host;
  if (typeof host === 'string' && HOST.test(host)) return `https://${host}`;
  const address = req.socket?.localAddress ?? '127.0.0.1';
  const port = req.socket?.localPort ?? 443;
  return `https://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
