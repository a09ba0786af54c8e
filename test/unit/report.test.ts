// The people's reports: the report model from run events, its redaction, the self-contained HTML, and the workspace's pure parts (environment without secrets, certificate rows, flow picture).

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/run/events.js';
import type { RunResult } from '../../src/run/result.js';
import { htmlReporter, reportSubscriber } from '../../src/run/reporters/html.js';
import { loadReportModule, reportModuleDir, type ReportModel } from '../../src/run/reporters/page.js';
import { certificateRows, flowSteps, flowSvg, workspaceEnvironment } from '../../src/workspace/build.js';
import type { PostmanEnvironment } from '../../src/environment/merge.js';
import { tempDirSync } from '../helpers/temp.js';

const TOKEN = 'eyJhbGciOiJQUzI1NiJ9.c2VjcmV0LXRva2VuLXZhbHVl.c2lnbmF0dXJl';
const redact = (text: string) =>
  text
    .split(TOKEN)
    .join('[redacted]')
    .replace(/eyJhbGciOi[A-Za-z0-9._-]*/g, '[redacted]');

function environmentOf(values: Record<string, [string, 'secret' | 'default']>): PostmanEnvironment {
  return {
    id: 'e',
    name: 'test',
    values: Object.entries(values).map(([key, [value, type]]) => ({ key, value, type, enabled: true })),
  } as PostmanEnvironment;
}

const environment = environmentOf({
  account_ids: ['["acc-1"]', 'default'],
  interim_balances: ['{"acc-1":{"Amount":"10.00","Currency":"GBP","CreditDebitIndicator":"Debit"}}', 'default'],
  transaction_counts: ['{"acc-1":0}', 'default'],
  access_token: ['[redacted]', 'secret'],
});

function result(steps: string[], passed: boolean): RunResult {
  return {
    passed,
    steps: steps.map((name) => ({
      name,
      passed,
      requests: 1,
      assertions: { total: 1, failed: passed ? 0 : 1 },
      failures: [],
      reports: [],
    })),
    environment,
    executions: [
      {
        step: 'accounts',
        item: 'GET accounts',
        method: 'GET',
        url: 'https://rs.example:8443/open-banking/v3.1/aisp/accounts',
        status: 200,
        json: { Data: { Account: [{ AccountId: 'acc-1', Nickname: 'Everyday' }] } },
      },
    ],
  } as RunResult;
}

const jsonReporter: typeof htmlReporter = (context) =>
  reportSubscriber(context, async (model: ReportModel) => {
    const path = join(context.reportDir, 'model.json');
    writeFileSync(path, JSON.stringify(model));
    return [path];
  });

async function feed(events: RunEvent[], reporter: typeof htmlReporter): Promise<string> {
  const dir = tempDirSync('obflow-report-');
  try {
    const subscriber = reporter({ cwd: dir, reportDir: dir, log: () => undefined, redact });
    for (const event of events) await subscriber.onEvent(event);
    const [file] = (await subscriber.finish?.()) ?? [];
    return readFileSync(file ?? '', 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const at = '2026-11-23T16:00:00.000Z';
const run: RunEvent[] = [
  {
    type: 'start',
    startedAt: at,
    steps: [
      { name: 'psu-consent', kind: 'local' },
      { name: 'accounts', kind: 'collection' },
      { name: 'transactions', kind: 'collection' },
    ],
    origins: ['https://rs.example:8443'],
    target: { name: 'sandbox', profile: 'strict-headless' },
  },
  {
    type: 'request',
    step: 'accounts',
    item: 'GET accounts',
    method: 'GET',
    url: `https://rs.example:8443/open-banking/v3.1/aisp/accounts?request=${TOKEN}`,
    status: 200,
    responseTime: 12,
    at,
  },
  { type: 'assertion', step: 'accounts', item: 'GET accounts', name: 'status is 200', status: 'passed' },
  {
    type: 'assertion',
    step: 'accounts',
    item: 'GET accounts',
    name: 'token not echoed',
    status: 'failed',
    message: `expected '${TOKEN.slice(0, 20)}…' to be empty`,
  },
  { type: 'assertion', step: 'accounts', item: 'GET accounts', name: 'skipped check', status: 'skipped' },
  {
    type: 'step',
    phase: 'end',
    step: 'accounts',
    kind: 'collection',
    at,
    result: { name: 'accounts', passed: false, requests: 1, assertions: { total: 2, failed: 1 }, failures: [], reports: [] },
  },
  {
    type: 'step',
    phase: 'end',
    step: 'psu-consent',
    kind: 'local',
    at,
    result: { name: 'psu-consent', passed: true, requests: 0, assertions: { total: 0, failed: 0 }, failures: [], reports: [] },
  },
  { type: 'done', finishedAt: at, result: result(['psu-consent', 'accounts'], false) },
];

describe("the run report's timing picture (the same picture as the merged page, templates/workspace/timing.mjs)", () => {
  const t = (ms: number) => new Date(Date.parse(at) + ms).toISOString();
  const ok = { requests: 0, assertions: { total: 0, failed: 0 }, failures: [], reports: [] };
  const timed: RunEvent[] = [
    {
      type: 'start',
      startedAt: t(0),
      steps: [
        { name: 'discovery', kind: 'collection' },
        { name: 'id-token', kind: 'local' },
      ],
      origins: [],
    },
    { type: 'step', phase: 'begin', step: 'discovery', kind: 'collection', at: t(0) },
    {
      type: 'request',
      step: 'discovery',
      item: 'well-known',
      method: 'GET',
      url: 'https://rs.example:8443/x',
      status: 200,
      responseTime: 40,
      at: t(30),
    },
    { type: 'step', phase: 'end', step: 'discovery', kind: 'collection', at: t(1500), result: { name: 'discovery', passed: true, ...ok } },
    { type: 'step', phase: 'begin', step: 'id-token', kind: 'local', at: t(1500) },
    { type: 'step', phase: 'end', step: 'id-token', kind: 'local', at: t(4000), result: { name: 'id-token', passed: false, ...ok } },
    { type: 'done', finishedAt: t(4000), result: result(['discovery', 'id-token'], false) },
  ];

  it("a bar of the run's steps, each segment as long as the step's wall time (a local step too), the failed one red", async () => {
    const html = await feed(timed, htmlReporter);
    const segments = [
      ...html.matchAll(/<rect class="segment (\w+)"[^>]*width="([\d.]+)"[^>]*fill="([^"]+)"[^>]*><title>([^<]*)<\/title>/g),
    ].map(([, status, width, fill, title]) => ({ status, width: Number(width), fill, title }));
    expect(segments.map(({ status, fill, title }) => ({ status, fill, title }))).toEqual([
      { status: 'passed', fill: '#1a73e8', title: '1. discovery: 1.5 s (passed)' },
      { status: 'failed', fill: '#d93025', title: '2. id-token: 2.5 s (failed)' },
    ]);
    expect((segments[1]?.width ?? 0) / (segments[0]?.width ?? 1)).toBeCloseTo(2.5 / 1.5, 1);
    expect(html).toContain('<details class="step failed" id="step-id-token" open>');
    // The legend's swatch of the failed step is the red of its bar, not its number's colour.
    expect(html).toMatch(/<span class="swatch" style="background: #d93025"><\/span>2\. id-token \(failed\)/);
    expect(html).toMatch(/<span class="swatch" style="background: #1a73e8"><\/span>1\. discovery</);
  });

  it("without the runner's step times (a workspace's run.mjs) a step takes as long as its requests", async () => {
    const { renderReport } = await loadReportModule();
    const model = JSON.parse(await feed(timed, jsonReporter)) as ReportModel;
    const html = renderReport({ ...model, steps: model.steps.map(({ ms: _ms, ...step }) => step) });
    expect(html).toContain('<title>1. discovery: 40 ms (passed)</title>');
  });
});

describe('the report from run events', () => {
  it('json: steps in the planned order, requests without their query, assertions with messages, redacted; a run that stopped early failed', async () => {
    const model = JSON.parse(await feed(run, jsonReporter)) as Record<string, unknown> & {
      steps: {
        name: string;
        local?: boolean;
        requests: { path: string; status: number; ms: number; assertions: { name: string; passed: boolean; message?: string }[] }[];
      }[];
    };
    expect(model).toMatchObject({
      bank: 'obflow sandbox (emulator)',
      profile: 'strict-headless',
      ranAt: at,
      runner: 'obflow',
      passed: false,
      totals: { requests: 1, assertions: 2, failed: 1 },
    });
    // Every step of the plan: the one the run never reached says so.
    expect(model.steps.map((step) => [step.name, (step as { status?: string }).status])).toEqual([
      ['psu-consent', 'passed'],
      ['accounts', 'failed'],
      ['transactions', 'not-reached'],
    ]);
    expect(model.steps[0]?.local).toBe(true);
    expect(model.steps[1]?.requests[0]).toMatchObject({ path: '/open-banking/v3.1/aisp/accounts', status: 200, ms: 12 });
    expect(model.steps[1]?.requests[0]?.assertions).toEqual([
      { name: 'status is 200', passed: true },
      { name: 'token not echoed', passed: false, message: "expected '[redacted]…' to be empty" },
    ]);
    expect(model.accounts).toEqual([
      {
        accountId: 'acc-1',
        label: 'Everyday',
        balance: { amount: '10.00', currency: 'GBP', creditDebitIndicator: 'Debit' },
        transactions: 0,
      },
    ]);
  });

  it('html: one self-contained document (one inline script, for the local time; no external resource), secrets absent, a zero count shown as 0', async () => {
    const html = await feed(run, htmlReporter);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toContain("document.querySelectorAll('time[data-local]')");
    expect(html.replace(/<script>[\s\S]*?<\/script>/, '')).not.toMatch(/<script|<link|src=|url\(|https?:\/\/(?!rs\.example)/);
    // The time as written is UTC, said so (the browser puts it in the reader's zone).
    expect(html).toContain(`<time datetime="${at}" data-local>`);
    expect(html).toMatch(/data-local>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
    expect(html).not.toContain(TOKEN.slice(0, 12));
    expect(html).toContain('−10.00 GBP');
    expect(html).toMatch(/<td class="num">0<\/td>/);
    expect(html).toContain('failed</span>');
  });
});

describe('the workspace, pure parts', () => {
  const saved = environmentOf({
    rs: ['https://rs.example:8443', 'default'],
    issuer: ['https://auth.example/strict', 'default'],
    tokenEndpoint: ['https://auth.example/strict/token', 'default'],
    redirectUrl: ['https://tpp.example/callback', 'default'],
    basicToken: ['YmFzaWM=', 'secret'],
    access_token: [TOKEN, 'secret'],
    consent_id: ['aac-1', 'default'],
    psu_login_hint: ['alex', 'default'],
  });

  it('empties every secret and clears the state of earlier runs; with secrets keeps the bank-issued ones only', () => {
    const value = (env: PostmanEnvironment, key: string) => env.values.find((entry) => entry.key === key)?.value;
    const plain = workspaceEnvironment(saved, false);
    expect([value(plain, 'basicToken'), value(plain, 'access_token'), value(plain, 'consent_id'), value(plain, 'psu_login_hint')]).toEqual([
      '',
      '',
      '',
      'alex',
    ]);
    const withSecrets = workspaceEnvironment(saved, true);
    expect([value(withSecrets, 'basicToken'), value(withSecrets, 'access_token'), value(withSecrets, 'consent_id')]).toEqual([
      'YmFzaWM=',
      '',
      '',
    ]);
  });

  it('one certificate row per bank origin, port 443 when the address has none; never the redirect URI', () => {
    expect(certificateRows(saved)).toEqual([
      { origin: 'https://auth.example:443', host: 'auth.example', port: '443', role: 'authorisation server' },
      { origin: 'https://rs.example:8443', host: 'rs.example', port: '8443', role: 'resource server (accounts API)' },
    ]);
  });

  it('the flow picture names the origin of each step, run-time URLs by the address they are built on', () => {
    const flow = {
      item: [
        { name: 'psu-consent', item: [{ name: 'consent', request: { url: { raw: '{{consent_url}}' } } }] },
        { name: 'accounts', item: [{ name: 'GET accounts', request: { url: '{{rs}}/open-banking/v3.1/aisp/accounts' } }] },
      ],
    };
    const steps = flowSteps(
      flow,
      environmentOf({ rs: ['https://rs.example:8443', 'default'], authEndpoint: ['https://auth.example/authorize', 'default'] }),
    );
    expect(steps).toEqual([
      { name: 'psu-consent', origins: ['https://auth.example:443'] },
      { name: 'accounts', origins: ['https://rs.example:8443'] },
    ]);
    const svg = flowSvg(steps, ['https://auth.example:443', 'https://rs.example:8443']);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('1. psu-consent');
    expect(svg).toContain('2. accounts');
  });
});

describe("the workspace's report reads a skipped request as obflow does (rules.mjs createSkipWatch)", () => {
  it('an item that ended without a request, after its `skipped:` line, is a skipped step with the reason; a step after it is not', async () => {
    const module = (await import(pathToFileURL(join(reportModuleDir(), 'report.mjs')).href)) as {
      attachNewman(emitter: EventEmitter, collector: unknown, stepOf: (item: string) => string): void;
    };
    const { createReportCollector } = await loadReportModule();
    const collector = createReportCollector({ secretKeys: [] });
    const emitter = new EventEmitter();
    module.attachNewman(emitter, collector, (item) => (item.startsWith('refresh') ? 'refresh' : 'accounts'));
    const item = (name: string) => ({ item: { name } });
    emitter.emit('beforeItem', null, item('accounts: GET /accounts'));
    emitter.emit('request', null, {
      ...item('accounts: GET /accounts'),
      request: { method: 'GET', url: { toString: () => 'https://rs.example/aisp/accounts' } },
      response: { code: 200 },
    });
    emitter.emit('item', null, item('accounts: GET /accounts'));
    emitter.emit('beforeItem', null, item('refresh: POST token'));
    emitter.emit('console', null, { level: 'info', messages: ['skipped: the bank issued no refresh token'] });
    emitter.emit('item', null, item('refresh: POST token'));
    const model = collector.model(
      {
        bank: 'b',
        profile: 'p',
        obflowVersion: 'v',
        ranAt: '2026-11-25T19:00:00.000Z',
        runner: 'workspace',
        order: ['accounts', 'refresh'],
      },
      [],
    );
    expect(model.steps.map((step) => [step.name, step.status, step.skipReason])).toEqual([
      ['accounts', 'passed', undefined],
      ['refresh', 'skipped', 'the bank issued no refresh token'],
    ]);
    expect(model).toMatchObject({ passed: true, totals: { skipped: 1 } });
  });
});
