// Step: the consent revoked (OB R/W Confirmation of Funds API, DELETE /funds-confirmation-consents/{ConsentId}: "the
// CBPII deletes it when the PSU revokes"): 204, no body.

import type { StepContext, StepSpec } from '../model.js';
import { checks } from './common.js';
import { cof, familyHeaders } from './payments-common.js';

export function fundsConsentDeleteStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = cof(context);
  return {
    name: 'funds-consent-delete',
    title: 'Funds confirmation consent deleted',
    description: 'DELETEs the funds confirmation consent (the PSU revoked it): 204 with no body.',
    items: [
      {
        name: 'funds-consent-delete: DELETE /funds-confirmation-consents/{ConsentId}',
        description: 'The consent ends: its tokens stop confirming funds.',
        method: 'DELETE',
        url: `${version.base}/funds-confirmation-consents/{{consent_id}}`,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [...checks({ status: 204, echo: 'required', ...version.errors }), { template: 'funds-consent-delete.test' }],
      },
    ],
  };
}
