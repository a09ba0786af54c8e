// Reading the PSU's redirect back to the TPP (OAuth 2.0 §4.1.2, OIDC Core §3.3.2.5): `code` (+ `id_token` for
// `code id_token`, in the fragment), `state` unchanged, or an `error`. Shared by the browser and manual consent drivers.

import { ObflowError } from '../../errors.js';
import { environmentValue, type PostmanEnvironment } from '../../environment/merge.js';

export interface ConsentRedirect {
  code: string;
  idToken?: string;
  state?: string;
}

/** Parameters of the redirect: query for `code`, fragment for `code id_token` (OAuth 2.0 Multiple Response Types §5). */
export function redirectParameters(url: string): URLSearchParams {
  const parsed = new URL(url);
  const params = new URLSearchParams(parsed.search);
  for (const [key, value] of new URLSearchParams(parsed.hash.replace(/^#/, ''))) params.set(key, value);
  return params;
}

/** What a consent driver needs from the environment the psu-consent step wrote. */
export function consentInputs(
  environment: PostmanEnvironment,
  driver: string,
): { consentUrl: string; redirectUri: string; state: string; issuer: string } {
  const get = (key: string): string => environmentValue(environment, key) ?? '';
  // The PSU's own URL (fresh request-object jti); consent_url was already presented by the psu-consent request.
  const consentUrl = get('psu_consent_url') || get('consent_url');
  const redirectUri = get('redirectUrl');
  if (consentUrl === '' || redirectUri === '') {
    throw new ObflowError('ERR_USAGE', `${driver} consent needs consent_url and redirectUrl in the environment`, {
      hint: 'Run the psu-consent step first (`obflow run all` does).',
    });
  }
  if (!URL.canParse(redirectUri) || !URL.canParse(consentUrl)) {
    throw new ObflowError('ERR_FILE_UNREADABLE', "the environment's redirectUrl or consent URL is not a URL", {
      hint: 'Run `obflow environment` again (and the psu-consent step) to rewrite them.',
    });
  }
  return { consentUrl, redirectUri, state: get('state'), issuer: get('issuer') };
}

/**
 * `expected.issuer`: the `iss` response parameter (RFC 9207), when the redirect carries it, must be the issuer (§2.4);
 * `expected.requireIss` (FAPI 2.0, or discovery's authorization_response_iss_parameter_supported): it must be there
 * (RFC 9207 §2.4; FAPI 2.0 Security Profile §5.3.2.2, §5.3.3).
 */
export function readConsentRedirect(
  url: string,
  expected: { redirectUri: string; state?: string; issuer?: string; requireIss?: boolean },
): ConsentRedirect {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch (cause) {
    throw new ObflowError('ERR_USAGE', 'that is not a URL', {
      hint: `Paste the whole address the browser shows, starting with ${expected.redirectUri}.`,
      cause,
    });
  }
  const redirect = new URL(expected.redirectUri);
  if (parsed.origin !== redirect.origin || parsed.pathname !== redirect.pathname) {
    throw new ObflowError('ERR_USAGE', `the URL is not the redirect URI ${redirect.origin}${redirect.pathname}`, {
      hint: 'Paste the address the bank sent the browser back to, after the consent (it may show an error page: that is fine).',
    });
  }
  const params = redirectParameters(parsed.href);
  checkIssuer(params, expected);
  const error = params.get('error');
  if (error !== null) {
    throw new ObflowError(
      'ERR_CONSENT_REJECTED',
      `the bank redirected with ${error}${params.has('error_description') ? `: ${params.get('error_description') ?? ''}` : ''}`,
      {
        hint:
          error === 'access_denied'
            ? 'The PSU cancelled; run the consent again and confirm.'
            : 'Check the response type, scope and redirect URI the consent URL sent (`obflow run psu-consent --reporters cli,json` shows the request and keeps it in the JSON report).',
      },
    );
  }
  const state = params.get('state') ?? undefined;
  if (expected.state !== undefined && expected.state !== '' && state !== expected.state) {
    throw new ObflowError('ERR_REMOTE_RESPONSE', 'the redirect did not return the state the consent URL sent', {
      hint: 'The response may not belong to this request (OAuth 2.0 §10.12); start the flow again.',
    });
  }
  const code = params.get('code');
  if (code === null || code === '') {
    throw new ObflowError('ERR_REMOTE_RESPONSE', 'the redirect carries no authorisation code', {
      hint: 'Check the response_type the consent URL asked for and that the bank supports it.',
    });
  }
  const idToken = params.get('id_token') ?? undefined;
  return { code, ...(idToken !== undefined ? { idToken } : {}), ...(state !== undefined ? { state } : {}) };
}

/** RFC 9207 §2.4: an `iss` that is not the issuer means the response may come from another authorization server (a
 *  mix-up, §1): refused before the code (or the error) is used. Required under FAPI 2.0 and where the bank's discovery
 *  announces it (authorization_response_iss_parameter_supported: RFC 9207 §2.4, "MUST reject"). */
function checkIssuer(params: URLSearchParams, expected: { issuer?: string; requireIss?: boolean }): void {
  const iss = params.get('iss') ?? undefined;
  const issuer = expected.issuer ?? '';
  if (expected.requireIss === true && issuer === '') {
    throw new ObflowError('ERR_DISCOVERY_INVALID', "the environment names no issuer to check the redirect's iss parameter against", {
      hint: "The bank's discovery document must publish issuer; run `obflow environment` again.",
    });
  }
  if (iss === undefined && expected.requireIss === true) {
    const answer = params.get('error');
    const told = answer === null ? '' : `; the bank's answer was ${answer}`;
    throw new ObflowError(
      'ERR_REMOTE_RESPONSE',
      `the redirect carries no iss parameter (RFC 9207 §2.4: required under FAPI 2.0 and where discovery announces it)${told}`,
      {
        hint:
          'Without iss the response may come from another authorization server (a mix-up): start the flow again. ' +
          'A bank that never sends it does not meet FAPI 2.0 (set flow.fapi to "1-advanced" for it) or its own discovery.',
      },
    );
  }
  if (iss !== undefined && issuer !== '' && iss !== issuer) {
    throw new ObflowError('ERR_REMOTE_RESPONSE', `the redirect's iss "${iss}" is not the issuer "${issuer}" (RFC 9207 §2.4)`, {
      hint: 'The response may come from another authorization server (a mix-up attack); check bank.auth_url, then start the flow again.',
    });
  }
}
