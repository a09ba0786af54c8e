// The run's event delivery without newman: every event redacted before a subscriber sees it (the done event's
// environment secret by secret), each subscriber in order on its own queue, a subscriber's error surfacing once the
// run settles; and the pure views built from events (progress lines, the JSON report).

import { rmSync } from 'node:fs';
import { mergeEnvironment } from '../../src/environment/merge.js';
import { idTokenStep } from '../../src/run/id-token.js';
import { stepStatus } from '../../src/run/result.js';
import { runSteps } from '../../src/run/runner.js';
import { describe, expect, it } from 'vitest';

import { EventDispatch } from '../../src/run/dispatch.js';
import { Redactor } from '../../src/run/redaction.js';
import { createCliReporter, progressLines } from '../../src/run/reporters/cli.js';
import { buildJsonReport, type RunEvent, type RunSubscriber } from '../../src/run/index.js';
import { transportHint } from '../../src/run/verdict.js';
import { tempDirSync } from '../helpers/temp.js';

const TOKEN = 'eyJhbGciOiJQUzI1NiJ9.payload.signature';
const at = '2026-01-01T00:00:00.000Z';
const environment = {
  id: 'e',
  name: 'e',
  _postman_variable_scope: 'environment' as const,
  values: [
    { key: 'access_token', value: TOKEN, type: 'secret' as const, enabled: true },
    { key: 'auth_code', value: 'abc', type: 'secret' as const, enabled: true },
    { key: 'rs', value: 'https://bank.example:8443', type: 'default' as const, enabled: true },
  ],
};
const request: RunEvent = {
  type: 'request',
  step: 'accounts',
  item: 'accounts: GET',
  method: 'GET',
  url: `https://bank.example:8443/aisp/accounts?t=${TOKEN}`,
  status: 200,
  statusText: 'OK',
  responseTime: 12,
  responseSize: 345,
  json: { Data: { Note: `token ${TOKEN.slice(0, 20)}…` } },
  at,
};
const assertion: RunEvent = {
  type: 'assertion',
  step: 'accounts',
  item: 'accounts: GET',
  name: 'token not echoed',
  status: 'failed',
  message: `expected '${TOKEN.slice(0, 24)}…' to equal 'x'`,
};

function redactor(): Redactor {
  const known = new Redactor(new Set(['access_token']));
  known.learnEnvironment(environment);
  return known;
}

describe('EventDispatch', () => {
  it('redacts every event (strings deep in bodies too, fragments as chai quotes them) before any subscriber', () => {
    const seen: RunEvent[] = [];
    const dispatch = new EventDispatch(redactor(), [{ onEvent: (event) => void seen.push(event) }]);
    dispatch.emit(request);
    dispatch.emit(assertion);
    const text = JSON.stringify(seen);
    expect(text).not.toContain(TOKEN.slice(0, 12));
    expect(seen[0]).toMatchObject({
      url: 'https://bank.example:8443/aisp/accounts?t=[redacted]',
      json: { Data: { Note: 'token [redacted]…' } },
      status: 200,
    });
    expect(seen[1]).toMatchObject({ message: "expected '[redacted]…' to equal 'x'" });
  });

  it('gives done the environment with every secret value [redacted], short ones too', () => {
    const seen: RunEvent[] = [];
    const dispatch = new EventDispatch(redactor(), [{ onEvent: (event) => void seen.push(event) }]);
    dispatch.emit({ type: 'done', finishedAt: at, result: { passed: true, steps: [], environment, executions: [] } });
    const done = seen[0];
    expect(done?.type === 'done' ? done.result.environment.values.map((entry) => entry.value) : []).toEqual([
      '[redacted]',
      '[redacted]',
      'https://bank.example:8443',
    ]);
    expect(environment.values[0]?.value).toBe(TOKEN); // the caller's own result keeps its environment
  });

  it('keeps each subscriber in order on its own queue; a synchronous one is current at once; an error surfaces on settle', async () => {
    const order: string[] = [];
    const slow: RunSubscriber = {
      onEvent: async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`slow ${event.type}`);
      },
    };
    const quick: RunSubscriber = { onEvent: (event) => void order.push(`quick ${event.type}`) };
    const dispatch = new EventDispatch(redactor(), [slow, quick]);
    dispatch.emit(request);
    dispatch.emit(assertion);
    expect(order).toEqual(['quick request', 'quick assertion']);
    await dispatch.settle();
    expect(order).toEqual(['quick request', 'quick assertion', 'slow request', 'slow assertion']);

    const failing = new EventDispatch(redactor(), [
      {
        onEvent: () => {
          throw new Error('disk full');
        },
      },
    ]);
    failing.emit(request);
    await expect(failing.settle()).rejects.toThrow('disk full');
  });
});

describe('views of the events', () => {
  it('progress lines: a step header, the request without its query, ✓/✗ per assertion, nothing for skipped', () => {
    expect(progressLines({ type: 'step', phase: 'begin', step: 'accounts', kind: 'collection', at })).toEqual(['▸ accounts']);
    expect(progressLines(request)).toEqual(['  accounts: GET  GET /aisp/accounts → 200']);
    expect(progressLines({ type: 'assertion', step: 'accounts', item: 'i', name: 'status is 200', status: 'passed' })).toEqual([
      '    ✓ status is 200',
    ]);
    expect(progressLines({ type: 'assertion', step: 'accounts', item: 'i', name: 'later', status: 'skipped' })).toEqual([]);
    const failure = { kind: 'unreachable' as const, item: 'i', origin: 'https://h:1', message: 'connect ECONNREFUSED' };
    expect(progressLines({ type: 'request', step: 's', item: 'i', method: 'GET', url: 'https://h:1/x', failure, at })).toEqual([
      '  i  GET /x → error: connect ECONNREFUSED',
    ]);
  });

  it('the cli reporter: one line per step by default (– skipped with its reason, · the steps not reached), every check with --verbose, each once', () => {
    const ok = { requests: 1, assertions: { total: 2, failed: 0 }, failures: [], reports: [] };
    const events: RunEvent[] = [
      {
        type: 'start',
        startedAt: at,
        steps: [
          { name: 'psu-consent', kind: 'collection' },
          { name: 'id-token', kind: 'local' },
          { name: 'refresh', kind: 'collection' },
          { name: 'later', kind: 'collection' },
        ],
        origins: [],
      },
      { type: 'step', phase: 'begin', step: 'psu-consent', kind: 'collection', at },
      { ...request, step: 'psu-consent' },
      { type: 'assertion', step: 'psu-consent', item: 'i', name: 'id_token signature verifies', status: 'passed' },
      { type: 'assertion', step: 'psu-consent', item: 'i', name: 'status is 200', status: 'passed' },
      { type: 'step', phase: 'end', step: 'psu-consent', kind: 'collection', at, result: { name: 'psu-consent', passed: true, ...ok } },
      { type: 'step', phase: 'begin', step: 'id-token', kind: 'local', at },
      { type: 'assertion', step: 'id-token', item: 'id-token', name: 'id_token signature verifies', status: 'passed' },
      {
        type: 'step',
        phase: 'end',
        step: 'id-token',
        kind: 'local',
        at,
        result: { name: 'id-token', passed: true, ...ok, requests: 0, assertions: { total: 1, failed: 0 } },
      },
      { type: 'step', phase: 'begin', step: 'refresh', kind: 'collection', at },
      { type: 'skip', step: 'refresh', item: 'refresh: POST token', reason: 'the bank issued no refresh token' },
      {
        type: 'step',
        phase: 'end',
        step: 'refresh',
        kind: 'collection',
        at,
        result: {
          name: 'refresh',
          passed: true,
          requests: 0,
          assertions: { total: 0, failed: 0 },
          failures: [],
          reports: [],
          skipped: [{ item: 'refresh: POST token', reason: 'the bank issued no refresh token' }],
        },
      },
      {
        type: 'done',
        finishedAt: at,
        result: {
          passed: false,
          steps: [],
          environment: { id: 'e', name: 'e', values: [], _postman_variable_scope: 'environment' },
          executions: [],
        },
      },
    ];
    const linesOf = (verbose: boolean): string[] => {
      const lines: string[] = [];
      const reporter = createCliReporter({
        cwd: '/',
        reportDir: '/',
        log: (line) => void lines.push(line),
        redact: (text) => text,
        verbose,
      });
      for (const event of events) void reporter.onEvent(event);
      return lines;
    };
    expect(linesOf(false)).toEqual([
      '✓ psu-consent  1 request, 2 checks',
      '✓ id-token  1 check',
      '– refresh  skipped: the bank issued no refresh token',
      '· not reached: later',
    ]);
    const verbose = linesOf(true);
    expect(verbose).toContain('    ✓ status is 200');
    expect(verbose).toContain('  refresh: POST token  – skipped: the bank issued no refresh token');
    // The local step's id_token check repeats the collection's: printed once.
    expect(verbose.filter((line) => line === '    ✓ id_token signature verifies')).toHaveLength(1);
  });

  it('a local step with nothing to check (no id_token with response_type code) is skipped with its reason, not passed with 0 checks', async () => {
    const cwd = tempDirSync('obflow-local-skip-');
    try {
      const lines: string[] = [];
      const result = await runSteps({
        steps: [
          idTokenStep({ source: 'authorization', keys: async () => ({ keys: [] }) }),
          idTokenStep({ source: 'token', keys: async () => ({ keys: [] }) }),
        ],
        environment: { ...mergeEnvironment({ name: 'n', flow: { response_type: 'code' } }) },
        cwd,
        sslClientCertList: [],
        preflight: false,
        reporters: ['cli'],
        log: (line) => void lines.push(line),
      });
      expect(result.steps.map((step) => stepStatus(step))).toEqual(['skipped', 'skipped']);
      expect(result.passed).toBe(true);
      expect(lines[0]).toMatch(/^– id-token {2}skipped: response_type code: the authorization response carries no id_token/);
      expect(lines[1]).toBe('– id-token-token  skipped: the token response carried no id_token, so there was none to check');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('the JSON report puts each assertion under its request and keeps no body', () => {
    const report = buildJsonReport([
      { type: 'start', startedAt: at, steps: [{ name: 'accounts', kind: 'collection' }], origins: ['https://bank.example:8443'] },
      { type: 'step', phase: 'begin', step: 'accounts', kind: 'collection', at },
      request,
      { type: 'assertion', step: 'accounts', item: 'accounts: GET', name: 'status is 200', status: 'passed' },
      { type: 'done', finishedAt: at, result: { passed: true, steps: [], environment, executions: [] } },
    ]);
    expect(report.steps[0]?.requests[0]).toMatchObject({
      status: 200,
      responseTime: 12,
      assertions: [{ name: 'status is 200', status: 'passed' }],
    });
    expect(report.steps[0]?.requests[0]).not.toHaveProperty('json');
    expect(report).toMatchObject({ version: 1, passed: true, origins: ['https://bank.example:8443'] });
    expect(report).not.toHaveProperty('failure');
  });

  it("the JSON report of a failed run carries the CLI's sentence and hint (a merged page shows them: whose side, what to do)", () => {
    const transport = {
      kind: 'unreachable' as const,
      item: 'accounts: GET',
      origin: 'https://bank.example:8443',
      message: 'connect ECONNREFUSED',
    };
    const failed = {
      name: 'accounts',
      passed: false,
      requests: 1,
      assertions: { total: 0, failed: 0 },
      failures: [],
      reports: [],
      transport,
    };
    const report = buildJsonReport([
      { type: 'start', startedAt: at, steps: [{ name: 'accounts', kind: 'collection' }], origins: ['https://bank.example:8443'] },
      {
        type: 'done',
        finishedAt: at,
        result: {
          passed: false,
          failedStep: 'accounts',
          steps: [failed],
          transport: { step: 'accounts', ...transport },
          environment,
          executions: [],
        },
      },
    ]);
    expect(report.failure).toEqual({
      step: 'accounts',
      sentence: expect.stringContaining('the bank at https://bank.example:8443 did not answer') as string,
      hint: transportHint('unreachable'),
    });
  });
});

describe('errors from a run (newman could not run, OBFLOW_DEBUG stacks)', () => {
  it('Redactor.error: message, stack and nested causes redacted; the name kept', () => {
    const inner = new Error(`socket closed after sending ${TOKEN}`);
    const outer = new TypeError(`newman: bad request with Bearer ${TOKEN.slice(0, 20)}`, { cause: inner });
    const safe = redactor().error(outer);
    expect(safe.name).toBe('TypeError');
    const all = `${safe.message}\n${safe.stack ?? ''}\n${String((safe.cause as Error).message)}\n${String((safe.cause as Error).stack)}`;
    expect(all).toContain('[redacted]');
    expect(all).not.toContain(TOKEN.slice(0, 12));
    expect(redactor().error('plain string with no secret').message).toBe('plain string with no secret');
  });
});
