// A workspace's failed report says whose side and what to do by the rows obflow's own report uses (src/runner-rules.ts
// failureOfSteps, compiled into every workspace's rules.mjs): one scenario per side, in the workspace reader's words
// (no obflow at hand: the secret and key files of the run first, then whoever made the workspace).

import { describe, expect, it } from 'vitest';

import { failureOfSteps, type ReportedStep } from '../../src/runner-rules.js';
import { failingRequests, failureHint } from '../../src/run/verdict.js';
import type { RunResult } from '../../src/run/result.js';

const step = (request: Partial<ReportedStep['requests'][number]>, status = 'failed'): ReportedStep => ({
  name: 'client-credentials',
  status,
  requests: [{ item: 'POST token', method: 'POST', origin: 'https://bank.example', path: '/token', assertions: [], ...request }],
});
const failedCheck = (message: string, name = 'status is 200') => ({ assertions: [{ name, passed: false, message }] });

describe('failureOfSteps (a workspace report)', () => {
  it('no failed step: nothing to say', () => {
    expect(failureOfSteps([step({}, 'passed')], 'below')).toBeUndefined();
  });

  it("a refusal (invalid_client): the client's side, the run's secret and key files first, then whoever made the workspace", () => {
    const failure = failureOfSteps(
      [step({ status: 401, ...failedCheck('the bank answered 401 invalid_client (bad secret), not 200') })],
      'below',
    );
    expect(failure?.sentence).toBe(
      "The run stopped at step client-credentials (POST token): the bank refused the request (HTTP 401); the fault is on the client's side.",
    );
    expect(failure?.hint).toMatch(
      /^The bank refused the request \(invalid_client \(bad secret\)\), as the standard lets it: the fault is on the client's side .*check the client secret and the key files given for this run .*whoever made this workspace registers the client again/,
    );
    expect(failure?.detail).toEqual([
      '✗ client-credentials › POST token: status is 200 — the bank answered 401 invalid_client (bad secret), not 200',
    ]);
  });

  it('a refusal whose row has no workspace words: whoever made the workspace, with the row (and make it again)', () => {
    const failure = failureOfSteps(
      [step({ status: 400, ...failedCheck('the bank answered 400 invalid_scope (no accounts), not 200') })],
      'below',
    );
    expect(failure?.hint).toContain(
      "; whoever made this workspace: the client is not registered for this grant, scope or response type: compare the registration with the bank's discovery document, then make it again (`obflow workspace`).",
    );
  });

  it("the bank's answer against the standard: the bank's side, tell the bank", () => {
    const failure = failureOfSteps([step({ status: 500, ...failedCheck('the bank answered 500 no body, not 200') })], 'below');
    expect(failure?.sentence).toMatch(/the bank's answer broke a rule of the standard; the fault is on the bank's side\.$/);
    expect(failure?.hint).toBe(
      "The bank's answer broke a rule of the standard (status is 200): the fault is on the bank's side. Tell the bank, with the time of the run and the failing check. Details: below.",
    );
  });

  it('a variable no setting filled: named, and who sets it', () => {
    const failure = failureOfSteps(
      [step({ path: '/{{obParticipantId}}/token', status: 404, ...failedCheck('the bank answered 404 no body, not 200') })],
      'below',
    );
    expect(failure?.hint).toBe(
      "A setting is missing: the request went out with {{obParticipantId}} unresolved; whoever made this workspace sets it (`obflow environment`, then `obflow workspace`), or set it in Postman's environment.",
    );
  });

  it('no answer at all: the bank not reached, what to check on this machine', () => {
    const failure = failureOfSteps([step({ error: 'ECONNREFUSED' })], 'below');
    expect(failure?.sentence).toBe(
      'The run stopped at step client-credentials: the bank at https://bank.example did not answer (ECONNREFUSED), so nothing was checked there.',
    );
    expect(failure?.hint).toMatch(/^Check that this machine reaches https:\/\/bank\.example/);
  });

  it("obflow's own words for the same refusal are unchanged (src/run/verdict.ts reads the same rows)", () => {
    const result: RunResult = {
      passed: false,
      failedStep: 'client-credentials',
      steps: [
        {
          name: 'client-credentials',
          passed: false,
          requests: 1,
          assertions: { total: 1, failed: 1 },
          failures: [{ item: 'POST token', test: 'status is 200', message: 'the bank answered 401 invalid_client (bad secret), not 200' }],
          reports: [],
        },
      ],
      environment: { id: 'e', name: 'e', values: [], _postman_variable_scope: 'environment' },
      executions: [{ step: 'client-credentials', item: 'POST token', method: 'POST', url: 'https://bank.example/token', status: 401 }],
    };
    expect(failureHint(failingRequests(result)[0], 'r')).toMatch(
      /^The bank refused obflow's request \(invalid_client \(bad secret\)\), as the standard lets it: the fault is on obflow's side \(its request, the registration or a setting\); the bank did not accept the client authentication obflow sent as registered .*register again \(`obflow register --force`\) and run `obflow environment`\. Details: r\.$/,
    );
  });
});
