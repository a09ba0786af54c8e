// Step: the authorised consent and its funds confirmation (OB R/W Payment Initiation API, "Domestic Payment Consents",
// GET /domestic-payment-consents/{ConsentId}/funds-confirmation, with the PSU's token): the consent is authorised and
// the account it will be paid from holds the amount.

import type { StepContext, StepSpec } from '../model.js';
import { consentRead, PAYMENT_CONSENT, pis, resourceGet } from './payments-common.js';

export function paymentFundsCheckStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  const authorised = version.statuses.consentAuthorised;
  return {
    name: 'payment-funds-check',
    title: 'Payment consent authorised, funds confirmed',
    description: `GETs the consent (now ${authorised}), then its funds-confirmation with the PSU's token: FundsAvailable must be true.`,
    items: [
      consentRead(version, PAYMENT_CONSENT, {
        step: 'payment-funds-check',
        description: `After the PSU's consent the consent is ${authorised} (the "Payment Order Consent" state model).`,
        status: authorised,
      }),
      resourceGet(version, {
        name: 'payment-funds-check: GET /domestic-payment-consents/{ConsentId}/funds-confirmation',
        description: "With the PSU's token (authorization code grant): whether the account to be debited holds the amount now.",
        url: `${version.base}/domestic-payment-consents/{{consent_id}}/funds-confirmation`,
        tokenVariable: 'access_token',
        schema: 'obie-pis-funds-confirmation',
        check: { template: 'payment-funds.test' },
      }),
    ],
  };
}
