// Step: the authorised consent and its funds confirmation (OB R/W Payment Initiation API, "Domestic Payment Consents",
// GET /domestic-payment-consents/{ConsentId}/funds-confirmation, with the PSU's token): the consent is authorised and
// the account it will be paid from holds the amount.

import type { StepContext, StepSpec } from '../model.js';
import { answerChecks, BANK_SIGNATURE, familyHeaders, pis } from './payments-common.js';

export function paymentFundsCheckStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  const consent = `${version.base}/domestic-payment-consents/{{consent_id}}`;
  return {
    name: 'payment-funds-check',
    title: 'Payment consent authorised, funds confirmed',
    description: `GETs the consent (now ${version.statuses.consentAuthorised}), then its funds-confirmation with the PSU's token: FundsAvailable must be true.`,
    items: [
      {
        name: 'payment-funds-check: GET /domestic-payment-consents/{ConsentId}',
        description: `After the PSU's consent the consent is ${version.statuses.consentAuthorised} (the "Payment Order Consent" state model).`,
        method: 'GET',
        url: consent,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...answerChecks(version, 200, 'obie-pis-consent-read'),
          BANK_SIGNATURE,
          { template: 'payment-consent-read.test', params: { status: version.statuses.consentAuthorised } },
        ],
      },
      {
        name: 'payment-funds-check: GET /domestic-payment-consents/{ConsentId}/funds-confirmation',
        description: "With the PSU's token (authorization code grant): whether the account to be debited holds the amount now.",
        method: 'GET',
        url: `${consent}/funds-confirmation`,
        headers: familyHeaders('access_token'),
        prerequest: [],
        test: [...answerChecks(version, 200, 'obie-pis-funds-confirmation'), BANK_SIGNATURE, { template: 'payment-funds.test' }],
      },
    ],
  };
}
