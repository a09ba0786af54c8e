// The sandbox profile's unsigned request objects (docs/bank-interface.md §5.2, alg `none`), which oidc-provider v9
// does not accept: their claims become the authorisation parameters, replacing same-named ones (OIDC Core §6.1).

import { decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Middleware } from 'oidc-provider';

/** The JWT's own claims (RFC 7519 §4.1), not authorisation parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'iat', 'nbf', 'exp', 'jti']);

function unsignedClaims(jwt: string): JWTPayload | undefined {
  try {
    return decodeProtectedHeader(jwt).alg === 'none' && jwt.endsWith('.') ? decodeJwt(jwt) : undefined;
  } catch {
    return undefined;
  }
}

export const unsignedRequestObjectMiddleware: Middleware = async (ctx, next) => {
  if (ctx.path === '/.well-known/openid-configuration') {
    // OIDC Discovery §3: list `none` in request_object_signing_alg_values_supported, as it is accepted here.
    await next();
    (ctx.body as { request_object_signing_alg_values_supported?: string[] } | undefined)?.request_object_signing_alg_values_supported?.push(
      'none',
    );
    return;
  }
  // Anything but a well-formed unsigned JWT goes on to oidc-provider, which verifies or refuses it.
  const claims = ctx.path === '/auth' && typeof ctx.query.request === 'string' ? unsignedClaims(ctx.query.request) : undefined;
  if (claims === undefined) return next();
  const query = new URLSearchParams(ctx.request.querystring);
  query.delete('request');
  for (const [name, value] of Object.entries(claims)) {
    if (!JWT_CLAIMS.has(name)) query.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  ctx.querystring = query.toString();
  return next();
};
