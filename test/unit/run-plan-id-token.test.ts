// The id_token steps of the run plan (src/pipeline/run-plan.ts idTokenSteps): the one after the PSU consent checks the
// hybrid flow's front-channel id_token, so it belongs to a `code id_token` plan only. With `code` (JARM, FAPI 2.0)
// there is nothing it could ever check: out of the plan, not a skip that `--no-skips` would refuse on every run.
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { idTokenSteps } from '../../src/pipeline/run-plan.js';
import type { ObflowConfig } from '../../src/config/schema.js';

function planFor(responseType: ObflowConfig['flow']['responseType']): string[] {
  const config = { flow: { responseType } } as ObflowConfig;
  return idTokenSteps({ config, dispatcher: new Agent(), now: () => new Date() }).map(({ after, step }) => `${after} → ${step.name}`);
}

describe('the run plan’s id_token steps', () => {
  it('code id_token: after the consent (front channel) and after the code exchange (token endpoint)', () => {
    expect(planFor('code id_token')).toEqual(['psu-consent → id-token', 'code-exchange → id-token-token']);
  });

  it('code: only the token endpoint’s id_token; the front channel carries none', () => {
    expect(planFor('code')).toEqual(['code-exchange → id-token-token']);
  });
});
