// Step: the domestic payment consent (OB R/W Payment Initiation API, "Domestic Payment Consents"): the bank's signing
// keys, then POST /domestic-payment-consents signed and idempotent, sent again with the same key and body (the
// consent created first comes back, no second one) and with the same key and another body (refused, nothing changed:
// OB R/W Data API Profile, "Idempotency"), then GET it (still awaiting, as created).

import type { StepContext, StepSpec } from '../model.js';
import { authServerHeaders, checks, errorAnswerPart } from './common.js';
import { answerChecks, BANK_SIGNATURE, familyHeaders, paymentBody, pis, signedPost } from './payments-common.js';

export function paymentConsentStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  const url = `${version.base}/domestic-payment-consents`;
  const post = (amountVariable: 'payment_amount' | 'payment_changed_amount', prerequest: StepSpec['items'][number]['prerequest']) =>
    signedPost({
      url,
      tokenVariable: 'client_credentials_token',
      keyVariable: 'payment_consent_idempotency_key',
      body: paymentBody(context, { payment: false, amountVariable }),
      prerequest,
    });
  return {
    name: 'payment-consent',
    title: 'Domestic payment consent',
    description:
      "GETs the bank's signing keys (bank_signing_jwks), POSTs /domestic-payment-consents signed (x-jws-signature) with a fresh " +
      'x-idempotency-key, sends it again with the same key and body (the same consent must come back) and with the same key and another ' +
      'amount (refused), then GETs the consent; writes consent_id.',
    items: [
      {
        name: 'payment-consent: GET bank signing keys',
        description:
          'The keys the bank signs its answers with (OB R/W Data API Profile, "Message Signing", Key Stores): discovery\'s jwks_uri, or ' +
          'bank_jws_jwks_uri (flow.messageSigning.bankJwksUri) where the bank publishes them elsewhere.',
        method: 'GET',
        url: '{{jwksUri}}',
        headers: authServerHeaders(),
        prerequest: [{ template: 'signing-keys.prerequest' }],
        test: [...checks({ status: 200, echo: 'if-present' }), { template: 'signing-keys.test' }],
      },
      {
        name: 'payment-consent: POST /domestic-payment-consents',
        description:
          'The consent the PSU will authorise, signed (a detached PS256 JWS of the body as sent) and idempotent (a fresh x-idempotency-key).',
        ...post('payment_amount', [{ template: 'payment-consent.prerequest' }]),
        test: [
          ...answerChecks(version, 201, 'obie-pis-consent-created'),
          BANK_SIGNATURE,
          { template: 'payment-consent-create.test', params: { awaitingStatus: version.statuses.consentAwaiting } },
        ],
      },
      {
        name: 'payment-consent: POST /domestic-payment-consents again, same x-idempotency-key and body',
        description:
          'OB R/W Data API Profile, "Idempotency": the same key and body within 24 hours is answered 201 with the consent created first, never a second one.',
        ...post('payment_amount', []),
        test: [
          ...answerChecks(version, 201, 'obie-pis-consent-created'),
          BANK_SIGNATURE,
          {
            template: 'idempotent-replay.test',
            params: { resource: 'consent', idMember: 'ConsentId', idVariable: 'consent_id', createdVariable: 'payment_consent_created' },
          },
        ],
      },
      {
        name: 'payment-consent: POST /domestic-payment-consents again, same x-idempotency-key, another amount',
        description:
          'OB R/W Data API Profile, "Idempotency": "If the TPP changes the request body, the ASPSP must not modify the end resource": refused ' +
          '(a 4xx the file documents for the operation), nothing created; the GET after it finds the consent unchanged.',
        ...post('payment_changed_amount', []),
        test: [
          ...checks({ echo: 'required' }),
          {
            template: 'idempotent-changed-body.test',
            params: { refusals: version.refusals.consent, idMember: 'ConsentId', idVariable: 'consent_id' },
          },
          BANK_SIGNATURE,
          ...[errorAnswerPart(version.errors)].filter((part) => part !== undefined),
        ],
      },
      {
        name: 'payment-consent: GET /domestic-payment-consents/{ConsentId}',
        description: 'The consent as created: awaiting authorisation, with the amount first sent (the changed body changed nothing).',
        method: 'GET',
        url: `${url}/{{consent_id}}`,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...answerChecks(version, 200, 'obie-pis-consent-read'),
          BANK_SIGNATURE,
          { template: 'payment-consent-read.test', params: { status: version.statuses.consentAwaiting } },
        ],
      },
    ],
  };
}
