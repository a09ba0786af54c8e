// The sandbox profile's unsigned request objects (docs/bank-interface.md §5.2: alg `none`), which oidc-provider v9
// does not accept: decode one and hand its claims to the authorisation endpoint as parameters. OIDC Core §6.1: the
// request object's values are the ones used, so they replace same-named query parameters.

import type { Middleware } from 'oidc-provider';

/** The JWT's own claims (RFC 7519 §4.1), not authorisation parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'iat', 'nbf', 'exp', 'jti']);

export const unsignedRequestObjectMiddleware: Middleware = async (ctx, next) => {
  if (ctx.path === '/.well-known/openid-configuration') {
    // OIDC Discovery §3 request_object_signing_alg_values_supported: say that `none` is accepted, as it is here.
    await next();
    const body = ctx.body as { request_object_signing_alg_values_supported?: string[] } | undefined;
    body?.request_object_signing_alg_values_supported?.push('none');
    return;
  }
  const request = ctx.query.request;
  if (ctx.path !== '/auth' || typeof request !== 'string') return next();
  const [header, payload, signature] = request.split('.');
  const decode = (part: string | undefined): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  // Anything but a well-formed unsigned JWT goes on to oidc-provider, which verifies or refuses it.
  const claims = decode(payload);
  if (decode(header)?.alg !== 'none' || signature !== '' || claims === undefined) return next();
  const query = new URLSearchParams(ctx.request.querystring);
  query.delete('request');
  for (const [name, value] of Object.entries(claims)) {
    if (!JWT_CLAIMS.has(name)) query.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  (ctx as { querystring: string } & typeof ctx).querystring = query.toString();
  return next();
};
