// The refresh step (RFC 6749 §6, client_secret_basic) against the emulator's refresh rules: a refresh token mints a new
// access token that reads the same accounts; once the consent is revoked it mints nothing (invalid_grant).

import { request } from 'undici';
import { describe, expect, it } from 'vitest';

import { environmentValue, withEnvironmentValues } from '../../src/environment/index.js';
import { stepStatus } from '../../src/run/result.js';
import { describeRun, runAll, usePreparedSandbox } from './pipeline-helpers.js';

describe('refresh (strict-headless)', () => {
  const fixture = usePreparedSandbox('strict-headless');

  it("registered with §2.1's two grants, the emulator still issues a refresh token; the refreshed token reads the same accounts", async () => {
    const result = await runAll(fixture.prepared);
    expect(result.passed, describeRun(result)).toBe(true);
    const refresh = result.steps.find((step) => step.name === 'refresh');
    expect(refresh?.requests).toBe(2);
    expect(refresh?.assertions.failed).toBe(0);
    // The read after the refresh went out with a new token: the emulator's log names two grants of the same client.
    expect(fixture.sandbox.log.filter((line) => /POST \S*\/token\b/.test(line)).length).toBeGreaterThanOrEqual(3);

    // Revoke the consent (AIS v3.1 DELETE /account-access-consents/{ConsentId}); the refresh token dies with it.
    const rs = environmentValue(result.environment, 'rs');
    const consentId = environmentValue(result.environment, 'consent_id');
    const revoked = await request(`${rs}/open-banking/v3.1/aisp/account-access-consents/${consentId}`, {
      method: 'DELETE',
      dispatcher: fixture.prepared.dispatcher,
      headers: {
        authorization: `Bearer ${environmentValue(result.environment, 'client_credentials_token')}`,
        'x-fapi-financial-id': environmentValue(result.environment, 'obParticipantId') ?? '',
      },
    });
    await revoked.body.text();
    expect(revoked.statusCode).toBe(204);
    const again = await runAll({ ...fixture.prepared, environment: result.environment }, { select: 'refresh' });
    expect(again.passed).toBe(false);
    const failures = again.steps.find((step) => step.name === 'refresh')?.failures ?? [];
    expect(failures.map((failure) => failure.test)).toContain('status is 200');
    expect(failures.map((failure) => failure.message).join('\n')).toMatch(/400/);
  });

  it('without a refresh token the step is skipped with its reason, and the read with the old token is skipped with it', async () => {
    const first = await runAll(fixture.prepared);
    expect(first.passed, describeRun(first)).toBe(true);
    const from = fixture.sandbox.log.length;
    const environment = withEnvironmentValues(first.environment, { refresh_token: '' });
    const again = await runAll({ ...fixture.prepared, environment }, { select: 'refresh' });
    const refresh = again.steps.find((step) => step.name === 'refresh');
    expect(again.passed).toBe(true);
    expect(refresh && stepStatus(refresh)).toBe('skipped');
    expect(refresh?.requests).toBe(0);
    expect(refresh?.assertions).toEqual({ total: 0, failed: 0 });
    expect(refresh?.skipped?.map((skip) => skip.reason)).toEqual([
      expect.stringMatching(/^the bank issued no refresh token .*registration\.refresh_token_grant: true/),
      expect.stringMatching(/^the refresh did not run/),
    ]);
    // Nothing went to the emulator: no token request, no read with the old access token.
    expect(fixture.sandbox.log.slice(from)).toEqual([]);
  });

  it('a loop with nothing to loop over (no account_ids) is skipped with its reason, never a request for an empty id', async () => {
    const first = await runAll(fixture.prepared, { select: 'discovery' });
    expect(first.passed, describeRun(first)).toBe(true);
    const from = fixture.sandbox.log.length;
    const environment = withEnvironmentValues(fixture.prepared.environment, { account_ids: '[]' });
    for (const step of ['each-account', 'account-balances', 'transactions']) {
      const result = await runAll({ ...fixture.prepared, environment }, { select: step });
      const only = result.steps[0];
      expect(only && stepStatus(only), `${step}\n${describeRun(result)}`).toBe('skipped');
      expect(only?.skipped?.[0]?.reason).toMatch(/^account_ids is empty: no accounts to read/);
    }
    expect(fixture.sandbox.log.slice(from)).toEqual([]);
  });
});
