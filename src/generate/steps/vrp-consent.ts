// Step: the domestic VRP consent (OB R/W VRP API, "Domestic VRP Consents"): the bank's signing keys, then POST
// /domestic-vrp-consents signed and idempotent with the mandate of flow.vrp (its ControlParameters and VRPType), sent
// again with the same key and body (the consent created first comes back: OB R/W Data API Profile, "Idempotency"), then
// GET it (awaiting authorisation, its ControlParameters as sent).

import type { StepContext, StepSpec } from '../model.js';
import { answered, bankSigningKeysGet, consentRead, idempotentReplay, signedPost } from './payments-common.js';
import { consentControlParameters, vrp, vrpBody, VRP_CONSENT } from './vrp-common.js';

export function vrpConsentStep(context: StepContext): StepSpec {
  const version = vrp(context);
  const path = '/domestic-vrp-consents';
  const post = (prerequest: StepSpec['items'][number]['prerequest']) =>
    signedPost({
      url: `${version.base}${path}`,
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
      bankSigningKeysGet('vrp-consent'),
      {
        name: 'vrp-consent: POST /domestic-vrp-consents',
        description: 'The mandate the PSU will authorise, signed (a detached PS256 JWS of the body as sent) and idempotent.',
        ...post([{ template: 'vrp-consent.prerequest' }]),
        test: answered(version, 201, 'consent-created', {
          template: 'vrp-consent-create.test',
          params: { status: version.consentAwaiting, vrpType: version.wireType },
        }),
      },
      idempotentReplay(version, {
        step: 'vrp-consent',
        path,
        post: post([]),
        resource: 'consent',
        schema: 'consent-created',
        idMember: 'ConsentId',
        idVariable: 'consent_id',
        createdVariable: 'vrp_consent_created',
      }),
      consentRead(version, VRP_CONSENT, {
        step: 'vrp-consent',
        description: 'The consent as created: awaiting authorisation, its ControlParameters as the bank created them.',
        status: version.consentAwaiting,
      }),
    ],
  };
}
