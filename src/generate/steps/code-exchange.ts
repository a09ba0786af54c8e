// Step: code exchange (docs/bank-interface.md §5.3 step 5): authorization_code grant → the AIS access token.

import type { StepContext, StepSpec } from '../model.js';
import { checks, clientAuthPrerequest, tokenPost } from './common.js';

export function codeExchangeStep(context: Pick<StepContext, 'par' | 'fapi'>): StepSpec {
  return {
    name: 'code-exchange',
    title: 'Code exchange',
    description:
      'POST {{tokenEndpoint}} with the registered client authentication (client_secret_basic by default), grant_type authorization_code, auth_code and redirectUrl; ' +
      'writes access_token (and refresh_token); verifies the id_token signature and keeps it as token_id_token.',
    items: [
      {
        name: 'code-exchange: POST token',
        description: 'RFC 6749 §4.1.3: the code is single-use and bound to the client and redirect_uri.',
        ...tokenPost([
          ['grant_type', 'authorization_code'],
          ['code', '{{auth_code}}'],
          ['redirect_uri', '{{redirectUrl}}'],
          // RFC 7636 §4.5: the verifier of the pushed request's code_challenge (flow.par).
          ...(context.par === true ? [['code_verifier', '{{code_verifier}}'] as const] : []),
        ]),
        prerequest: [clientAuthPrerequest(context)],
        test: [
          ...checks({ status: 200, echo: 'if-present', schema: 'token-response', errors: 'oauth' }),
          { template: 'code-exchange.test' },
          { template: 'token-id-token.test' },
        ],
      },
    ],
  };
}
