// Step: the payment's details (OB R/W Payment Initiation API, GET /domestic-payments/{DomesticPaymentId}/
// payment-details, optional for a bank): where the bank does not offer it, its 404 skips the step with that reason.

import type { StepContext, StepSpec } from '../model.js';
import { paymentDetailsGet, pis } from './payments-common.js';

export function paymentDetailsStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  return {
    name: 'payment-details',
    title: 'Payment details',
    description:
      "GETs the payment's payment-details (its status as the payment moves through the scheme); a 404 (the bank does not offer the endpoint) " +
      'skips the step with that reason.',
    items: [
      paymentDetailsGet(version, {
        step: 'payment-details',
        payments: '/domestic-payments',
        idName: 'DomesticPaymentId',
        idVariable: 'payment_id',
        schema: 'obie-pis-payment-details',
        notMade: version.statuses.paymentNotMade,
      }),
    ],
  };
}
