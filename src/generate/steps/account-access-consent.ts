// Step: account-access consent (AIS v3.1 Account Access Consents): POST it, then GET it (AwaitingAuthorisation).

import type { StepContext, StepSpec } from '../model.js';
import { AIS_CONTENT_TYPE, ais, aisHeaders, checks } from './common.js';

export function accountAccessConsentStep(context: StepContext): StepSpec {
  const version = ais(context);
  return {
    name: 'account-access-consent',
    title: 'Account access consent',
    description: 'POST /account-access-consents with the client credentials token, then GET it back; writes consent_id.',
    items: [
      {
        name: 'account-access-consent: POST /account-access-consents',
        description: 'Creates the consent the PSU will authorise: Status AwaitingAuthorisation, our permissions.',
        method: 'POST',
        url: `${version.base}/account-access-consents`,
        headers: [...aisHeaders('client_credentials_token', version), ['Content-Type', AIS_CONTENT_TYPE]],
        body: {
          mode: 'raw',
          template: 'account-access-consent',
          contentType: AIS_CONTENT_TYPE,
          params: { permissions: context.permissions },
        },
        prerequest: [],
        test: [
          ...checks({
            status: 201,
            echo: 'required',
            schema: version.schema('obie-consent-created'),
            contentType: AIS_CONTENT_TYPE,
            errors: version.errors,
          }),
          { template: 'consent-create.test', params: { permissions: context.permissions, awaitingStatus: version.awaitingStatus } },
        ],
      },
      {
        name: 'account-access-consent: GET /account-access-consents/{ConsentId}',
        description: 'Reads the consent back before the PSU sees it.',
        method: 'GET',
        url: `${version.base}/account-access-consents/{{consent_id}}`,
        headers: aisHeaders('client_credentials_token', version),
        prerequest: [],
        test: [
          ...checks({
            status: 200,
            echo: 'required',
            schema: version.schema('obie-consent-read'),
            contentType: AIS_CONTENT_TYPE,
            errors: version.errors,
          }),
          { template: 'consent-read.test', params: { awaitingStatus: version.awaitingStatus } },
        ],
      },
    ],
  };
}
