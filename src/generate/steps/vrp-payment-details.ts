// Step: the VRP's details (OB R/W VRP API, GET /domestic-vrps/{DomesticVRPId}/payment-details, optional for a bank):
// where the bank does not offer it, its 404 skips the step with that reason.

import type { StepContext, StepSpec } from '../model.js';
import { paymentDetailsGet } from './payments-common.js';
import { vrp } from './vrp-common.js';

export function vrpPaymentDetailsStep(context: StepContext): StepSpec {
  const version = vrp(context);
  return {
    name: 'vrp-payment-details',
    title: 'VRP details',
    description:
      "GETs the payment's payment-details (its status as it moves through the scheme); a 404 (the bank does not offer the endpoint) skips " +
      'the step with that reason.',
    items: [
      paymentDetailsGet(version, {
        step: 'vrp-payment-details',
        payments: '/domestic-vrps',
        idName: 'DomesticVRPId',
        idVariable: 'vrp_payment_id',
        schema: 'payment-details',
        notMade: version.notMade,
      }),
    ],
  };
}
