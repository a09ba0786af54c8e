// Step: the VRP's details (OB R/W VRP API, GET /domestic-vrps/{DomesticVRPId}/payment-details, optional for a bank):
// where the bank does not offer it, its 404 skips the step with that reason.

import type { StepContext, StepSpec } from '../model.js';
import { BANK_SIGNATURE, familyHeaders } from './payments-common.js';
import { vrp, vrpAnswerChecks } from './vrp-common.js';

export function vrpPaymentDetailsStep(context: StepContext): StepSpec {
  const version = vrp(context);
  return {
    name: 'vrp-payment-details',
    title: 'VRP details',
    description:
      "GETs the payment's payment-details (its status as it moves through the scheme); a 404 (the bank does not offer the endpoint) skips " +
      'the step with that reason.',
    items: [
      {
        name: 'vrp-payment-details: GET /domestic-vrps/{DomesticVRPId}/payment-details',
        description: 'The payment status details; none of them a rejection.',
        method: 'GET',
        url: `${version.base}/domestic-vrps/{{vrp_payment_id}}/payment-details`,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...vrpAnswerChecks(version, 200, 'payment-details'),
          BANK_SIGNATURE,
          { template: 'payment-details.test', params: { notMade: version.notMade } },
        ],
        skipOn: {
          status: 404,
          reason:
            'the bank answered 404 to GET /domestic-vrps/{DomesticVRPId}/payment-details: it does not offer payment details ' +
            '(an endpoint a bank has not implemented is a 404, OB R/W Data API Profile "400 (Bad Request) v/s 404 (Not Found)")',
        },
      },
    ],
  };
}
