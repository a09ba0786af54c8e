// Which client authentication method obflow registers and uses (bank.token_endpoint_auth_method) against what the
// bank's discovery lists (OIDC Discovery §3 token_endpoint_auth_methods_supported; absent means client_secret_basic).

import { DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD } from '../client-auth.js';
import { ObflowError } from '../errors.js';
import type { TokenEndpointAuthMethod } from './claims.js';

/**
 * `auto` takes the first of these the bank lists: private_key_jwt first (a signed, short-lived, single-use assertion:
 * nothing replayable is stored or sent, and FAPI 1 Advanced Part 2 §5.2.2-14 allows only it and tls_client_auth),
 * then tls_client_auth (no secret either; the transport certificate is the credential, RFC 8705 §2.1), then
 * client_secret_basic (docs/bank-interface.md §2.1, a shared secret). docs/pipeline.md, "1. register".
 */
export const AUTO_ORDER: readonly TokenEndpointAuthMethod[] = ['private_key_jwt', 'tls_client_auth', 'client_secret_basic'];

/** Pure: the method to use; ERR_AUTH_METHOD_UNSUPPORTED naming the method and what the bank lists when it lists others. */
export function chooseAuthMethod(
  setting: TokenEndpointAuthMethod | 'auto',
  supported: readonly string[] | undefined,
): TokenEndpointAuthMethod {
  const listed = supported ?? [DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD];
  if (setting === 'auto') {
    const chosen = AUTO_ORDER.find((method) => listed.includes(method));
    if (chosen !== undefined) return chosen;
    throw unsupported('auto', listed);
  }
  // An explicit choice is refused only when the bank published a list without it; absent, the bank did not say.
  if (supported !== undefined && !supported.includes(setting)) throw unsupported(setting, supported);
  return setting;
}

function unsupported(setting: string, listed: readonly string[]): ObflowError {
  return new ObflowError(
    'ERR_AUTH_METHOD_UNSUPPORTED',
    `token_endpoint_auth_method ${setting === 'auto' ? `auto (${AUTO_ORDER.join(', ')})` : setting}: the bank's discovery lists ` +
      `token_endpoint_auth_methods_supported [${listed.join(', ')}]`,
    {
      hint: `Set bank.token_endpoint_auth_method to one the bank lists (${listed.filter((m) => AUTO_ORDER.includes(m as TokenEndpointAuthMethod)).join(', ') || 'none obflow speaks'}) or auto.`,
    },
  );
}
