// Manual PSU consent, for a bank whose consent pages only a person can pass: obflow shows the consent URL, the PSU
// opens it in any browser, logs in and confirms, and pastes back the address the bank redirected the browser to.

import { ObflowError } from '../../errors.js';
import type { PostmanEnvironment } from '../../environment/merge.js';
import type { RunStep } from '../steps.js';
import { consentInputs, readConsentRedirect } from './redirect.js';

export interface ManualConsentOptions {
  /** Shows the consent URL to the PSU and resolves with the URL they paste (undefined: no answer, e.g. no terminal). */
  ask: (consentUrl: string, redirectUri: string) => Promise<string | undefined>;
  /** flow.fapi "2.0": the redirect must carry iss (RFC 9207). */
  requireIss?: boolean;
}

/** The runner step between `psu-consent` and `code-exchange` in manual mode: writes auth_code (+ id_token). */
export function manualConsentStep(options: ManualConsentOptions, name = 'psu-consent-manual'): RunStep {
  return {
    name,
    local: async (environment: PostmanEnvironment) => {
      const { consentUrl, redirectUri, state, issuer } = consentInputs(environment, 'manual');
      const answer = await options.ask(consentUrl, redirectUri);
      if (answer === undefined || answer.trim() === '') {
        throw new ObflowError('ERR_USAGE', 'no redirect URL was pasted', {
          hint: 'Run it in a terminal, open the consent URL, confirm, and paste the address the browser lands on.',
        });
      }
      const result = readConsentRedirect(answer, { redirectUri, state, issuer, requireIss: options.requireIss === true });
      return { auth_code: result.code, id_token: result.idToken ?? '' };
    },
  };
}
