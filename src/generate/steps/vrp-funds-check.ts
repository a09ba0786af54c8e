// Step: the authorised VRP consent and a funds confirmation under it (OB R/W VRP API, "Domestic VRP Consents", POST
// /domestic-vrp-consents/{ConsentId}/funds-confirmation with the PSU's token, signed): the consent is authorised and
// the account it pays from holds the first payment's amount.

import type { StepContext, StepSpec } from '../model.js';
import { planMandate } from '../vrp-plan.js';
import { answered, consentRead, familyHeaders, PAYMENT_CONTENT_TYPE, SIGN_BODY } from './payments-common.js';
import { vrp, vrpBody, VRP_CONSENT } from './vrp-common.js';

export function vrpFundsCheckStep(context: StepContext): StepSpec {
  const version = vrp(context);
  const plan = planMandate(version.settings);
  return {
    name: 'vrp-funds-check',
    title: 'VRP consent authorised, funds confirmed',
    description:
      `GETs the consent (now ${version.consentAuthorised}), then POSTs its funds-confirmation (signed) with the PSU's token for ` +
      `${plan.first.amount} ${plan.currency}: FundsAvailable must be ${version.fundsAvailable}.`,
    items: [
      consentRead(version, VRP_CONSENT, {
        step: 'vrp-funds-check',
        description: `After the PSU's consent the consent is ${version.consentAuthorised}, its ControlParameters unchanged.`,
        status: version.consentAuthorised,
      }),
      {
        name: 'vrp-funds-check: POST /domestic-vrp-consents/{ConsentId}/funds-confirmation',
        description: "With the PSU's token (authorization code grant), signed: whether the account holds the first payment's amount now.",
        method: 'POST',
        url: `${version.base}/domestic-vrp-consents/{{consent_id}}/funds-confirmation`,
        headers: familyHeaders('access_token', [['Content-Type', PAYMENT_CONTENT_TYPE]]),
        body: vrpBody('domestic-vrp-funds-confirmation', { amount: plan.first.amount, currency: plan.currency }),
        prerequest: [SIGN_BODY],
        test: answered(version, 201, 'funds-confirmation', { template: 'vrp-funds.test', params: { available: version.fundsAvailable } }),
      },
    ],
  };
}
