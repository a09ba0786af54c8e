// The emulator's one request path, for both origins: parse the target, build the request context, log, run the
// handler, and answer what it throws. Wire errors (http/errors.ts) become answers here and nowhere else, as
// oidc-provider maps its error classes once.

import type { IncomingMessage, ServerResponse } from 'node:http';

import { errorRedirect } from './auth/authorize.js';
import { errorPage, type PageSkin } from './auth/pages.js';
import type { RequestContext, RequestTarget, SandboxHandler } from './contracts.js';
import { isWireError, ObieError, OAuthError } from './http/errors.js';
import type { WireError } from './http/errors.js';
import { BodyTooLargeError, buildContext, errorBody, redirect, sendHtml, sendOAuthError } from './http/io.js';
import { keepAtMost } from './kept.js';
import type { RequestLogger } from './http/log.js';
import { sendEmpty, sendJsonBody } from './resource/http.js';

export interface ServeSeams {
  now: () => Date;
  /** Fresh ids: the Id of an AIS refusal's OBErrorResponse1. */
  newId: () => string;
  logger: RequestLogger;
  /** The look of the PSU pages (SandboxOptions.pageSkin): error pages at the bank wear it too. */
  pageSkin?: PageSkin;
}

/** Placeholder bases: only the path and query of a request target matter to the handlers. */
const TARGET_BASE = { resource: 'https://resource.invalid', auth: 'https://authorisation.invalid' } as const;

/** Resource-origin targets kept parsed, at most this many (the oldest dropped first). */
const KEPT_TARGETS = 256;
const keptTargets = new Map<string, URL>();

/**
 * The request target as a URL, or undefined when it does not parse (`//`, `//[`, `/\\` read as an empty or bad host).
 * The resource origin's are kept and shared: a keep-alive TPP asks for the same few paths over and over, and parsing
 * one (a WHATWG URL with its buffers) was a measurable share of a GET /accounts (docs/notes.md, the emulator's profile). Handlers
 * get it as a RequestTarget, which offers no setter. The authorisation origin's targets carry one-off parameters
 * (state, nonce, request objects) and are parsed each time.
 */
function parseTarget(origin: 'resource' | 'auth', req: IncomingMessage): RequestTarget | undefined {
  const target = req.url ?? '/';
  if (origin === 'resource') {
    const kept = keptTargets.get(target);
    if (kept !== undefined) return kept;
  }
  let url: URL;
  try {
    url = new URL(target, TARGET_BASE[origin]);
  } catch {
    return undefined;
  }
  if (origin === 'resource') {
    keepAtMost(keptTargets, KEPT_TARGETS, target, url);
  }
  return url;
}

export function serve(
  origin: 'resource' | 'auth',
  req: IncomingMessage,
  res: ServerResponse,
  seams: ServeSeams,
  handler: SandboxHandler,
): void {
  const url = parseTarget(origin, req);
  // A target that does not parse never reaches a handler; the context still needs a URL for its type, so it gets the bare origin.
  const ctx: RequestContext = buildContext(req, seams.now, url ?? new URL(TARGET_BASE[origin]));
  seams.logger.track(origin, req, res, ctx);
  // FAPI R/W §6.2.1-11: every resource-origin answer echoes the interaction id (registration, helper and AIS routes,
  // refusals and failures included); set here so no path can miss it.
  if (origin === 'resource') res.setHeader('x-fapi-interaction-id', ctx.interactionId);
  const fail = (status: number, obieCode: string, oauthCode: string, message: string, oauthHeaders: Record<string, string> = {}): void =>
    answerWireError(
      res,
      ctx,
      origin === 'resource' ? ObieError.of(status, obieCode, message) : new OAuthError(status, oauthCode, message, oauthHeaders),
      seams.newId,
      seams.pageSkin,
    );
  if (!url) {
    // RFC 9112 §3.2: a request target the server cannot make sense of is the client's error, not the server's.
    fail(400, 'UK.OBIE.Field.Invalid', 'invalid_request', 'the request target is not a valid path', {
      'x-fapi-interaction-id': ctx.interactionId,
    });
    return;
  }
  handler(req, res, ctx).catch((error: unknown) => {
    // A client that went away mid-request (a browser closed during a form post: readBody rejects with "aborted") is
    // not an emulator failure: nobody is left to answer, and a warning naming the handler would send someone
    // looking for a bug that is not there. The log records the request as aborted.
    if (res.headersSent || req.socket.destroyed || (error as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET') {
      res.destroy();
      return;
    }
    // The one place a handler's refusal becomes an answer.
    if (isWireError(error)) {
      answerWireError(res, ctx, error, seams.newId, seams.pageSkin);
      return;
    }
    if (error instanceof BodyTooLargeError) {
      // The rest of the body is drained, not read: do not reuse this connection.
      res.setHeader('Connection', 'close');
      fail(413, 'UK.OBIE.Resource.InvalidFormat', 'invalid_request', error.message);
      return;
    }
    // An emulator bug must still answer like a server, with nothing internal in the body.
    fail(500, 'UK.OBIE.UnexpectedError', 'server_error', 'the sandbox failed to process this request');
    process.emitWarning(
      `obflow sandbox: ${origin} ${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  });
}

/**
 * Answers a wire error. ObieError: an OBErrorResponse1 body with the common headers (empty when it carries no
 * OBError1). OAuthError: a JSON body (RFC 6749 §5.2), a page at the bank for the PSU, or a redirect back to the
 * client's verified redirect URI (RFC 6749 §4.1.2.1; the fragment for the hybrid flow, OIDC Core §3.3.2.6).
 */
export function answerWireError(
  res: ServerResponse,
  ctx: RequestContext,
  error: WireError,
  newId: () => string,
  pageSkin?: PageSkin,
): void {
  if (error instanceof ObieError) {
    if (error.errors.length === 0) sendEmpty(res, ctx, error.status, error.headers);
    else
      sendJsonBody(
        res,
        ctx,
        error.status,
        errorBody(error.status, error.reference === 'interaction' ? ctx.interactionId : newId(), error.message, [...error.errors]),
        error.headers,
      );
    return;
  }
  const delivery = error.delivery;
  if (delivery.to === 'body') {
    sendOAuthError(res, error.status, error.error, error.message, error.headers);
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (delivery.to === 'page')
    sendHtml(
      res,
      error.status,
      errorPage(delivery.title, delivery.showCode ? `${error.error}: ${error.message}` : error.message, pageSkin),
    );
  else redirect(res, errorRedirect(delivery.redirectUri, delivery.responseType, error.error, error.message, delivery.state, delivery.iss));
}
