// Step: client credentials grant (docs/bank-interface.md §5.3 step 1): a token with the family's scope (accounts,
// payments, fundsconfirmations) for its consent calls.

import { familyScope } from '../../api-families.js';
import type { StepContext, StepSpec } from '../model.js';
import { checks, clientAuthPrerequest, tokenPost } from './common.js';

export function clientCredentialsStep(context: Pick<StepContext, 'fapi' | 'family'>): StepSpec {
  const scope = familyScope(context.family);
  return {
    name: 'client-credentials',
    title: 'Client credentials token',
    description: `POST {{tokenEndpoint}} with the registered client authentication (client_secret_basic by default), grant_type client_credentials, scope ${scope}; writes client_credentials_token.`,
    items: [
      {
        name: 'client-credentials: POST token',
        description:
          'RFC 6749 §4.4.2, authenticated with the registered client authentication (client_secret_basic by default) (docs/bank-interface.md §5.2).',
        ...tokenPost([
          ['grant_type', 'client_credentials'],
          ['scope', scope],
        ]),
        prerequest: [clientAuthPrerequest(context)],
        test: [
          ...checks({ status: 200, echo: 'if-present', schema: 'token-response', errors: 'oauth' }),
          { template: 'client-credentials.test', params: { scope } },
        ],
      },
    ],
  };
}
