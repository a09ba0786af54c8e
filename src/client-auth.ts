// Client authentication at the token endpoint, one vocabulary: the methods by name, the one obflow assumes when nothing
// names one, and private_key_jwt's assertion (type, lifetime). The `Authorization: Basic` encoding of
// client_secret_basic is basicCredentials in src/runner-rules.ts (shared with every workspace's runner). A room of its
// own below config/, registration/, generate/ and pipeline/ (all import it), dependency-free: `obflow sandbox
// --token-auth` checks its value against it, and the command modules load at `--help` time, before any schema
// (src/config/schema.ts re-exports it). Postman scripts cannot import: client-auth.prerequest.js and discovery.test.js
// have the default and the assertion type rendered in from here (the generator's params), byte for byte as before.

/** Client authentication at the token endpoint (OIDC Core §9; RFC 7523; RFC 8705 §2.1), as the registration asks for it. */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt', 'tls_client_auth'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** The method when nothing names one: the shared secret of docs/bank-interface.md §2.1 — bank.token_endpoint_auth_method
 *  unset, a registration file from before the setting, a discovery without token_endpoint_auth_methods_supported (OIDC
 *  Discovery §3). The one place it is written as a default (test/unit/architecture.test.ts). */
export const DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD: TokenEndpointAuthMethod = 'client_secret_basic';

/** private_key_jwt's client_assertion_type (RFC 7523 §2.2). */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The client assertion's lifetime (exp − iat), in seconds: obflow's own token calls and the collections' pre-request. */
export const CLIENT_ASSERTION_LIFETIME_SECONDS = 300;
