// Step: confirmation of funds (OB R/W Confirmation of Funds API, POST /funds-confirmations with the PSU's token): the
// consent is authorised, an amount the account holds is confirmed (FundsAvailable true), one beyond it is not (false).

import type { RequestItemSpec, StepContext, StepSpec } from '../model.js';
import { answered, cof, familyHeaders, consentRead, FUNDS_CONSENT, PAYMENT_CONTENT_TYPE, type FundsVersion } from './payments-common.js';

/** The funds checks' Reference (Max35Text): what the PSU's bank may show them. */
export const FUNDS_CHECK_REFERENCE = 'obflow funds check';

function check(version: FundsVersion, expected: boolean): RequestItemSpec {
  const amountVariable = expected ? 'funds_available_amount' : 'funds_unavailable_amount';
  return {
    name: `funds-confirmation: POST /funds-confirmations, ${expected ? 'an amount the account holds' : 'an amount beyond the account'}`,
    description: `{{${amountVariable}}} must be answered FundsAvailable ${String(expected)}.`,
    method: 'POST',
    url: `${version.base}/funds-confirmations`,
    headers: familyHeaders('access_token', [['Content-Type', PAYMENT_CONTENT_TYPE]]),
    body: {
      mode: 'raw',
      template: 'funds-confirmation',
      contentType: PAYMENT_CONTENT_TYPE,
      params: { amount: `{{${amountVariable}}}`, reference: FUNDS_CHECK_REFERENCE },
    },
    prerequest: [],
    test: answered(version, 201, 'obie-cof-confirmation', { template: 'funds-confirmation.test', params: { expected, amountVariable } }),
  };
}

export function fundsConfirmationStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = cof(context);
  return {
    name: 'funds-confirmation',
    title: 'Confirmation of funds',
    description:
      `GETs the consent (now ${version.consentAuthorised}), then POSTs /funds-confirmations with the PSU's token for ` +
      'funds_available_amount (FundsAvailable true) and funds_unavailable_amount (false); writes funds_checks.',
    items: [
      consentRead(version, FUNDS_CONSENT, {
        step: 'funds-confirmation',
        description: `After the PSU's consent the consent is ${version.consentAuthorised}.`,
        status: version.consentAuthorised,
      }),
      check(version, true),
      check(version, false),
    ],
  };
}
