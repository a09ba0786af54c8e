// The request path of the API families beyond AIS (payments, funds; VRP next), family-agnostic: the token for the
// operation's grant and the family's scope, the body read and its x-jws-signature verified where the version marks
// the request signed, the x-idempotency-key recalled where the operation is idempotent, then the family's handler;
// the answer — and every refusal with a body — signed with the bank's key where the version marks the response signed
// (OB R/W Data API Profile v4.0, "Response Headers": x-jws-signature "should be returned for error responses where a
// response body is returned"), in the version's words (refusals.ts). docs/sandbox-payments.md is the contract.

import type { IncomingMessage, ServerResponse } from 'node:http';

import { isBoundToPresentedCertificate } from '../contracts.js';
import type { AccessTokenInfo, AisApiVersion, RequestContext, RequestTarget, SandboxClient } from '../contracts.js';
import type { ApiFamily } from '../families.js';
import { isWireError, ObieError } from '../http/errors.js';
import { BodyTooLargeError, commonHeaders, errorBody, readBody } from '../http/io.js';
import { bodyFingerprint, keyProblem } from '../idempotency.js';
import type { IdempotencyScope } from '../idempotency.js';
import { tolerates } from '../policy.js';
import { signResponse, verifyRequestSignature } from '../signing.js';
import { acceptsJson, isJsonContentType } from './http.js';
import { AisRefusal } from './refusals.js';
import type { RefusalKind } from './refusals.js';
import type { Operation } from './routes.js';
import { VERSION_ROWS } from './versions.js';
import type { ResourceDeps } from './deps.js';

// RFC 7231 IMF-fixdate, as the files' x-fapi-auth-date pattern writes it.
const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|UTC)$/;

/** How far ahead of the bank's clock a signature's iat may be where the profile tolerates signature-iat-skew. */
const IAT_SKEW_SECONDS = 60;

/** One request to an operation of a family, as routed. */
export interface OperationRequest<R> {
  family: ApiFamily<unknown>;
  version: AisApiVersion;
  route: R;
  operation: Operation;
  req: IncomingMessage;
  res: ServerResponse;
  ctx: RequestContext;
  /** The origin the client used, for Links. */
  origin: string;
}

/** One request to an operation of a family, authenticated, its body verified and parsed. */
export interface OperationCall<R> extends OperationRequest<R> {
  url: RequestTarget;
  token: AccessTokenInfo;
  client: SandboxClient;
  /** The request body as JSON (POST), undefined without one. */
  body: unknown;
  /** What an idempotent creation remembers in its transaction: the key's scope and the body's fingerprint (absent
   *  when the profile let the key out, idempotency-key-optional). */
  idempotency: { scope: IdempotencyScope; bodyHash: string } | undefined;
}

/** An answer: a status and a JSON body (none: an empty body, e.g. 204). */
export interface Answer {
  status: number;
  body?: unknown;
}

/** What a family supplies for one operation. Synchronous from the idempotency recall to the commit, so no other
 *  request with the same key can run in between (50 at once create one payment). */
export interface OperationHandler<R> {
  run(call: OperationCall<R>, deps: ResourceDeps): Answer;
  /** The answer to a replayed idempotent request: the resource created first, as it is now (201). */
  replay?(call: OperationCall<R>, resourceId: string, deps: ResourceDeps): Answer;
  /** The refusal of a key reused with another body (refusals.ts). */
  keyReused?: RefusalKind;
}

/** Runs one operation of a family: every step above, every refusal answered in the version's words. */
export async function runOperation<R>(request: OperationRequest<R>, handler: OperationHandler<R>, deps: ResourceDeps): Promise<void> {
  try {
    await answer(request, await prepare(request, handler, deps), deps);
  } catch (error) {
    await refuse(request, error, deps);
  }
}

async function prepare<R>(request: OperationRequest<R>, handler: OperationHandler<R>, deps: ResourceDeps): Promise<Answer> {
  const { req, ctx, operation, version } = request;
  if (!acceptsJson(req)) throw new ObieError(406, 'Accept must allow application/json');
  const { token, client } = await authenticate(request, deps);
  let body: unknown;
  let idempotency: OperationCall<R>['idempotency'];
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'POST') {
    if (!isJsonContentType(req)) throw new ObieError(415, 'Content-Type must be application/json');
    const text = await readBody(req);
    if (operation.signedRequest) {
      // OB R/W Data API Profile v4.0, "Message Signing": "If the signature fails validation, the ASPSP must respond
      // with a 400 (Bad Request)"; the key is one of the client's software statement.
      const fault = await verifyRequestSignature(headerOf(req, 'x-jws-signature'), text, {
        keys: client.signingKeys.keys,
        iss: `${client.orgId}/${client.softwareId}`,
        now: ctx.now(),
        iatSkewSeconds: tolerates(token.profile, 'signature-iat-skew') ? IAT_SKEW_SECONDS : 0,
      });
      if (fault !== undefined)
        throw new ObieError(400, 'The request signature is not valid', [
          { ErrorCode: fault.code, Message: fault.message, Path: fault.path },
        ]);
    }
    try {
      body = JSON.parse(text);
    } catch {
      throw new ObieError(400, 'The request body is not JSON', [
        { ErrorCode: 'UK.OBIE.Resource.InvalidFormat', Message: 'The request body is not well-formed JSON' },
      ]);
    }
  }
  const call: OperationCall<R> = { ...request, url: ctx.url, token, client, body, idempotency: undefined };
  if (operation.idempotent) {
    const key = headerOf(req, 'x-idempotency-key');
    if (key === undefined) {
      if (!tolerates(token.profile, 'idempotency-key-optional'))
        throw new ObieError(400, 'x-idempotency-key is required', [
          { ErrorCode: 'UK.OBIE.Header.Missing', Message: 'x-idempotency-key is required on this request', Path: 'x-idempotency-key' },
        ]);
    } else {
      const problem = keyProblem(key);
      if (problem !== undefined)
        throw new ObieError(400, 'x-idempotency-key is malformed', [
          { ErrorCode: 'UK.OBIE.Header.Invalid', Message: problem, Path: 'x-idempotency-key' },
        ]);
      const scope: IdempotencyScope = { clientId: token.clientId, operation: `${method} ${ctx.url.pathname}`, key };
      const bodyHash = bodyFingerprint(body);
      const recalled = deps.records.idempotency.recall(scope, bodyHash, ctx.now());
      if (recalled.outcome === 'replay' && handler.replay) return handler.replay(call, recalled.resourceId, deps);
      if (recalled.outcome === 'conflict')
        throw new AisRefusal(
          handler.keyReused ?? 'consent-key-reused',
          version,
          'This x-idempotency-key was used in the last 24 hours with another request body; nothing was changed',
        );
      idempotency = { scope, bodyHash };
    }
  }
  return handler.run({ ...call, idempotency }, deps);
}

/** The x-fapi-auth-date and Authorization rules of every family operation (a token of the operation's grant, bound to
 *  the presented certificate unless access-token-unbound, carrying the family's scope). */
async function authenticate<R>(
  request: OperationRequest<R>,
  deps: ResourceDeps,
): Promise<{ token: AccessTokenInfo; client: SandboxClient }> {
  const { req, ctx, operation, family, version } = request;
  const { token, client } = await bearerToken(req, ctx, operation.grant, deps);
  if (!token.scopes.includes(family.scope))
    throw new AisRefusal('scope-missing', version, `The access token was not issued for the ${family.scope} scope`);
  const authDate = req.headers['x-fapi-auth-date'];
  if (!tolerates(token.profile, 'last-logged-time-format') && typeof authDate === 'string' && !HTTP_DATE.test(authDate))
    throw new ObieError(400, 'x-fapi-auth-date is malformed', [
      {
        ErrorCode: 'UK.OBIE.Header.Invalid',
        Message: 'x-fapi-auth-date must be an RFC 7231 date, e.g. Sun, 10 Sep 2017 19:43:31 UTC',
        Path: 'x-fapi-auth-date',
      },
    ]);
  return { token, client };
}

/**
 * The request's bearer token (RFC 6750) of `grant`: live, its client still registered, and bound to the presented
 * certificate (RFC 8705 §3) unless the profile tolerates access-token-unbound; otherwise a 401 with no body and the
 * challenge. Every resource request, AIS (index.ts) and the other families', starts here.
 */
export async function bearerToken(
  req: IncomingMessage,
  ctx: RequestContext,
  grant: AccessTokenInfo['grant'],
  deps: ResourceDeps,
): Promise<{ token: AccessTokenInfo; client: SandboxClient }> {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header) : null;
  const challenge = (error?: string): Record<string, string> => ({ 'WWW-Authenticate': error ? `Bearer error="${error}"` : 'Bearer' });
  if (!match?.[1]) throw new ObieError(401, 'missing bearer token', [], challenge());
  const token = await deps.tokens.verify(match[1]);
  if (!token || token.expiresAt.getTime() <= ctx.now().getTime())
    throw new ObieError(401, 'unknown or expired token', [], challenge('invalid_token'));
  ctx.clientId = token.clientId;
  if (token.grant !== grant) throw new ObieError(401, `this endpoint needs a ${grant} token`, [], challenge('invalid_token'));
  const client = await deps.clients.get(token.clientId);
  if (!client) throw new ObieError(401, 'the client of this token is no longer registered', [], challenge('invalid_token'));
  if (!tolerates(token.profile, 'access-token-unbound') && !isBoundToPresentedCertificate(token, ctx))
    throw new ObieError(401, 'the token is bound to another certificate', [], challenge('invalid_token'));
  return { token, client };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Sends `answer`: JSON with the common headers, x-jws-signature over the exact bytes where the response is signed. */
async function answer<R>(request: OperationRequest<R>, result: Answer, deps: ResourceDeps): Promise<void> {
  const { res, ctx, operation } = request;
  if (result.body === undefined) {
    commonHeaders(res, ctx, {});
    res.statusCode = result.status;
    res.end();
    return;
  }
  const text = `${JSON.stringify(result.body)}\n`;
  const headers: Record<string, string> = {};
  if (operation.signedResponse) headers['x-jws-signature'] = await signResponse(text, await deps.messageSigner(), ctx.now());
  commonHeaders(res, ctx, headers);
  res.statusCode = result.status;
  res.end(text);
}

/**
 * A refusal in the version's words: on v4.0 every ErrorCode its OBExternalStatusReason1Code (refusals.ts toV4Error); a
 * body too large is 400 U010 there (v4.0 documents no 413); an emulator failure 500. Refusals with a body are signed
 * where the response is; the rest (no body, or an unsigned operation) go to serve.ts as every refusal does.
 */
async function refuse<R>(request: OperationRequest<R>, error: unknown, deps: ResourceDeps): Promise<void> {
  const { req, res, ctx, version, operation } = request;
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' || (error as Error | undefined)?.message === 'aborted')
    throw error;
  let refusal: ObieError;
  if (error instanceof ObieError) refusal = error;
  else if (isWireError(error)) throw error;
  else if (error instanceof BodyTooLargeError)
    refusal = new ObieError(
      VERSION_ROWS[version].tooLargeStatus,
      error.message,
      [{ ErrorCode: 'UK.OBIE.Resource.InvalidFormat', Message: error.message }],
      { Connection: 'close' },
    );
  else {
    process.emitWarning(
      `obflow sandbox: ${req.method ?? ''} ${ctx.url.pathname}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    refusal = ObieError.of(500, 'UK.OBIE.UnexpectedError', 'the sandbox failed to process this request');
  }
  const worded = VERSION_ROWS[version].worded(refusal);
  if (!operation.signedResponse || worded.errors.length === 0) throw worded;
  const body = errorBody(worded.status, worded.reference === 'interaction' ? ctx.interactionId : deps.newId(), worded.message, [
    ...worded.errors,
  ]);
  const text = `${JSON.stringify(body)}\n`;
  const signature = await signResponse(text, await deps.messageSigner(), ctx.now());
  commonHeaders(res, ctx, { ...worded.headers, 'x-jws-signature': signature });
  res.statusCode = worded.status;
  res.end(text);
}
