// Step: one payment under the mandate (OB R/W VRP API, "Domestic VRPs"): POST /domestic-vrps signed and idempotent with
// the PSU's token, sent again with the same key and body (the same payment, never a second: OB R/W Data API Profile,
// "Idempotency"), then read back at its Links.Self. Its amount is the mandate walk's first (src/generate/vrp-plan.ts).

import type { StepContext, StepSpec } from '../model.js';
import { planMandate } from '../vrp-plan.js';
import { answered, idempotentReplay, resourceGet } from './payments-common.js';
import { paymentPost, vrp } from './vrp-common.js';

export function vrpPaymentStep(context: StepContext): StepSpec {
  const version = vrp(context);
  const plan = planMandate(version.settings);
  const made = { amount: plan.first.amount, currency: plan.currency, notMade: version.notMade, why: plan.first.why, first: true };
  return {
    name: 'vrp-payment',
    title: 'Domestic VRP',
    description:
      `POSTs /domestic-vrps for ${plan.first.amount} ${plan.currency} signed with a fresh x-idempotency-key and the PSU's token, sends it ` +
      'again with the same key and body (the same payment must come back), then reads it at its Links.Self; writes vrp_payment_id.',
    items: [
      {
        name: 'vrp-payment: POST /domestic-vrps',
        description:
          "A payment inside every limit of the mandate, signed and idempotent, with the PSU's token: its Initiation is the consent's.",
        ...paymentPost(version, plan.first.amount),
        test: answered(version, 201, 'payment-created', { template: 'vrp-payment-made.test', params: made }),
      },
      idempotentReplay(version, {
        step: 'vrp-payment',
        path: '/domestic-vrps',
        post: paymentPost(version, plan.first.amount, []),
        resource: 'payment',
        schema: 'payment-created',
        idMember: 'DomesticVRPId',
        idVariable: 'vrp_payment_id',
        createdVariable: 'vrp_payment_created',
      }),
      resourceGet(version, {
        name: 'vrp-payment: GET /domestic-vrps/{DomesticVRPId} at Links.Self',
        description: 'The payment at its Links.Self, with a client credentials token: made once, with the amount sent, not rejected.',
        url: '{{vrp_payment_self_url}}',
        schema: 'payment-read',
        check: {
          template: 'vrp-payment-read.test',
          params: { amount: plan.first.amount, currency: plan.currency, notMade: version.notMade },
        },
      }),
    ],
  };
}
