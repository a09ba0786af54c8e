// The generated collections, run for real: newman 6.2 in process against the emulator over mutual TLS, the helper
// environment of a freshly registered client, state chained step to step through the environment only.

import { rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import newman from 'newman';
import type { NewmanRunSummary } from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCollections, stepFileName, type GeneratedFile } from '../../src/generate/collections.js';
import { STEP_NAMES, type StepName } from '../../src/generate/flow.js';
import { loadTemplates } from '../../src/generate/templates.js';
import { INPUT_VARIABLES } from '../../src/generate/variables.js';
import type { ProfileName } from '../../src/sandbox/contracts.js';
import { mtlsAgent, SandboxTpp, useTestSandbox, wire } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

interface EnvValue {
  key: string;
  value: string;
  type?: string;
  enabled?: boolean;
}

const files = buildCollections({ templates: loadTemplates() });
const collectionOf = (step: StepName): object =>
  JSON.parse((files.find((f) => f.fileName === stepFileName(step)) as GeneratedFile).json) as object;

let work: string;
let caFile: string;
/** Extra origins (the tampering proxy) the transport certificate is presented to. */
const extraOrigins: string[] = [];

const sandbox = useTestSandbox();

beforeAll(async () => {
  work = await tempDir('obflow-generate-it-');
  caFile = join(work, 'directory-ca.pem');
  await writeFile(caFile, `${sandbox.identity.pem.rootCa}\n${sandbox.identity.pem.issuingCa}`);
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Registers a client for the profile and returns its helper environment plus obflow's inputs (disabled entries dropped). */
async function environmentFor(profile: ProfileName, inputs: Record<string, string>): Promise<{ values: EnvValue[] }> {
  const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
  try {
    const client = await tpp.register();
    const response = await tpp.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${encodeURIComponent(client.client_id)}`);
    expect(response.status).toBe(200);
    const helper = response.json<{ values: EnvValue[] }>().values.filter((v) => v.enabled !== false);
    const values = new Map(helper.map((v) => [v.key, v]));
    for (const spec of INPUT_VARIABLES)
      values.set(spec.key, { key: spec.key, value: inputs[spec.key] ?? spec.default, type: 'default', enabled: true });
    return { values: [...values.values()] };
  } finally {
    await tpp.close();
  }
}

function certificateList(): object[] {
  const transport = sandbox.identity.paths.transport;
  if (!('cert' in transport)) throw new Error('the test identity is expected to have PEM transport material');
  // Port-qualified patterns: a pattern without the port silently sends no certificate (docs/pipeline.md#newman-findings).
  const origins = [
    sandbox.urls.sandbox_base_url,
    ...extraOrigins,
    ...Object.values(sandbox.urls.profiles).map((p) => new URL(p.auth_url).origin),
  ];
  return [
    {
      name: 'obflow transport',
      matches: [...new Set(origins)].map((origin) => `${origin}/*`),
      key: { src: transport.key },
      cert: { src: transport.cert },
    },
  ];
}

function runStep(collection: object, environment: object): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run(
      {
        collection,
        environment,
        reporters: [],
        sslClientCertList: certificateList(),
        sslExtraCaCerts: caFile,
        timeoutRequest: 30_000,
      } as unknown as newman.NewmanRunOptions,
      (error, summary) => (error ? reject(error) : resolve(summary)),
    );
  });
}

interface FlowResult {
  environment: Map<string, string>;
  failures: { step: string; item: string; test: string; message: string }[];
  requests: Record<string, number>;
  assertions: number;
}

/** Runs the steps in order, chaining the environment; records every failed assertion. */
async function runFlow(steps: readonly StepName[], start: { values: EnvValue[] }): Promise<FlowResult> {
  let environment: object = start;
  const result: FlowResult = { environment: new Map(), failures: [], requests: {}, assertions: 0 };
  for (const step of steps) {
    const started = performance.now();
    const summary = await runStep(collectionOf(step), environment);
    // Timing is reported, never asserted (OBFLOW_TIMINGS=1 to see it).
    if (process.env.OBFLOW_TIMINGS)
      console.log(`${step}: ${summary.run.stats.requests.total} requests, ${Math.round(performance.now() - started)} ms`);
    environment = summary.environment.toJSON();
    result.requests[step] = summary.run.stats.requests.total ?? 0;
    result.assertions += summary.run.stats.assertions.total ?? 0;
    for (const failure of summary.run.failures) {
      result.failures.push({
        step,
        item: failure.source?.name ?? '?',
        test: (failure.error as { test?: string }).test ?? '',
        message: failure.error.message,
      });
    }
  }
  result.environment = new Map((environment as { values: EnvValue[] }).values.map((v) => [v.key, v.value]));
  return result;
}

describe.each([
  ['strict-headless', 'code id_token'],
  ['permissive-headless', 'code'],
] as const)('the whole flow against the %s profile, response_type %s', (profile, responseType) => {
  let flow: FlowResult;

  beforeAll(async () => {
    flow = await runFlow(STEP_NAMES, await environmentFor(profile, { response_type: responseType }));
  }, 120_000);

  it('passes every assertion of every step', () => {
    expect(flow.failures).toEqual([]);
    expect(flow.assertions).toBeGreaterThan(100);
  });

  it('reached the end: tokens, accounts, balances and every transaction page', () => {
    const env = flow.environment;
    expect(env.get('access_token')).toMatch(/.+/);
    const accounts = JSON.parse(env.get('account_ids') ?? '[]') as string[];
    expect(accounts.length).toBeGreaterThan(0);
    expect(Object.keys(JSON.parse(env.get('interim_balances') ?? '{}') as object).sort()).toEqual([...accounts].sort());
    const counts = JSON.parse(env.get('transaction_counts') ?? '{}') as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual([...accounts].sort());
    // each-account and account-balances looped once per account; transactions once per page.
    expect(flow.requests['each-account']).toBe(accounts.length);
    expect(flow.requests['account-balances']).toBe(accounts.length);
    const pages = Object.values(counts).reduce((sum, n) => sum + Math.max(1, Math.ceil(n / 100)), 0);
    expect(flow.requests.transactions).toBe(pages);
    expect(flow.requests.unsupported).toBe(9);
    for (const key of ['account_index', 'transactions_next_url', 'transactions_page']) expect(env.get(key), key).toBe('');
  });
});

describe('assertions that must fail against the real emulator', () => {
  it('interactive consent_mode against a headless profile: the consent lands on the redirect URI → failure', async () => {
    const flow = await runFlow(
      ['discovery', 'client-credentials', 'account-access-consent', 'psu-consent'],
      await environmentFor('strict-headless', { consent_mode: 'interactive' }),
    );
    expect(flow.failures.map((f) => `${f.step}: ${f.test}`)).toEqual([
      'psu-consent: interactive consent does not land on the redirect URI',
    ]);
  }, 60_000);

  it('interactive profile: the consent URL leads to the login page, not the redirect URI', async () => {
    const flow = await runFlow(
      ['discovery', 'client-credentials', 'account-access-consent', 'psu-consent'],
      await environmentFor('strict-interactive', { consent_mode: 'interactive' }),
    );
    expect(flow.failures).toEqual([]);
    expect(flow.environment.get('consent_url')).toMatch(/^https:\/\/.+\?response_type=code%20id_token&client_id=/);
    expect(flow.environment.get('auth_code')).toBe('');
  }, 60_000);

  it('a tampered consent id: the bank refuses the consent URL and the PSU consent step fails', async () => {
    const env = await environmentFor('strict-headless', {});
    const first = await runFlow(['discovery', 'client-credentials', 'account-access-consent'], env);
    expect(first.failures).toEqual([]);
    const values = [...first.environment.entries()].map(([key, value]) => ({ key, value: key === 'consent_id' ? 'not-a-consent' : value }));
    const flow = await runFlow(['psu-consent'], { values });
    const failed = flow.failures.map((f) => f.test);
    expect(failed).toContain('no error in the redirect');
    expect(failed).toContain('code is present in the fragment');
  }, 60_000);

  it('max_pages 1 stops paging with a failed assertion on an account with more than one page', async () => {
    const flow = await runFlow(
      STEP_NAMES.slice(0, STEP_NAMES.indexOf('transactions') + 1),
      await environmentFor('permissive-headless', { max_pages: '1' }),
    );
    const counts = JSON.parse(flow.environment.get('transaction_counts') ?? '{}') as Record<string, number>;
    const multiPage = Object.values(counts).filter((n) => n === 100).length;
    expect(multiPage).toBeGreaterThan(0);
    expect(flow.failures.filter((f) => f.test === 'paging ends within max_pages (1)')).toHaveLength(multiPage);
    expect(flow.failures.filter((f) => f.test !== 'paging ends within max_pages (1)')).toEqual([]);
  }, 120_000);
});

/** A man in the middle on the resource origin: forwards over mTLS, rewrites the emulator's origin to its own, then
 *  lets `tamper` break one answer — the collections' assertions must notice. */
async function startTamperingProxy(
  tamper: (path: string, body: string) => { status?: number; body: string },
): Promise<{ origin: string; close(): Promise<void> }> {
  const agent = mtlsAgent(sandbox.identity);
  const upstream = sandbox.urls.sandbox_base_url;
  let origin = '';
  const server: Server = createServer({ key: sandbox.identity.pem.serverKey, cert: sandbox.identity.pem.serverCert }, (req, res) => {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(key)) headers[key] = value;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    new Promise((resolve) => req.on('end', resolve))
      .then(() => {
        const body = Buffer.concat(chunks).toString('utf8');
        return wire(agent, (req.method ?? 'GET') as 'GET', `${upstream}${req.url ?? '/'}`, { headers, ...(body === '' ? {} : { body }) });
      })
      .then((answer) => {
        const changed = tamper(req.url ?? '/', answer.text.split(upstream).join(origin));
        const out: Record<string, string> = {};
        for (const key of ['content-type', 'x-fapi-interaction-id'])
          if (typeof answer.headers[key] === 'string') out[key] = answer.headers[key];
        res.writeHead(changed.status ?? answer.status, { ...out, 'content-length': Buffer.byteLength(changed.body) });
        res.end(changed.body);
      })
      .catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  extraOrigins.push(origin);
  return {
    origin,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}

describe('a broken bank answer makes the right assertion fail (newman against a tampering proxy)', () => {
  it("a balance of another type, a page link to another path, a 501 (not the standard's 404) for an unsupported call", async () => {
    const proxy = await startTamperingProxy((path, body) => {
      if (/\/accounts\/[^/]+\/balances$/.test(path)) return { body: body.replace(/"InterimAvailable"/g, '"ClosingBooked"') };
      if (/\/accounts\/[^/]+\/transactions$/.test(path)) {
        const page = JSON.parse(body) as { Links: Record<string, string> };
        if (page.Links.Next) page.Links.Next = page.Links.Next.replace('/transactions', '/statements');
        return { body: JSON.stringify(page) };
      }
      // A bank that answers 501 with an OBErrorResponse1: the status check names the rule, no schema failure.
      if (path.endsWith('/aisp/beneficiaries'))
        return {
          status: 501,
          body: JSON.stringify({
            Code: '501 Not Implemented',
            Id: 'e-1',
            Message: 'not implemented',
            Errors: [{ ErrorCode: 'UK.OBIE.UnexpectedError', Message: 'not implemented' }],
          }),
        };
      return { body };
    });
    try {
      const env = await environmentFor('strict-headless', {});
      const values = env.values.map((v) => (v.key === 'rs' ? { ...v, value: proxy.origin } : v));
      const flow = await runFlow(STEP_NAMES, { values });
      const failed = [...new Set(flow.failures.map((f) => `${f.step}: ${f.test.replace(/^page \d+( of \S+)?: /, 'page: ')}`))].sort();
      expect(failed).toEqual(
        [
          'account-balances: every balance is InterimAvailable',
          "transactions: page: links are absolute, on the first page's origin and path",
          "unsupported: Beneficiaries: GET /beneficiaries answers 404 Not Found (the standard's answer for an endpoint the bank does not implement)",
        ].sort(),
      );
      const unsupported = flow.failures.find((f) => f.step === 'unsupported');
      expect(unsupported?.message).toContain('GET /beneficiaries answered 501 Not Implemented, not 404');
      expect(unsupported?.message).toContain(
        '"If an ASPSP has not implemented an API endpoint, it must respond with a 404 (Not Found) for requests to that URL."',
      );
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
