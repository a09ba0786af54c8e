// What the config asks of the bank against what its discovery offers: JARM needs `jwt` in
// response_modes_supported, PKCE S256 in code_challenge_methods_supported (when listed), FAPI 2.0 the iss response
// parameter (RFC 9207 §3), the token auth method in token_endpoint_auth_methods_supported; flow.par is par.ts's. The
// session checks them as soon as discovery is read (before any request of the flow); `obflow doctor` lists them all.

import type { ObflowConfig } from '../config/schema.js';
import type { DiscoveryAddresses } from '../bank/discovery.js';
import { isObflowError, ObflowError, type ErrorCode } from '../errors.js';
import { DEFAULT_FAPI_PROFILE } from '../fapi-profile.js';
import { parForGeneration } from './generate.js';

/** The codes of a discovery that was read and contradicts the config (par.ts's and this module's): a stage that reads
 *  discovery as best effort still stops on them. */
const MISMATCH_CODES: readonly ErrorCode[] = ['ERR_PAR_UNAVAILABLE', 'ERR_DISCOVERY_MISMATCH'];

export function isDiscoveryMismatch(error: unknown): boolean {
  return isObflowError(error) && MISMATCH_CODES.includes(error.code);
}

function mismatch(message: string, hint: string): ObflowError {
  return new ObflowError('ERR_DISCOVERY_MISMATCH', message, { hint });
}

/** The mismatches other than flow.par's and the auth method's (those have their own codes and homes). */
export function discoveryMismatches(config: ObflowConfig, discovery: DiscoveryAddresses, discoveryUrl: string): ObflowError[] {
  const problems: ObflowError[] = [];
  const where = `the bank's discovery (${discoveryUrl})`;
  // OIDC Discovery §3: response_modes_supported defaults to ["query", "fragment"] when absent.
  const modes = discovery.response_modes_supported ?? ['query', 'fragment'];
  if (config.flow.jarm && !modes.includes('jwt'))
    problems.push(
      mismatch(
        `flow.jarm asks response_mode=jwt (JARM §4), but ${where} lists response_modes_supported [${modes.join(', ')}]`,
        'Set flow.jarm to false (and flow.responseType to "code id_token") for this bank: it does not offer JARM.',
      ),
    );
  const pushes = parForGeneration(config, discovery.require_pushed_authorization_requests === true);
  const methods = discovery.code_challenge_methods_supported;
  if (pushes && methods !== undefined && !methods.includes('S256'))
    problems.push(
      mismatch(
        `flow.par "${config.flow.par}" sends PKCE with S256 (RFC 7636 §4.2), but ${where} lists code_challenge_methods_supported [${methods.join(', ')}]`,
        'Set flow.par to "never" for this bank (FAPI requires S256 with PAR; a bank without it cannot take pushed requests from obflow).',
      ),
    );
  const { fapi } = config.flow;
  if (fapi.issRequired && discovery.authorization_response_iss_parameter_supported !== true)
    problems.push(
      mismatch(
        `${fapi.setting} requires the iss authorization response parameter (RFC 9207), but ${where} does not say authorization_response_iss_parameter_supported: true`,
        `Set flow.fapi to "${DEFAULT_FAPI_PROFILE}" for this bank: it does not speak FAPI ${fapi.name} (or ask the bank whether it sends iss).`,
      ),
    );
  return problems;
}

/** Throws the first mismatch (ERR_DISCOVERY_MISMATCH): the session's discovery read, before any request of the flow. */
export function assertDiscoveryOffers(config: ObflowConfig, discovery: DiscoveryAddresses, discoveryUrl: string): void {
  const [first] = discoveryMismatches(config, discovery, discoveryUrl);
  if (first !== undefined) throw first;
}
