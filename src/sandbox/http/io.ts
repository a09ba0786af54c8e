// Small HTTP helpers shared by both origins of the emulator: body reading with a size cap, JSON / OAuth / OBIE error
// responses, form parsing, and the per-request context (peer certificate, RFC 8705 thumbprint, interaction id).

import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';

import type { RequestContext, RequestTarget } from '../contracts.js';

/** Largest request body any emulator route accepts (a registration JWT with an embedded SSA is a few KB). */
const MAX_BODY_BYTES = 256 * 1024;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/** Reads the whole request body; the raw text is also kept on the request for the verbose log. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      // Too large: stop keeping it but let the rest drain, so the client finishes sending and reads the 413 (leaving
      // a for-await loop instead would destroy the request and, with it, the connection the answer must go out on).
      req.off('data', onData);
      req.off('end', onEnd);
      req.resume();
      reject(new BodyTooLargeError(`request body over ${MAX_BODY_BYTES} bytes`));
    };
    const onEnd = (): void => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.set(req, text);
      resolve(text);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    // The client went away mid-body ("aborted", ECONNRESET): index.ts tells this apart from an emulator failure.
    req.once('error', reject);
    req.once('close', () => {
      if (req.complete) return;
      reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
  });
}

const bodies = new WeakMap<IncomingMessage, string>();

/** The body read by readBody, if any (for the verbose request log). */
export function bodyOf(req: IncomingMessage): string | undefined {
  return bodies.get(req);
}

/** application/x-www-form-urlencoded → map; a repeated parameter is an error for OAuth endpoints (RFC 6749 §3.1). */
export function parseForm(text: string): { params: Map<string, string>; repeated: string[]; all: URLSearchParams } {
  const all = new URLSearchParams(text);
  const params = new Map<string, string>();
  const repeated: string[] = [];
  for (const [key, value] of all) {
    if (params.has(key)) repeated.push(key);
    params.set(key, value);
  }
  return { params, repeated, all };
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = `${JSON.stringify(body)}\n`;
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(text);
}

/**
 * RFC 6749 §4.1.2.1 / §5.2: error_description "MUST NOT include characters outside the set %x20-21 / %x23-5B /
 * %x5D-7E". Descriptions often quote client input (a redirect_uri, a login_hint, a jti), so every one goes through
 * here: `"` becomes `'`, `\` becomes `/`, anything else outside the set (controls, non-ASCII) becomes `?`.
 */
export function oauthErrorDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/gu, (c) => (c === '"' ? "'" : c === '\\' ? '/' : '?'));
}

/** RFC 6749 §5.2 / RFC 7591 §3.2.2 error body. */
export function sendOAuthError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error, error_description: oauthErrorDescription(description) }, headers);
}

/** One entry of OBErrorResponse1.Errors (OBError1); Path is the JSON path or header/parameter name at fault. */
export interface ObError {
  ErrorCode: string;
  Message: string;
  Path?: string;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  501: 'Not Implemented',
};

/**
 * OBIE R/W "HTTP Headers": JSON in UTF-8 and a Date on every resource-origin response. x-fapi-interaction-id is not
 * set here: index.ts (serve) sets it on every resource-origin response before any handler runs.
 */
export function commonHeaders(res: ServerResponse, ctx: RequestContext, headers: Record<string, string>): void {
  res.setHeader('Date', httpDate(ctx.now()));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const name in headers) res.setHeader(name, headers[name] as string);
}

/** The last Date header written and the second it names: an IMF-fixdate (RFC 9110 §5.6.7) changes once a second. */
const lastDate = { second: Number.NaN, text: '' };

/** `now` as an HTTP date, formatted once per second of the emulator's clock rather than once per answer. */
export function httpDate(now: Date): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastDate.second) {
    lastDate.second = second;
    lastDate.text = now.toUTCString();
  }
  return lastDate.text;
}

/** The one OBErrorResponse1 builder: Code ≤ 40 ("401 Unauthorized"), Id ≤ 40, Message ≤ 500, Errors ≥ 1 (OBError1
 *  Message and Path ≤ 500). */
export function errorBody(status: number, id: string, message: string, errors: ObError[]): Record<string, unknown> {
  return {
    Code: `${status} ${REASONS[status] ?? 'Error'}`.slice(0, 40),
    Id: id.slice(0, 40),
    Message: clip(message),
    Errors: errors.map((error) => ({
      ...error,
      Message: clip(error.Message),
      ...(error.Path === undefined ? {} : { Path: clip(error.Path) }),
    })),
  };
}

export function clip(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // No external assets at all: the pages carry their own small stylesheet and no scripts. (No form-action: browsers
  // apply it to the redirect that follows a form post, and Confirm must end at the TPP's redirect URI.)
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.end(html);
}

export function redirect(res: ServerResponse, location: string, status = 303): void {
  res.statusCode = status;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

/** x5t#S256 (RFC 8705 §3.1): base64url SHA-256 of the certificate's DER. */
export function thumbprintOf(der: Buffer): string {
  return createHash('sha256').update(der).digest('base64url');
}

const INTERACTION_ID = /^[0-9A-Za-z-]{1,64}$/;

/** The certificate a TLS handshake left on a connection, and its x5t#S256. */
interface HandshakePeer {
  /**
   * TLS 1.2: the handshake's Finished message, unique to each handshake, so it tells whether this one is still
   * current. Undefined under TLS 1.3, whose connections keep their first handshake's certificate: TLS 1.3 forbids
   * renegotiation (RFC 8446 §4.1.2), and the only later certificate it allows is post-handshake authentication at the
   * server's request (§4.6.2), which this server never makes (Node.js has no call for it).
   */
  finished: Buffer | undefined;
  peer: PeerCertificate | undefined;
  thumbprint: string | undefined;
}

const handshakePeers = new WeakMap<TLSSocket, HandshakePeer>();

const NO_PEER = { peer: undefined, thumbprint: undefined } as const;

/**
 * The peer certificate as presented on `socket`, read once per handshake rather than once per request:
 * getPeerCertificate converts the whole certificate into an object and the thumbprint hashes its DER, both per call,
 * and a keep-alive connection carries many requests. A TLS 1.2 renegotiation (RFC 5246 §7.4.1) may present another
 * certificate on the same connection; it ends with another Finished message (§7.4.9), so it is read afresh. A TLS 1.3
 * connection's is read once (HandshakePeer.finished): asking for the Finished message makes a Buffer per request.
 */
function handshakePeer(socket: TLSSocket): Omit<HandshakePeer, 'finished'> {
  if (typeof socket.getPeerCertificate !== 'function') return NO_PEER;
  const known = handshakePeers.get(socket);
  if (known !== undefined && known.finished === undefined) return known;
  const finished = typeof socket.getFinished === 'function' ? socket.getFinished() : undefined;
  if (known?.finished !== undefined && finished !== undefined && known.finished.equals(finished)) return known;
  const raw: PeerCertificate | Record<string, never> = socket.getPeerCertificate();
  const peer = 'raw' in raw && raw.raw ? (raw as PeerCertificate) : undefined;
  const read = { peer, thumbprint: peer ? thumbprintOf(peer.raw) : undefined };
  if (socket.getProtocol() === 'TLSv1.3') handshakePeers.set(socket, { finished: undefined, ...read });
  else if (finished !== undefined) handshakePeers.set(socket, { finished, ...read });
  return read;
}

/** Builds the context of one request: the TLS peer as presented, and the interaction id to echo (FAPI §6.2.1-11). */
export function buildContext(req: IncomingMessage, now: () => Date, url: RequestTarget): RequestContext {
  const socket = req.socket as TLSSocket;
  const { peer, thumbprint } = handshakePeer(socket);
  const presented = req.headers['x-fapi-interaction-id'];
  const interactionId = typeof presented === 'string' && INTERACTION_ID.test(presented) ? presented : randomUUID();
  return {
    peerCertificate: peer,
    // Read per request: the handshake that set it may have been replaced (renegotiation), and it costs nothing.
    peerAuthorized: peer !== undefined && socket.authorized === true,
    peerThumbprint: thumbprint,
    interactionId,
    url,
    clientId: undefined,
    now,
  };
}

/** The subject CN of a peer certificate (OB transport certificates carry the software_id there). */
export function subjectCn(peer: PeerCertificate | undefined): string | undefined {
  const cn = peer?.subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}
