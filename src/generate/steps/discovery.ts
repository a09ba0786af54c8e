// Step: discovery (docs/bank-interface.md §4.3): GET the OpenID configuration; its endpoints feed the later steps.

import { API_FAMILIES, familyScope } from '../../api-families.js';
import { DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD } from '../../client-auth.js';
import type { StepContext, StepSpec } from '../model.js';
import { authServerHeaders, checks } from './common.js';

export function discoveryStep(context?: Pick<StepContext, 'par' | 'jarm' | 'family'>): StepSpec {
  // The family's scope must be offered where the bank interface lists it (docs/bank-interface.md §4.3: the service,
  // accounts, payments); elsewhere OIDC Discovery 1.0 §3 lets a server leave a scope it supports out of scopes_supported.
  const family = context?.family ?? API_FAMILIES.accounts;
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
          {
            template: 'discovery.test',
            params: {
              defaultAuthMethod: DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD,
              scope: familyScope(family),
              scopeListed: family.interfaceScope,
            },
          },
          { template: 'discovery-jwks.test' },
          // What flow.par sends must be offered (RFC 9126 §5, RFC 8414 §2); writes parEndpoint.
          ...(context?.par === true ? [{ template: 'discovery-par.test' }] : []),
          // JARM (flow.jarm) must be offered (JARM §3, §4).
          ...(context?.jarm === true ? [{ template: 'discovery-jarm.test' }] : []),
        ],
      },
    ],
  };
}
