// Which side broke which rule (src/run/verdict.ts), one row per side: a refusal with the bank's error (4xx,
// OAuth or OBIE), the bank's own answer against the standard (a schema check, a 5xx), a missing setting.

import { describe, expect, it } from 'vitest';

import type { RunResult, StepFailure } from '../../src/run/result.js';
import { failingRequests, failureHint, failureLine } from '../../src/run/verdict.js';

function run(failures: StepFailure[], status: number | undefined, url = 'https://bank.example/token'): RunResult {
  return {
    passed: false,
    failedStep: 'step',
    steps: [
      { name: 'step', passed: false, requests: 1, assertions: { total: failures.length, failed: failures.length }, failures, reports: [] },
    ],
    environment: { id: 'e', name: 'e', values: [], _postman_variable_scope: 'environment' },
    executions: [{ step: 'step', item: 'item', method: 'POST', url, status }],
  };
}

const status = (message: string): StepFailure => ({ item: 'item', test: 'status is 200', message });

describe('failingRequests / failureHint', () => {
  it.each([
    [
      'an OAuth refusal',
      status('the bank answered 401 invalid_client (wrong secret), not 200'),
      401,
      'refused',
      /^The bank refused obflow's request \(invalid_client \(wrong secret\)\).*obflow's side.*obflow register --force/,
    ],
    [
      'an OBIE refusal',
      status('the bank answered 400 UK.OBIE.Header.Missing (x-fapi-financial-id), not 200'),
      400,
      'refused',
      /refused obflow's request \(UK\.OBIE\.Header\.Missing.*the bank names the field/,
    ],
    [
      'a Bearer challenge',
      status('the bank answered 401 WWW-Authenticate error invalid_token no body, not 200'),
      401,
      'refused',
      /the access token was refused/,
    ],
    [
      'a 5xx',
      status('the bank answered 500 no body, not 200'),
      500,
      'answer',
      /^The bank's answer broke a rule of the standard \(status is 200\): the fault is on the bank's side/,
    ],
    [
      'a schema check',
      { item: 'item', test: 'body is valid against X', message: 'body should have required property' },
      200,
      'answer',
      /bank's side/,
    ],
  ] as const)('%s', (_name, failure, code, side, hint) => {
    const [request] = failingRequests(run([failure], code));
    expect(request).toMatchObject({ step: 'step', item: 'item', status: code, side, more: 0 });
    expect(failureHint(request, 'report.xml')).toMatch(hint);
  });

  // The authorization endpoint's error redirect is the standard refusing obflow's request.
  const redirected = (description: string): StepFailure => ({
    item: 'item',
    test: 'no error in the redirect',
    message: `${description}: expected 'invalid_request' to equal undefined`,
  });
  it.each([
    ['PAR required', 'invalid_request: Pushed Authorization Request must be used', /obflow's side.*flow\.par to "always"/],
    [
      'response mode not allowed',
      'invalid_request: requested response_mode is not allowed for this client or request',
      /obflow's side.*flow\.jarm to true.*flow\.responseType to "code id_token"/,
    ],
    ['PKCE missing', 'invalid_request: code challenge required', /obflow's side.*PKCE.*flow\.par/],
  ] as const)("an error redirect, %s: refused, on obflow's side, naming the setting", (_name, description, hint) => {
    const [request] = failingRequests(run([redirected(description)], 303, 'https://bank.example/auth?client_id=c'));
    expect(request).toMatchObject({ side: 'refused', bankError: description });
    expect(failureHint(request, 'report.xml')).toMatch(hint);
    expect(failureHint(request, 'report.xml')).not.toContain("bank's side");
  });

  it('a request that went out with an unresolved variable: a missing setting, named', () => {
    const [request] = failingRequests(
      run([status('the bank answered 404 no body, not 200')], 404, 'https://bank.example/{{obParticipantId}}/x'),
    );
    expect(request).toMatchObject({ side: 'setting', missing: ['obParticipantId'] });
    expect(failureHint(request, 'report.xml')).toMatch(/^A setting is missing: .*\{\{obParticipantId\}\} unresolved/);
  });

  it('one line per failing request: its first failing check and the count of the rest', () => {
    const failures = [
      status('the bank answered 401 invalid_client, not 200'),
      { item: 'item', test: 'body is valid against OAuth Error Response (RFC 6749 §5.2)', message: 'no' },
      { item: 'item', test: 'x-fapi-interaction-id, when echoed, is ours', message: 'no' },
      { item: 'other', test: 'status is 201', message: 'the bank answered 500 no body, not 201' },
    ];
    expect(failingRequests(run(failures, 401)).map(failureLine)).toEqual([
      '✗ step › item: status is 200 — the bank answered 401 invalid_client, not 200 (+2 more failing checks)',
      '✗ step › other: status is 201 — the bank answered 500 no body, not 201',
    ]);
  });
});
