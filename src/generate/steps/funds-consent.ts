// Step: the funds confirmation consent (OB R/W Confirmation of Funds API, "Funds Confirmation Consent"): POST it for
// the PSU's account (flow.funds.debtorAccount), then GET it (awaiting authorisation).

import type { StepContext, StepSpec } from '../model.js';
import { answered, cof, familyHeaders, consentRead, FUNDS_CONSENT, PAYMENT_CONTENT_TYPE } from './payments-common.js';

export function fundsConsentStep(context: Pick<StepContext, 'apiVersion'>): StepSpec {
  const version = cof(context);
  const url = `${version.base}/funds-confirmation-consents`;
  return {
    name: 'funds-consent',
    title: 'Funds confirmation consent',
    description: "POSTs /funds-confirmation-consents for the PSU's account (funds_debtor_identification), then GETs it; writes consent_id.",
    items: [
      {
        name: 'funds-consent: POST /funds-confirmation-consents',
        description: 'The consent the PSU will authorise: funds checks on their account, with no expiry.',
        method: 'POST',
        url,
        headers: familyHeaders('client_credentials_token', [['Content-Type', PAYMENT_CONTENT_TYPE]]),
        body: { mode: 'raw', template: 'funds-confirmation-consent', contentType: PAYMENT_CONTENT_TYPE },
        prerequest: [],
        test: answered(version, 201, 'obie-cof-consent-created', {
          template: 'funds-consent-create.test',
          params: { awaitingStatus: version.consentAwaiting },
        }),
      },
      consentRead(version, FUNDS_CONSENT, {
        step: 'funds-consent',
        description: 'Reads the consent back before the PSU sees it.',
        status: version.consentAwaiting,
      }),
    ],
  };
}
