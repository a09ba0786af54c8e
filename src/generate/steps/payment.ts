// Step: the domestic payment (OB R/W Payment Initiation API, "Domestic Payments"): POST /domestic-payments signed and
// idempotent with the PSU's token, sent again with the same key and body (the same payment, never a second) and with
// the same key and another amount (refused), then once more with a new key (the consumed consent refuses a second
// payment); then the payment read back at its Links.Self (made once, as first sent) and the consent (consumed).

import type { ScriptPart, StepContext, StepSpec } from '../model.js';
import {
  answered,
  consentRead,
  idempotentReplay,
  PAYMENT_CONSENT,
  PAYMENT_POSTS,
  paymentPost,
  pis,
  refused,
  resourceGet,
} from './payments-common.js';

export function paymentStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  const path = PAYMENT_POSTS.payment.path;
  const post = (amountVariable: 'payment_amount' | 'payment_changed_amount', keyVariable: string, prerequest: readonly ScriptPart[]) =>
    paymentPost(context, 'payment', { amountVariable, prerequest, keyVariable });
  const notMade = version.statuses.paymentNotMade;
  return {
    name: 'payment',
    title: 'Domestic payment',
    description:
      "POSTs /domestic-payments signed with a fresh x-idempotency-key and the PSU's token, sends it again with the same key and body (the same " +
      'payment must come back), with the same key and another amount (refused) and with a new key (the consumed consent refuses a second ' +
      'payment), then reads the payment at its Links.Self and the consent; writes payment_id and payment_status.',
    items: [
      {
        name: 'payment: POST /domestic-payments',
        description: "The payment of the authorised consent, signed and idempotent, with the PSU's token: its Initiation is the consent's.",
        ...post('payment_amount', 'payment_idempotency_key', [{ template: 'payment.prerequest' }]),
        test: answered(version, 201, 'obie-pis-payment-created', { template: 'payment-create.test', params: { notMade } }),
      },
      idempotentReplay(version, {
        step: 'payment',
        path,
        post: post('payment_amount', 'payment_idempotency_key', []),
        resource: 'payment',
        schema: 'obie-pis-payment-created',
        idMember: 'DomesticPaymentId',
        idVariable: 'payment_id',
        createdVariable: 'payment_created',
      }),
      {
        name: 'payment: POST /domestic-payments again, same x-idempotency-key, another amount',
        description:
          'OB R/W Data API Profile, "Idempotency": the same key with another body must not change the payment: refused (v4.0 documents 409 ' +
          'for it too); the read after it finds the payment as first made.',
        ...post('payment_changed_amount', 'payment_idempotency_key', []),
        test: refused(version, {
          template: 'idempotent-changed-body.test',
          params: { refusals: version.refusals.payment, idMember: 'DomesticPaymentId', idVariable: 'payment_id' },
        }),
      },
      {
        name: 'payment: POST /domestic-payments with a new x-idempotency-key',
        description:
          '"A domestic-payment can only be created if its corresponding domestic-payment-consent resource has the Status of AUTH": the ' +
          'consumed consent refuses a second payment.',
        ...post('payment_amount', '$guid', []),
        test: refused(version, { template: 'consumed-consent.test', params: { refusals: version.refusals.payment } }),
      },
      resourceGet(version, {
        name: 'payment: GET /domestic-payments/{DomesticPaymentId} at Links.Self',
        description: "The payment at its Links.Self, with a client credentials token: made once, with the consent's amount, not rejected.",
        url: '{{payment_self_url}}',
        schema: 'obie-pis-payment-read',
        check: { template: 'payment-read.test', params: { notMade } },
      }),
      consentRead(version, PAYMENT_CONSENT, {
        step: 'payment',
        description: `Once its payment is made the consent is ${version.statuses.consentConsumed} (the "Payment Order Consent" state model).`,
        status: version.statuses.consentConsumed,
      }),
    ],
  };
}
