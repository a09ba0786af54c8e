// OBIE DCR v3.2 in front of oidc-provider's own registration (docs/bank-interface.md §2.1, §4.1): the body is a JWT
// signed with the software statement's software_jwks, the statement by the directory; its claims become client
// metadata (RFC 7591 §2) and oidc-provider creates the client (201). Also the few helpers the glue shares.

import { X509Certificate } from 'node:crypto';
import { text } from 'node:stream/consumers';
import type { TLSSocket } from 'node:tls';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { KoaContext, Middleware } from 'oidc-provider';

export const REGISTRATION_PATH = '/dynamic-client-registration/v3.2/register';

/** Answer `status` with `body`; with none at all by default (an explicit null: Koa sends no status text). */
export function reply(ctx: KoaContext, status: number, body: unknown = null): void {
  ctx.body = body;
  ctx.status = status;
}
const refuse = (ctx: KoaContext, error: string, error_description: string) => reply(ctx, 400, { error, error_description });

export function peerCertificate(ctx: KoaContext): X509Certificate | undefined {
  const raw = (ctx.req.socket as TLSSocket).getPeerCertificate(false).raw as Buffer | undefined;
  return raw === undefined ? undefined : new X509Certificate(raw);
}

/** RFC 8705 §2.1.2 tls_client_auth_subject_dn of the connection's certificate: the RFC 4514 string, most specific RDN
 *  first (node lists them in certificate order, one a line). The bank compares the registered string with it exactly. */
export const peerSubjectDn = (ctx: KoaContext): string | undefined => peerCertificate(ctx)?.subject.split('\n').reverse().join(',');

/** The claims oidc-provider takes as they are (it adds `implicit` for `code id_token` itself, OIDC Registration §2). */
const AS_IS = 'redirect_uris response_types grant_types scope application_type subject_type id_token_signed_response_alg'.split(' ');

export function registrationMiddleware(profile: 'sandbox' | 'strict', directoryJwks: JSONWebKeySet, issuer: string): Middleware {
  const directory = createLocalJWKSet(directoryJwks);
  const ps256 = { algorithms: ['PS256'], clockTolerance: 60 };
  return async (ctx, next) => {
    if (ctx.path !== REGISTRATION_PATH || ctx.method !== 'POST') return next();
    // Only a signed JWT: plain JSON would let a caller set any metadata it likes.
    if (!/^application\/jwt\b/i.test(ctx.get('content-type')))
      return refuse(ctx, 'invalid_request', 'Content-Type must be application/jwt');
    let claims: JWTPayload;
    let statement: JWTPayload;
    try {
      const jwt = await text(ctx.req);
      const unverified = decodeJwt(jwt).software_statement;
      if (typeof unverified !== 'string') throw new TypeError('software_statement is missing');
      ({ payload: statement } = await jwtVerify(unverified, directory, ps256));
      const softwareJwks = statement.software_jwks as JSONWebKeySet | undefined;
      if (softwareJwks === undefined) throw new TypeError('the software statement carries no software_jwks');
      const expected = { ...ps256, audience: issuer, issuer: String(statement.software_id), requiredClaims: ['iat', 'exp', 'jti'] };
      ({ payload: claims } = await jwtVerify(jwt, createLocalJWKSet(softwareJwks), expected));
    } catch (error) {
      return refuse(ctx, 'invalid_software_statement', `registration JWT refused: ${(error as Error).message}`);
    }
    const { token_endpoint_auth_method: method, request_object_signing_alg: requestAlg } = claims;
    // oidc-provider has no unsigned request objects: the sandbox decodes them itself (request-object.ts).
    if (requestAlg === 'none' && profile === 'strict') {
      return refuse(ctx, 'invalid_client_metadata', 'request_object_signing_alg none is not accepted (FAPI 1 Advanced §5.2.2-1)');
    }
    ctx.request.body = {
      ...Object.fromEntries(AS_IS.map((name) => [name, claims[name]])),
      token_endpoint_auth_method: method,
      ...(method === 'private_key_jwt' ? { token_endpoint_auth_signing_alg: claims.token_endpoint_auth_signing_alg } : {}),
      // The TPP's own DN claim (RFC 8705 §2.1.2), which the token endpoint compares with the certificate.
      ...(method === 'tls_client_auth' ? { tls_client_auth_subject_dn: claims.tls_client_auth_subject_dn } : {}),
      ...(requestAlg !== undefined && requestAlg !== 'none' ? { request_object_signing_alg: requestAlg } : {}),
      jwks: statement.software_jwks,
      tls_client_certificate_bound_access_tokens: true,
      software_id: statement.software_id,
    };
    ctx.req.headers['content-type'] = 'application/json';
    return next();
  };
}
