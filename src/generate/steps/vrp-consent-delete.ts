// Step: the mandate revoked (OB R/W VRP API, DELETE /domestic-vrp-consents/{ConsentId}: "the PISP must indicate to the
// ASPSP that the PSU has revoked consent", and "The ASPSP must fail any future payment order request using the
// ConsentId"): 204, then a payment under it is refused and nothing is made.

import type { StepContext, StepSpec } from '../model.js';
import { consentDelete, refused } from './payments-common.js';
import { paymentPost, VRP_CONSENT, VRP_REFUSALS, vrp } from './vrp-common.js';

export function vrpConsentDeleteStep(context: StepContext): StepSpec {
  const version = vrp(context);
  const amount = '0.01';
  return {
    name: 'vrp-consent-delete',
    title: 'VRP consent deleted',
    description: `DELETEs the VRP consent (the PSU revoked the mandate): 204 with no body; then a payment of ${amount} under it must be refused.`,
    items: [
      consentDelete(version, VRP_CONSENT, {
        step: 'vrp-consent-delete',
        description: 'The mandate ends: no payment may be made under it any more.',
        check: { template: 'vrp-consent-delete.test' },
      }),
      {
        name: 'vrp-consent-delete: POST /domestic-vrps under the deleted consent (refused)',
        description:
          '"The ASPSP must fail any future payment order request using the ConsentId": refused (400, or the revoked token\'s 401/403), nothing made.',
        ...paymentPost(version, amount),
        test: refused(
          version,
          {
            template: 'vrp-revoked.test',
            params: {
              refusals: VRP_REFUSALS.revoked,
              amount,
              currency: version.settings.controlParameters.MaximumIndividualAmount.Currency,
            },
          },
          'if-present',
        ),
      },
    ],
  };
}
