// Step: the payment's details (OB R/W Payment Initiation API, GET /domestic-payments/{DomesticPaymentId}/
// payment-details, optional for a bank): where the bank does not offer it, its 404 skips the step with that reason.

import type { StepContext, StepSpec } from '../model.js';
import { answerChecks, BANK_SIGNATURE, familyHeaders, pis } from './payments-common.js';

export function paymentDetailsStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  return {
    name: 'payment-details',
    title: 'Payment details',
    description:
      "GETs the payment's payment-details (its status as the payment moves through the scheme); a 404 (the bank does not offer the endpoint) " +
      'skips the step with that reason.',
    items: [
      {
        name: 'payment-details: GET /domestic-payments/{DomesticPaymentId}/payment-details',
        description: 'The payment status details; none of them a rejection.',
        method: 'GET',
        url: `${version.base}/domestic-payments/{{payment_id}}/payment-details`,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...answerChecks(version, 200, 'obie-pis-payment-details'),
          BANK_SIGNATURE,
          { template: 'payment-details.test', params: { notMade: version.statuses.paymentNotMade } },
        ],
        skipOn: {
          status: 404,
          reason:
            'the bank answered 404 to GET /domestic-payments/{DomesticPaymentId}/payment-details: it does not offer payment details ' +
            '(an endpoint a bank has not implemented is a 404, OB R/W Data API Profile "400 (Bad Request) v/s 404 (Not Found)")',
        },
      },
    ],
  };
}
