// Step: the domestic payment (OB R/W Payment Initiation API, "Domestic Payments"): POST /domestic-payments signed and
// idempotent with the PSU's token, sent again with the same key and body (the same payment, never a second) and with
// the same key and another amount (refused), then once more with a new key (the consumed consent refuses a second
// payment); then the payment read back at its Links.Self (made once, as first sent) and the consent (consumed).

import type { StepContext, StepSpec } from '../model.js';
import { checks, errorAnswerPart } from './common.js';
import { answerChecks, BANK_SIGNATURE, familyHeaders, paymentBody, pis, signedPost } from './payments-common.js';

export function paymentStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  const url = `${version.base}/domestic-payments`;
  const errorShape = [errorAnswerPart(version.errors)].filter((part) => part !== undefined);
  const post = (
    amountVariable: 'payment_amount' | 'payment_changed_amount',
    keyVariable: string,
    prerequest: StepSpec['items'][number]['prerequest'],
  ) =>
    signedPost({
      url,
      tokenVariable: 'access_token',
      keyVariable,
      body: paymentBody(context, { payment: true, amountVariable }),
      prerequest,
    });
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
        test: [
          ...answerChecks(version, 201, 'obie-pis-payment-created'),
          BANK_SIGNATURE,
          { template: 'payment-create.test', params: { notMade } },
        ],
      },
      {
        name: 'payment: POST /domestic-payments again, same x-idempotency-key and body',
        description:
          'OB R/W Data API Profile, "Idempotency": answered 201 with the payment made first (its current status), never a second payment.',
        ...post('payment_amount', 'payment_idempotency_key', []),
        test: [
          ...answerChecks(version, 201, 'obie-pis-payment-created'),
          BANK_SIGNATURE,
          {
            template: 'idempotent-replay.test',
            params: { resource: 'payment', idMember: 'DomesticPaymentId', idVariable: 'payment_id', createdVariable: 'payment_created' },
          },
        ],
      },
      {
        name: 'payment: POST /domestic-payments again, same x-idempotency-key, another amount',
        description:
          'OB R/W Data API Profile, "Idempotency": the same key with another body must not change the payment: refused (v4.0 documents 409 ' +
          'for it too); the read after it finds the payment as first made.',
        ...post('payment_changed_amount', 'payment_idempotency_key', []),
        test: [
          ...checks({ echo: 'required' }),
          {
            template: 'idempotent-changed-body.test',
            params: { refusals: version.refusals.payment, idMember: 'DomesticPaymentId', idVariable: 'payment_id' },
          },
          BANK_SIGNATURE,
          ...errorShape,
        ],
      },
      {
        name: 'payment: POST /domestic-payments with a new x-idempotency-key',
        description:
          '"A domestic-payment can only be created if its corresponding domestic-payment-consent resource has the Status of AUTH": the ' +
          'consumed consent refuses a second payment.',
        ...post('payment_amount', '$guid', []),
        test: [
          ...checks({ echo: 'required' }),
          { template: 'consumed-consent.test', params: { refusals: version.refusals.payment } },
          BANK_SIGNATURE,
          ...errorShape,
        ],
      },
      {
        name: 'payment: GET /domestic-payments/{DomesticPaymentId} at Links.Self',
        description: "The payment at its Links.Self, with a client credentials token: made once, with the consent's amount, not rejected.",
        method: 'GET',
        url: '{{payment_self_url}}',
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...answerChecks(version, 200, 'obie-pis-payment-read'),
          BANK_SIGNATURE,
          { template: 'payment-read.test', params: { notMade } },
        ],
      },
      {
        name: 'payment: GET /domestic-payment-consents/{ConsentId}',
        description: `Once its payment is made the consent is ${version.statuses.consentConsumed} (the "Payment Order Consent" state model).`,
        method: 'GET',
        url: `${version.base}/domestic-payment-consents/{{consent_id}}`,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...answerChecks(version, 200, 'obie-pis-consent-read'),
          BANK_SIGNATURE,
          { template: 'payment-consent-read.test', params: { status: version.statuses.consentConsumed } },
        ],
      },
    ],
  };
}
