// Step: refresh (RFC 6749 §6): a new access token from the refresh token of the code exchange, client_secret_basic as
// registered (token_endpoint_auth_method), then a read with it. Both skipped, with the reason, when the bank issued no
// refresh token.

import type { StepContext, StepSpec } from '../model.js';
import { accountsRead, ais, checks, clientAuthPrerequest, tokenPost } from './common.js';

export function refreshStep(context: StepContext): StepSpec {
  return {
    name: 'refresh',
    title: 'Refresh',
    description:
      'POST {{tokenEndpoint}} with the registered client authentication (client_secret_basic by default), grant_type refresh_token; writes the new access_token, ' +
      'then GET /accounts with it (same consent, same accounts). Skipped when the bank issued no refresh_token.',
    items: [
      {
        name: 'refresh: POST token',
        description:
          'RFC 6749 §6: the refresh token grant; the new access token is bound to the same consent (and, FAPI, the same certificate).',
        ...tokenPost([
          ['grant_type', 'refresh_token'],
          ['refresh_token', '{{refresh_token}}'],
        ]),
        prerequest: [{ template: 'refresh.prerequest' }, clientAuthPrerequest(context)],
        test: [...checks({ status: 200, echo: 'if-present', schema: 'token-response', errors: 'oauth' }), { template: 'refresh.test' }],
      },
      {
        name: 'refresh: GET /accounts with the new token',
        description: `${ais(context).label} Accounts with the refreshed access token: the same accounts as before.`,
        ...accountsRead({ template: 'refresh-read.test' }, context),
        // Skipped with the refresh: the old access token must not pass for a refreshed one.
        prerequest: [{ template: 'refresh-read.prerequest' }],
      },
    ],
  };
}
