// Step: account-access consent (AIS v3.1 Account Access Consents): POST it, then GET it (AwaitingAuthorisation).

import type { StepContext, StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks } from './common.js';

export function accountAccessConsentStep(context: StepContext): StepSpec {
  return {
    name: 'account-access-consent',
    title: 'Account access consent',
    description: 'POST /account-access-consents with the client credentials token, then GET it back; writes consent_id.',
    items: [
      {
        name: 'account-access-consent: POST /account-access-consents',
        description: 'Creates the consent the PSU will authorise: Status AwaitingAuthorisation, our permissions.',
        method: 'POST',
        url: `${AIS_BASE}/account-access-consents`,
        headers: [...aisHeaders('client_credentials_token'), ['Content-Type', AIS_CONTENT_TYPE]],
        body: {
          mode: 'raw',
          template: 'account-access-consent',
          contentType: AIS_CONTENT_TYPE,
          params: { permissions: context.permissions },
        },
        prerequest: [],
        test: [
          ...checks({ status: 201, echo: 'required', schema: 'obie-consent-created', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
          { template: 'consent-create.test', params: { permissions: context.permissions } },
        ],
      },
      {
        name: 'account-access-consent: GET /account-access-consents/{ConsentId}',
        description: 'Reads the consent back before the PSU sees it.',
        method: 'GET',
        url: `${AIS_BASE}/account-access-consents/{{consent_id}}`,
        headers: aisHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...checks({ status: 200, echo: 'required', schema: 'obie-consent-read', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
          { template: 'consent-read.test' },
        ],
      },
    ],
  };
}
