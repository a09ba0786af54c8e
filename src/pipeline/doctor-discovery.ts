// `obflow doctor`'s discovery line: the target's discovery read over mutual TLS, every mismatch
// with the config listed (src/pipeline/discovery-check.ts, par.ts, the auth method's choice) before any request of
// the flow.

import type { Overrides } from '../config/overrides.js';
import type { ObflowConfig } from '../config/schema.js';
import { fetchDiscovery, type DiscoveryAddresses } from '../bank/discovery.js';
import { isObflowError, type ObflowError } from '../errors.js';
import type { DoctorCheck } from '../pki/doctor.js';
import { chooseAuthMethod } from '../registration/auth-method.js';
import { discoveryMismatches } from './discovery-check.js';
import { parForGeneration } from './generate.js';
import { parMismatch } from './par.js';
import { tokenAuthSetting } from './register.js';
import { openSession } from './session.js';

/** The doctor line's name (stable: tests select by it). */
export const DISCOVERY_CHECK_NAME = "the bank's discovery offers what the config asks";

/**
 * `obflow doctor`'s discovery line: reads the target's discovery over mutual TLS and lists every
 * mismatch with the config — flow.par (ERR_PAR_UNAVAILABLE), the token auth method (ERR_AUTH_METHOD_UNSUPPORTED), JARM,
 * PKCE, FAPI 2.0 (ERR_DISCOVERY_MISMATCH) — before any request of the flow. Undefined when there is nothing to read:
 * target "sandbox" with no `obflow sandbox` running.
 */
export async function discoveryDoctorCheck(config: ObflowConfig, overrides: Overrides = {}): Promise<DoctorCheck | undefined> {
  let session: Awaited<ReturnType<typeof openSession>>;
  try {
    session = await openSession(config, overrides);
  } catch (error) {
    // No running sandbox: nothing to read, and not a prerequisite of doctor's (the other lines say the rest).
    if (config.target === 'sandbox') return undefined;
    return failed(error);
  }
  try {
    const url = session.target.discoveryUrl;
    const discovery = await fetchDiscovery(url, session.dispatcher);
    const problems = [
      parMismatch(config, discovery, url),
      authMethodMismatch(config, discovery),
      ...discoveryMismatches(config, discovery, url),
    ].filter((problem): problem is ObflowError => problem !== undefined);
    if (problems.length === 0) {
      const offered = [
        parForGeneration(config, discovery.require_pushed_authorization_requests === true) ? 'PAR' : '',
        config.flow.jarm ? 'JARM' : '',
        config.flow.fapi.issRequired ? `FAPI ${config.flow.fapi.name} (iss)` : '',
      ].filter(Boolean);
      return { name: DISCOVERY_CHECK_NAME, ok: true, detail: `${url}${offered.length > 0 ? `: ${offered.join(', ')}` : ''}` };
    }
    const [first] = problems as [ObflowError, ...ObflowError[]];
    return {
      name: DISCOVERY_CHECK_NAME,
      ok: false,
      code: first.code,
      message: problems.map((problem) => problem.message).join('; '),
      hint: problems.map((problem) => problem.hint).join(' '),
    };
  } catch (error) {
    return failed(error);
  } finally {
    await session.close();
  }
}

function authMethodMismatch(config: ObflowConfig, discovery: DiscoveryAddresses): ObflowError | undefined {
  try {
    chooseAuthMethod(tokenAuthSetting(config), discovery.token_endpoint_auth_methods_supported);
    return undefined;
  } catch (error) {
    if (isObflowError(error)) return error;
    throw error;
  }
}

function failed(error: unknown): DoctorCheck {
  if (!isObflowError(error)) throw error;
  return { name: DISCOVERY_CHECK_NAME, ok: false, code: error.code, message: error.message, hint: error.hint };
}
