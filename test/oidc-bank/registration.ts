// OBIE DCR v3.2 in front of oidc-provider's own registration: the body is a JWT signed by the TPP (docs/bank-interface.md
// §2.1, §4.1). Verify the software statement against the directory's keys and the request against the statement's
// software_jwks, map the claims to client metadata (RFC 7591 §2) and let oidc-provider create the client (201).

import type { X509Certificate } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { KoaContext, Middleware } from 'oidc-provider';

export const REGISTRATION_PATH = '/dynamic-client-registration/v3.2/register';

interface RegistrationOptions {
  profile: 'sandbox' | 'strict';
  directoryJwks: JSONWebKeySet;
  issuer: string;
}

function refuse(ctx: KoaContext, error: string, description: string): void {
  ctx.status = 400;
  ctx.body = { error, error_description: description };
}

async function rawBody(ctx: KoaContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** RFC 8705 §2.1.2 tls_client_auth_subject_dn: the RFC 4514 string, most specific RDN first (node lists the RDNs in
 *  certificate order, one a line). This bank compares the registered string with it exactly. */
export function subjectDnOf(certificate: X509Certificate): string {
  return certificate.subject.split('\n').reverse().join(',');
}

export function registrationMiddleware(options: RegistrationOptions): Middleware {
  const directory = createLocalJWKSet(options.directoryJwks);
  return async (ctx, next) => {
    if (ctx.path !== REGISTRATION_PATH || ctx.method !== 'POST') return next();
    // Anything but a signed JWT is refused: plain JSON would let a caller set any metadata it likes.
    if (!/^application\/jwt\b/i.test(ctx.get('content-type')))
      return refuse(ctx, 'invalid_request', 'Content-Type must be application/jwt');
    let claims: JWTPayload;
    let statement: JWTPayload;
    try {
      const jwt = await rawBody(ctx);
      const unverified = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as JWTPayload;
      if (typeof unverified.software_statement !== 'string') throw new TypeError('software_statement is missing');
      ({ payload: statement } = await jwtVerify(unverified.software_statement, directory, { algorithms: ['PS256'], clockTolerance: 60 }));
      const softwareJwks = statement.software_jwks as JSONWebKeySet | undefined;
      if (softwareJwks === undefined) throw new TypeError('the software statement carries no software_jwks');
      ({ payload: claims } = await jwtVerify(jwt, createLocalJWKSet(softwareJwks), {
        algorithms: ['PS256'],
        audience: options.issuer,
        issuer: String(statement.software_id),
        requiredClaims: ['iat', 'exp', 'jti'],
        clockTolerance: 60,
      }));
    } catch (error) {
      return refuse(ctx, 'invalid_software_statement', `registration JWT refused: ${(error as Error).message}`);
    }
    const responseTypes = claims.response_types as string[];
    const method = claims.token_endpoint_auth_method as string;
    const requestAlg = claims.request_object_signing_alg as string | undefined;
    // oidc-provider has no unsigned request objects: the sandbox profile decodes them itself (request-object.ts).
    if (requestAlg === 'none' && options.profile === 'strict') {
      return refuse(ctx, 'invalid_client_metadata', 'request_object_signing_alg none is not accepted (FAPI 1 Advanced §5.2.2-1)');
    }
    const metadata = {
      redirect_uris: claims.redirect_uris,
      response_types: responseTypes,
      // oidc-provider adds `implicit` for `code id_token` itself (OIDC Registration §2's table).
      grant_types: claims.grant_types,
      scope: claims.scope,
      application_type: claims.application_type,
      subject_type: claims.subject_type,
      id_token_signed_response_alg: claims.id_token_signed_response_alg,
      token_endpoint_auth_method: method,
      ...(method === 'private_key_jwt' ? { token_endpoint_auth_signing_alg: claims.token_endpoint_auth_signing_alg } : {}),
      // The TPP's own DN claim, as RFC 8705 §2.1.2 has it: the token endpoint compares it with the certificate.
      ...(method === 'tls_client_auth' ? { tls_client_auth_subject_dn: claims.tls_client_auth_subject_dn } : {}),
      ...(requestAlg !== undefined && requestAlg !== 'none' ? { request_object_signing_alg: requestAlg } : {}),
      jwks: statement.software_jwks,
      tls_client_certificate_bound_access_tokens: true,
      software_id: statement.software_id,
    };
    ctx.request.body = metadata;
    ctx.req.headers['content-type'] = 'application/json';
    return next();
  };
}
