// Step: the mandate walk (OB R/W VRP API, "Domestic VRPs": "The ASPSP must ensure that the payment instruction adheres
// to the limitations set by the corresponding VRP consent's ControlParameters"): the payments planned from flow.vrp's
// ControlParameters (src/generate/vrp-plan.ts), each signed with its own x-idempotency-key: those inside the limits must
// be made, the first above MaximumIndividualAmount and the one whose sum crosses a periodic limit must be refused with
// the version's code (v3.1.11 UK.OBIE.Rules.FailsControlParameters, v4.0 U014); each refusal check passes only when the
// bank refuses. Then the consent is read: still authorised (a VRP consent is not consumed by its payments).

import type { RequestItemSpec, StepContext, StepSpec } from '../model.js';
import { planMandate, type PlannedPayment } from '../vrp-plan.js';
import { answered, consentRead, refused } from './payments-common.js';
import { paymentPost, VRP_CONSENT, VRP_REFUSALS, vrp, type Vrp } from './vrp-common.js';

function walkItem(version: Vrp, currency: string, payment: PlannedPayment, index: number): RequestItemSpec {
  const post = paymentPost(version, payment.amount);
  const label = `${payment.amount} ${currency}`;
  if (payment.expect === 'made')
    return {
      name: `vrp-mandate: payment ${index + 1}, ${label}, inside the limits (made)`,
      description: `POST /domestic-vrps for ${label}, ${payment.why}: the bank must make it.`,
      ...post,
      test: answered(version, 201, 'payment-created', {
        template: 'vrp-payment-made.test',
        params: { amount: payment.amount, currency, notMade: version.notMade, why: payment.why, first: false },
      }),
    };
  return {
    name: `vrp-mandate: payment ${index + 1}, ${label}, breaches ${payment.limit ?? ''} (refused)`,
    description: `POST /domestic-vrps for ${label}, which ${payment.why}: the bank must refuse it with ${version.limitCode} and make nothing.`,
    ...post,
    test: refused(version, {
      template: 'vrp-limit-refused.test',
      params: {
        amount: payment.amount,
        currency,
        limit: payment.limit ?? '',
        limitLabel: payment.limitLabel ?? '',
        why: payment.why,
        code: version.limitCode,
        pathRequired: version.limitPathRequired,
        refusals: VRP_REFUSALS.limit,
      },
    }),
  };
}
export function vrpMandateStep(context: StepContext): StepSpec {
  const version = vrp(context);
  const plan = planMandate(version.settings);
  const limits = plan.limits.map((limit) => `${limit.member}: ${limit.label}${limit.walked ? '' : ` (not walked: ${limit.reason ?? ''})`}`);
  return {
    name: 'vrp-mandate',
    title: 'The mandate walk',
    description:
      `Payments under the consent's limits (${limits.join('; ')}), each signed with its own x-idempotency-key: ` +
      `${plan.walk.filter((payment) => payment.expect === 'made').length} inside them must be made, ` +
      `${plan.walk.filter((payment) => payment.expect === 'refused').length} that breach one must be refused with ${version.limitCode}. ` +
      "All in the consent's first day: the bank's clock is not moved (calendar periods are proven in the emulator's tests).",
    items: [
      ...plan.walk.map((payment, index) => walkItem(version, plan.currency, payment, index + 1)),
      consentRead(version, VRP_CONSENT, {
        step: 'vrp-mandate',
        description: `A VRP consent is not consumed by its payments: still ${version.consentAuthorised}, its ControlParameters unchanged.`,
        status: version.consentAuthorised,
      }),
    ],
  };
}
