// Step: the domestic VRP consent (OB R/W VRP API, "Domestic VRP Consents"): the bank's signing keys, then POST
// /domestic-vrp-consents signed and idempotent with the mandate of flow.vrp (its ControlParameters and VRPType), sent
// again with the same key and body (the consent created first comes back: OB R/W Data API Profile, "Idempotency"), then
// GET it (awaiting authorisation, its ControlParameters as sent).

import type { StepContext, StepSpec } from '../model.js';
import { authServerHeaders, checks } from './common.js';
import { BANK_SIGNATURE, familyHeaders, signedPost } from './payments-common.js';
import { consentControlParameters, vrp, vrpAnswerChecks, vrpBody } from './vrp-common.js';

export function vrpConsentStep(context: StepContext): StepSpec {
  const version = vrp(context);
  const url = `${version.base}/domestic-vrp-consents`;
  const post = (prerequest: StepSpec['items'][number]['prerequest']) =>
    signedPost({
      url,
      tokenVariable: 'client_credentials_token',
      keyVariable: 'vrp_consent_idempotency_key',
      body: vrpBody('domestic-vrp-consent', { controlParameters: JSON.stringify(consentControlParameters(version), null, 2) }),
      prerequest,
    });
  return {
    name: 'vrp-consent',
    title: 'Domestic VRP consent',
    description:
      "GETs the bank's signing keys (bank_signing_jwks), POSTs /domestic-vrp-consents signed (x-jws-signature) with the mandate " +
      `(VRPType ${version.wireType}, its ControlParameters) and a fresh x-idempotency-key, sends it again with the same key and body ` +
      '(the same consent must come back), then GETs the consent; writes consent_id.',
    items: [
      {
        name: 'vrp-consent: GET bank signing keys',
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
        name: 'vrp-consent: POST /domestic-vrp-consents',
        description: 'The mandate the PSU will authorise, signed (a detached PS256 JWS of the body as sent) and idempotent.',
        ...post([{ template: 'vrp-consent.prerequest' }]),
        test: [
          ...vrpAnswerChecks(version, 201, 'consent-created'),
          BANK_SIGNATURE,
          { template: 'vrp-consent-create.test', params: { status: version.consentAwaiting, vrpType: version.wireType } },
        ],
      },
      {
        name: 'vrp-consent: POST /domestic-vrp-consents again, same x-idempotency-key and body',
        description:
          'OB R/W Data API Profile, "Idempotency": the same key and body within 24 hours is answered 201 with the consent created first, never a second one.',
        ...post([]),
        test: [
          ...vrpAnswerChecks(version, 201, 'consent-created'),
          BANK_SIGNATURE,
          {
            template: 'idempotent-replay.test',
            params: { resource: 'consent', idMember: 'ConsentId', idVariable: 'consent_id', createdVariable: 'vrp_consent_created' },
          },
        ],
      },
      {
        name: 'vrp-consent: GET /domestic-vrp-consents/{ConsentId}',
        description: 'The consent as created: awaiting authorisation, its ControlParameters as the bank created them.',
        method: 'GET',
        url: `${url}/{{consent_id}}`,
        headers: familyHeaders('client_credentials_token'),
        prerequest: [],
        test: [
          ...vrpAnswerChecks(version, 200, 'consent-read'),
          BANK_SIGNATURE,
          { template: 'vrp-consent-read.test', params: { status: version.consentAwaiting } },
        ],
      },
    ],
  };
}
