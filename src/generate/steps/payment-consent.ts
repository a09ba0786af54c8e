// Step: the domestic payment consent (OB R/W Payment Initiation API, "Domestic Payment Consents"): the bank's signing
// keys, then POST /domestic-payment-consents signed and idempotent, sent again with the same key and body (the
// consent created first comes back, no second one) and with the same key and another body (refused, nothing changed:
// OB R/W Data API Profile, "Idempotency"), then GET it (still awaiting, as created).

import type { ScriptPart, StepContext, StepSpec } from '../model.js';
import {
  answered,
  bankSigningKeysGet,
  consentRead,
  idempotentReplay,
  PAYMENT_CONSENT,
  paymentPost,
  pis,
  refused,
} from './payments-common.js';

export function paymentConsentStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = pis(context);
  const path = PAYMENT_CONSENT.path;
  const post = (amountVariable: 'payment_amount' | 'payment_changed_amount', prerequest: readonly ScriptPart[]) =>
    paymentPost(context, 'consent', { amountVariable, prerequest });
  return {
    name: 'payment-consent',
    title: 'Domestic payment consent',
    description:
      "GETs the bank's signing keys (bank_signing_jwks), POSTs /domestic-payment-consents signed (x-jws-signature) with a fresh " +
      'x-idempotency-key, sends it again with the same key and body (the same consent must come back) and with the same key and another ' +
      'amount (refused), then GETs the consent; writes consent_id.',
    items: [
      bankSigningKeysGet('payment-consent'),
      {
        name: 'payment-consent: POST /domestic-payment-consents',
        description:
          'The consent the PSU will authorise, signed (a detached PS256 JWS of the body as sent) and idempotent (a fresh x-idempotency-key).',
        ...post('payment_amount', [{ template: 'payment-consent.prerequest' }]),
        test: answered(version, 201, 'obie-pis-consent-created', {
          template: 'payment-consent-create.test',
          params: { awaitingStatus: version.statuses.consentAwaiting },
        }),
      },
      idempotentReplay(version, {
        step: 'payment-consent',
        path,
        post: post('payment_amount', []),
        resource: 'consent',
        schema: 'obie-pis-consent-created',
        idMember: 'ConsentId',
        idVariable: 'consent_id',
        createdVariable: 'payment_consent_created',
      }),
      {
        name: 'payment-consent: POST /domestic-payment-consents again, same x-idempotency-key, another amount',
        description:
          'OB R/W Data API Profile, "Idempotency": "If the TPP changes the request body, the ASPSP must not modify the end resource": refused ' +
          '(a 4xx the file documents for the operation), nothing created; the GET after it finds the consent unchanged.',
        ...post('payment_changed_amount', []),
        test: refused(version, {
          template: 'idempotent-changed-body.test',
          params: { refusals: version.refusals.consent, idMember: 'ConsentId', idVariable: 'consent_id' },
        }),
      },
      consentRead(version, PAYMENT_CONSENT, {
        step: 'payment-consent',
        description: 'The consent as created: awaiting authorisation, with the amount first sent (the changed body changed nothing).',
        status: version.statuses.consentAwaiting,
      }),
    ],
  };
}
