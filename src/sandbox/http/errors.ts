// The emulator's wire errors, one family for both origins: a handler throws, and index.ts (serve) answers it in one
// place, as oidc-provider maps its error classes once. OAuthError is an RFC 6749 / OIDC / RFC 7591 error; ObieError an
// OBIE OBErrorResponse1 refusal of the resource origin (registration's mutual-TLS refusal, the environment helper, AIS).

import type { ObError } from './io.js';

/**
 * Where an OAuth error goes (RFC 6749 §4.1.2.1, §5.2):
 * - `body`: a JSON `{ error, error_description }` answer (token endpoint, registration, discovery, unknown paths);
 * - `page`: an HTML page at the bank for the PSU's browser (the authorization endpoint when the redirect URI is not
 *   verified, and the PSU pages), titled `title`, showing the error code too when `showCode`;
 * - `redirect`: back to the client's verified redirect URI, in the query for `code`, else in the fragment (OIDC Core
 *   §3.3.2.6), with `state` when the request had one and `iss` when the server sends it (RFC 9207 §2, FAPI 2.0).
 */
export type OAuthDelivery =
  | { to: 'body' }
  | { to: 'page'; title: string; showCode: boolean }
  | {
      to: 'redirect';
      redirectUri: string;
      responseType: string;
      state: string | undefined;
      iss?: string;
      /** JARM §2.4: the error goes back signed, as a `response` JWT for this client (the authorisation handlers sign
       *  it: auth/authorize.ts answeringJarmErrors). */
      responseJwtFor?: string;
    };

export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  constructor(
    readonly status: number,
    /** The `error` code on the wire (RFC 6749 §4.1.2.1 / §5.2, RFC 7591 §3.2.2, DCR v3.2). */
    readonly error: string,
    /** The `error_description` (made RFC 6749-safe when sent). */
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly delivery: OAuthDelivery = { to: 'body' },
  ) {
    super(message);
  }
}

/** A page for the PSU's browser at the bank (no redirect): `title` over `message`. */
export function pageError(status: number, title: string, message: string, headers: Readonly<Record<string, string>> = {}): OAuthError {
  return new OAuthError(status, 'invalid_request', message, headers, { to: 'page', title, showCode: false });
}

/**
 * An OBErrorResponse1 refusal (OBIE Read/Write Data API Profile, "Error Response Structure"): with `errors`, a body
 * whose `Message` is `message`; without, an empty body (401s, 406, 415 as the AIS OpenAPI files define them). The
 * body's `Id` is a fresh id (AIS refusals) or the request's interaction id (`reference: 'interaction'`).
 */
export class ObieError extends Error {
  override readonly name = 'ObieError';
  constructor(
    readonly status: number,
    message: string,
    readonly errors: readonly ObError[] = [],
    readonly headers: Readonly<Record<string, string>> = {},
    readonly reference: 'fresh' | 'interaction' = 'fresh',
  ) {
    super(message);
  }

  /** One OBError1 with `errorCode`, its message the body's, referenced by the interaction id. */
  static of(status: number, errorCode: string, message: string, headers: Readonly<Record<string, string>> = {}): ObieError {
    return new ObieError(status, message, [{ ErrorCode: errorCode, Message: message }], headers, 'interaction');
  }
}

export type WireError = OAuthError | ObieError;

export function isWireError(error: unknown): error is WireError {
  return error instanceof OAuthError || error instanceof ObieError;
}
