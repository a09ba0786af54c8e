// Step: discovery (docs/bank-interface.md §4.3): GET the OpenID configuration; its endpoints feed the later steps.

import type { StepSpec } from '../model.js';
import { authServerHeaders, checks } from './common.js';

export function discoveryStep(): StepSpec {
  return {
    name: 'discovery',
    title: 'Discovery',
    description: 'GET {{configEndpoint}}: the provider configuration; writes authEndpoint, tokenEndpoint and jwksUri.',
    items: [
      {
        name: 'discovery: GET openid-configuration',
        description: 'OIDC Discovery 1.0 §4: the issuer, endpoints and supported features.',
        method: 'GET',
        url: '{{configEndpoint}}',
        headers: authServerHeaders(),
        prerequest: [],
        test: [
          ...checks({ status: 200, echo: 'if-present', schema: 'openid-configuration' }),
          { template: 'discovery.test' },
          { template: 'discovery-jwks.test' },
        ],
      },
    ],
  };
}
