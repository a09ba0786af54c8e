// Secrets never reach the reports: an assertion whose failure message quotes a secret (the Basic credentials, a
// token) ends up in newman's JUnit file — obflow redacts every secret value of the run from it. The JSON reporter and
// any subscriber of the run's events (src/run/events.ts) see the run redacted the same way. The secrets are collected
// as the run makes them (codes, every token issued, the client secret), not from the final environment.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { environmentValue } from '../../src/environment/index.js';
import { SECRET_VARIABLE_KEYS, STEP_NAMES } from '../../src/generate/index.js';
import { buildRunPlan, JSON_REPORT_FILE, runSteps, type JsonReport, type RunEvent, type RunStep } from '../../src/run/index.js';
import { describeRun, usePreparedSandbox } from './pipeline-helpers.js';

const fixture = usePreparedSandbox('permissive-headless');

/** A step whose test fails with the secrets in its message (chai prints the actual value). */
const leaky = {
  info: { name: 'leaky', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
  item: [
    {
      name: 'leaky: GET discovery',
      request: { method: 'GET', url: '{{configEndpoint}}' },
      event: [
        {
          listen: 'test',
          script: {
            type: 'text/javascript',
            exec: [
              "pm.test('basicToken is not quoted in reports', function () { pm.expect(pm.environment.get('basicToken')).to.eql('nope'); });",
              "pm.test('client_credentials_token is not quoted in reports', function () { pm.expect(pm.environment.get('client_credentials_token')).to.eql('nope'); });",
            ],
          },
        },
      ],
    },
  ],
};

describe('reports', () => {
  it('JUnit files carry the failing assertion but [redacted] instead of any secret value', async () => {
    const reportDir = join(fixture.prepared.stateDir, 'reports');
    const lines: string[] = [];
    const result = await runSteps({
      steps: [
        ...buildRunPlan({ stepNames: ['discovery', 'client-credentials'], collections: fixture.prepared.collections }),
        { name: 'leaky', collection: leaky },
      ],
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: fixture.prepared.certList,
      sslExtraCaCerts: fixture.prepared.caBundle,
      reporters: ['cli', 'junit'],
      reportDir,
      secretKeys: SECRET_VARIABLE_KEYS,
      log: (line) => lines.push(line),
      verbose: true,
    });
    expect(result.failedStep, describeRun(result)).toBe('leaky');
    expect(result.steps.find((step) => step.name === 'leaky')?.assertions, describeRun(result)).toEqual({ total: 2, failed: 2 });
    const basic = environmentValue(result.environment, 'basicToken') ?? '';
    const token = environmentValue(result.environment, 'client_credentials_token') ?? '';
    expect(basic.length).toBeGreaterThan(8);
    expect(token.length).toBeGreaterThan(8);
    // chai quotes the actual values in the failure messages (truncated, so a prefix of each secret would leak):
    // the messages obflow returns (the CLI prints the first) are redacted like the reports.
    const messages = result.steps.flatMap((step) => step.failures.map((failure) => failure.message)).join('\n');
    expect(messages).toMatch(/expected '\[redacted\]…?' to deeply equal 'nope'/);
    for (const secret of [basic, token]) expect(messages.includes(secret.slice(0, 12))).toBe(false);
    const reports = [...new Set(result.steps.flatMap((step) => step.reports))];
    expect(reports).toHaveLength(1);
    const text = await readFile(reports[0] as string, 'utf8');
    expect(text).toContain('basicToken is not quoted in reports');
    expect(text).toContain('[redacted]');
    for (const secret of [basic, token]) {
      expect(text.includes(secret)).toBe(false);
      expect(text.includes(secret.slice(0, 12))).toBe(false);
    }

    // The cli progress lines (obflow's own reporter, through the log seam) are redacted the same way.
    const progress = lines.join('\n');
    expect(progress).toContain('▸ client-credentials');
    expect(progress).toMatch(/client-credentials: POST token\s+POST \/\S+\/token → 200/);
    expect(progress).toContain('✓ status is 200');
    expect(progress).toMatch(/✗ basicToken is not quoted in reports: expected '\[redacted\]/);
    for (const secret of [basic, token]) expect(progress.includes(secret.slice(0, 12))).toBe(false);
  });
});

describe('the JSON reporter and the run events', () => {
  it('a whole run as one JSON file (steps, requests with status and timing, assertions) and as events, with no secret of the run in either', async () => {
    const reportDir = join(fixture.prepared.stateDir, 'reports-json');
    // A subscriber of the caller's own: a new reporter needs no runner file (events.ts RunSubscriber).
    const events: RunEvent[] = [];
    const lines: string[] = [];
    let finished = 0;
    // Every secret as the run makes it, before any redaction: after each step a local step (which the runner hands the
    // run's own environment) keeps every secret value then present — the authorisation code before the exchange
    // forgets it, each access and refresh token before the refresh replaces it, the client secret — and the consent
    // URL's state and nonce.
    const made = new Set<string>();
    const stateAndNonce = new Set<string>();
    const keep = (name: string): RunStep => ({
      name: `keep-${name}`,
      local: async (environment) => {
        for (const entry of environment.values) {
          if (entry.value === '') continue;
          if (entry.type === 'secret' || SECRET_VARIABLE_KEYS.has(entry.key)) made.add(entry.value);
          if (entry.key === 'state' || entry.key === 'nonce') stateAndNonce.add(entry.value);
        }
        return { values: {}, checks: [] };
      },
    });
    const plan = buildRunPlan({ stepNames: STEP_NAMES, collections: fixture.prepared.collections });
    const result = await runSteps({
      steps: [...plan.flatMap((step) => [step, keep(step.name)]), { name: 'leaky', collection: leaky }],
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: fixture.prepared.certList,
      sslExtraCaCerts: fixture.prepared.caBundle,
      subscribers: [
        {
          onEvent: (event) => void events.push(event),
          finish: async () => {
            finished += 1;
            return [];
          },
        },
      ],
      reportDir,
      secretKeys: SECRET_VARIABLE_KEYS,
      target: { name: 'sandbox', profile: 'permissive-headless' },
      reporters: ['junit', 'json', 'cli'],
      log: (line) => void lines.push(line),
    });
    expect(result.failedStep, describeRun(result)).toBe('leaky');
    const named = (names: readonly string[]): string[] => names.filter((name) => !name.startsWith('keep-'));
    expect(named(result.steps.map((step) => step.name))).toEqual([...STEP_NAMES, 'leaky']);
    const jsonFile = join(reportDir, JSON_REPORT_FILE);
    expect(result.reports).toContain(jsonFile);
    expect(finished).toBe(1);

    // What was made: the code, two access tokens of the code's grant and the refresh (the first one replaced), the
    // client's secret; the final environment alone holds fewer (the code is forgotten, the first token replaced).
    const final = new Set(result.environment.values.filter((entry) => entry.type === 'secret').map((entry) => entry.value));
    const clientSecret = environmentValue(result.environment, '_clientSecret') ?? '';
    expect(clientSecret).not.toBe('');
    expect(made.has(clientSecret)).toBe(true);
    const gone = [...made].filter((secret) => !final.has(secret));
    expect(gone.length, 'the code and the pre-refresh tokens are not in the final environment').toBeGreaterThanOrEqual(2);
    expect(stateAndNonce.size).toBe(2);

    // Every file the run wrote under the report folder, every event, every progress line: no secret whole, none of
    // the long ones by a 12-character prefix (chai's truncated quotes); the JSON report keeps no state or nonce.
    const files = readdirSync(reportDir, { recursive: true, encoding: 'utf8' })
      .map((name) => join(reportDir, name))
      .filter((path) => statSync(path).isFile());
    expect(files.length).toBeGreaterThanOrEqual(2);
    const bodies = new Map([
      ...files.map((path) => [path, readFileSync(path, 'utf8')] as const),
      ['events', JSON.stringify(events)],
      ['progress', lines.join('\n')],
    ]);
    const leaks: string[] = [];
    for (const [where, body] of bodies) {
      for (const secret of made) {
        if (body.includes(secret) || (secret.length >= 12 && body.includes(secret.slice(0, 12))))
          leaks.push(`${where}: ${secret.slice(0, 4)}…`);
      }
    }
    expect(leaks).toEqual([]);
    const text = await readFile(jsonFile, 'utf8');
    expect(text).toContain('[redacted]');
    for (const value of stateAndNonce) expect(text.includes(value), 'state and nonce stay out of the JSON report').toBe(false);

    const report = JSON.parse(text) as JsonReport;
    expect(report).toMatchObject({
      version: 1,
      target: { name: 'sandbox', profile: 'permissive-headless' },
      passed: false,
      failedStep: 'leaky',
    });
    expect(report.origins.length).toBeGreaterThan(0);
    expect(named(report.steps.map((step) => step.name))).toEqual([...STEP_NAMES, 'leaky']);
    for (const step of report.steps) {
      const tally = result.steps.find((candidate) => candidate.name === step.name);
      expect(step.passed).toBe(tally?.passed);
      expect(step.assertions).toEqual(tally?.assertions);
      expect(step.requests).toHaveLength(tally?.requests ?? -1);
      expect(step.requests.flatMap((request) => request.assertions).filter((assertion) => assertion.status !== 'skipped')).toHaveLength(
        tally?.assertions.total ?? -1,
      );
      for (const request of step.requests) {
        expect(request.status).toBeGreaterThanOrEqual(200);
        expect(request.responseTime).toBeGreaterThanOrEqual(0);
        expect(request.responseSize).toBeGreaterThanOrEqual(0);
        expect(Date.parse(request.at)).not.toBeNaN();
      }
    }
    const accounts = report.steps.find((step) => step.name === 'accounts');
    expect(accounts?.requests[0]).toMatchObject({ method: 'GET', status: 200, statusText: 'OK' });
    expect(accounts?.requests[0]?.assertions.some((assertion) => assertion.status === 'passed')).toBe(true);
    const leakyStep = report.steps.find((step) => step.name === 'leaky');
    expect(leakyStep?.requests[0]?.assertions.map((assertion) => [assertion.name, assertion.status])).toEqual([
      ['basicToken is not quoted in reports', 'failed'],
      ['client_credentials_token is not quoted in reports', 'failed'],
    ]);
    expect(leakyStep?.requests[0]?.assertions[0]?.message).toMatch(/expected '\[redacted\]/);

    // The events: start first, done last, a begin and an end per step, the accounts body for the summary.
    expect(events[0]?.type).toBe('start');
    expect(events.at(-1)?.type).toBe('done');
    const phases = events.flatMap((event) =>
      event.type === 'step' && !event.step.startsWith('keep-') ? [`${event.phase} ${event.step}`] : [],
    );
    expect(phases).toEqual([...STEP_NAMES, 'leaky'].flatMap((name) => [`begin ${name}`, `end ${name}`]));
    const accountsList = events.find((event) => event.type === 'request' && /\/aisp\/accounts$/.test(event.url));
    expect(accountsList?.type === 'request' ? accountsList.json : undefined).toMatchObject({ Data: { Account: expect.any(Array) } });
    const done = events.at(-1);
    expect(
      done?.type === 'done'
        ? done.result.environment.values
            .filter((entry) => entry.type === 'secret' && entry.value !== '')
            .every((entry) => entry.value === '[redacted]')
        : false,
    ).toBe(true);
  });
});
