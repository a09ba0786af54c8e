// Client authentication at the token endpoint, by name. Dependency-free: `obflow sandbox --token-auth` checks its value
// against it, and the command modules load at `--help` time, before any schema (src/config/schema.ts re-exports it).

/** Client authentication at the token endpoint (OIDC Core §9; RFC 7523; RFC 8705 §2.1), as the registration asks for it. */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt', 'tls_client_auth'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
