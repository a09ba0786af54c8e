// Step: the consent revoked (OB R/W Confirmation of Funds API, DELETE /funds-confirmation-consents/{ConsentId}: "the
// CBPII deletes it when the PSU revokes"): 204, no body.

import type { StepContext, StepSpec } from '../model.js';
import { cof, consentDelete, FUNDS_CONSENT } from './payments-common.js';

export function fundsConsentDeleteStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  return {
    name: 'funds-consent-delete',
    title: 'Funds confirmation consent deleted',
    description: 'DELETEs the funds confirmation consent (the PSU revoked it): 204 with no body.',
    items: [
      consentDelete(cof(context), FUNDS_CONSENT, {
        step: 'funds-consent-delete',
        description: 'The consent ends: its tokens stop confirming funds.',
        check: { template: 'funds-consent-delete.test' },
      }),
    ],
  };
}
