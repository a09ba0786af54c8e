// Step: client credentials grant (docs/bank-interface.md §5.3 step 1): a token with scope accounts for the consent calls.

import type { StepSpec } from '../model.js';
import { checks, tokenPost } from './common.js';

export function clientCredentialsStep(): StepSpec {
  return {
    name: 'client-credentials',
    title: 'Client credentials token',
    description:
      'POST {{tokenEndpoint}} with client_secret_basic, grant_type client_credentials, scope accounts; writes client_credentials_token.',
    items: [
      {
        name: 'client-credentials: POST token',
        description: 'RFC 6749 §4.4.2, authenticated with client_secret_basic (docs/bank-interface.md §5.2).',
        ...tokenPost([
          ['grant_type', 'client_credentials'],
          ['scope', 'accounts'],
        ]),
        prerequest: [],
        test: [
          ...checks({ status: 200, echo: 'if-present', schema: 'token-response', errors: 'oauth' }),
          { template: 'client-credentials.test' },
        ],
      },
    ],
  };
}
