// The run plan's rules (src/pipeline/run-plan.ts). idTokenSteps: the step after the PSU consent checks the hybrid
// flow's front-channel id_token, so it belongs to a `code id_token` plan only; with `code` (JARM, FAPI 2.0) there is
// nothing it could ever check: out of the plan, not a skip that `--no-skips` would refuse on every run. issRequired:
// obflow's consent drivers require the iss response parameter under FAPI 2.0 and where discovery announces it
// (RFC 9207 §2.4), and readConsentRedirect refuses what that rule refuses.
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';

import { FAPI_PROFILES } from '../../src/fapi-profile.js';
import { idTokenSteps, issRequired } from '../../src/pipeline/run-plan.js';
import { readConsentRedirect } from '../../src/run/consent/redirect.js';
import type { DiscoveryAddresses } from '../../src/bank/discovery.js';
import { errorOf } from '../helpers/errors.js';
import type { ObflowConfig } from '../../src/config/schema.js';

/** The plan's id_token steps for what the run's environment sends as response_type. */
function planFor(responseType: string | undefined): string[] {
  return idTokenSteps({ dispatcher: new Agent(), now: () => new Date() }, responseType).map(({ after, step }) => `${after} → ${step.name}`);
}

describe('the run plan’s id_token steps', () => {
  it('code id_token: after the consent (front channel) and after the code exchange (token endpoint)', () => {
    expect(planFor('code id_token')).toEqual(['psu-consent → id-token', 'code-exchange → id-token-token']);
  });

  it('code: only the token endpoint’s id_token; the front channel carries none', () => {
    expect(planFor('code')).toEqual(['code-exchange → id-token-token']);
  });

  it('none in the environment: the collection sends the hybrid default, so its id_token is checked', () => {
    expect(planFor(undefined)).toEqual(['psu-consent → id-token', 'code-exchange → id-token-token']);
  });
});

describe('the run plan’s id_token keys', () => {
  it('take the session’s dispatcher at their first fetch, not while the plan is built (a run without them never loads undici)', () => {
    let reads = 0;
    const session = {
      get dispatcher(): Agent {
        reads += 1;
        return new Agent();
      },
      now: () => new Date(),
    };
    expect(idTokenSteps(session, 'code id_token')).toHaveLength(2);
    expect(reads).toBe(0);
  });
});

describe('the consent’s iss parameter (RFC 9207 §2.4)', () => {
  const addresses: DiscoveryAddresses = { issuer: 'https://as', authorization_endpoint: 'https://as/a', token_endpoint: 'https://as/t' };
  const sessionWith = (fapi: '1-advanced' | '2.0', announced: boolean) => ({
    config: { flow: { fapi: FAPI_PROFILES[fapi] } } as unknown as ObflowConfig,
    discovery: async () => ({ ...addresses, ...(announced ? { authorization_response_iss_parameter_supported: true } : {}) }),
  });

  it('is required under FAPI 2.0, and under FAPI 1 Advanced only where discovery announces it', async () => {
    expect(await issRequired(sessionWith('2.0', false))).toBe(true);
    expect(await issRequired(sessionWith('1-advanced', true))).toBe(true);
    expect(await issRequired(sessionWith('1-advanced', false))).toBe(false);
  });

  const expected = { redirectUri: 'https://tpp.example/cb', state: 's1', requireIss: true };
  it('required with no issuer to compare it with: the environment is the problem, not the bank', () => {
    const error = errorOf(() => readConsentRedirect('https://tpp.example/cb?code=c&state=s1&iss=https%3A%2F%2Fas', expected));
    expect(error?.code).toBe('ERR_DISCOVERY_INVALID');
  });

  it('missing from an error redirect: refused, and the message keeps the bank’s answer', () => {
    const error = errorOf(() =>
      readConsentRedirect('https://tpp.example/cb?error=access_denied&state=s1', { ...expected, issuer: 'https://as' }),
    );
    expect(error?.code).toBe('ERR_REMOTE_RESPONSE');
    expect(error?.message).toContain("the bank's answer was access_denied");
  });
});
