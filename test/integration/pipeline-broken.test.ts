// Proves the collections' tests can fail: a tiny mutual-TLS reverse proxy in front of the emulator's resource server
// rewrites one response on the wire, and exactly the assertion about that property fails, in the step that reads it.
// A control run through the same proxy without a rewrite passes, so the proxy itself changes nothing.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runFailureError } from '../../src/pipeline/verdict.js';
import { withEnvironmentValues } from '../../src/environment/index.js';
import { bankOriginsOf, buildSslClientCertList, type RunResult } from '../../src/run/index.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, runAll, type Prepared } from './pipeline-helpers.js';

type Rewrite = (path: string, body: string) => string;

interface Proxy {
  origin: string;
  rewrites: number;
  close(): Promise<void>;
}

/** Forwards every request to `target` over the TPP's own mTLS dispatcher (tokens stay bound to that certificate),
 *  maps the target's origin to its own in bodies and Location, then applies `rewrite`. Requires a client certificate
 *  itself, so the run must present one to it. */
async function startProxy(target: string, dispatcher: Dispatcher, identity: TestIdentity, rewrite: Rewrite): Promise<Proxy> {
  const state = { origin: '', rewrites: 0 };
  const server: Server = createServer(
    {
      key: identity.pem.serverKey,
      cert: identity.pem.serverCert,
      ca: [identity.pem.rootCa, identity.pem.issuingCa],
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(name) || value === undefined) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        request(`${target}${req.url ?? '/'}`, {
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers,
          ...(body !== undefined ? { body } : {}),
          dispatcher,
        })
          .then(async (upstream) => {
            const original = (await upstream.body.text()).split(target).join(state.origin);
            const changed = rewrite(new URL(req.url ?? '/', 'https://x').pathname, original);
            if (changed !== original) state.rewrites += 1;
            for (const [name, value] of Object.entries(upstream.headers)) {
              if (['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name) || value === undefined) continue;
              res.setHeader(name, typeof value === 'string' ? value.split(target).join(state.origin) : value);
            }
            res.statusCode = upstream.statusCode;
            res.end(changed);
          })
          .catch((error: unknown) => {
            res.statusCode = 502;
            res.end(String(error));
          });
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get origin() {
      return state.origin;
    },
    get rewrites() {
      return state.rewrites;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let identity: TestIdentity;
const cleanup: (() => Promise<void>)[] = [];

const sandbox = useTestSandbox();

beforeAll(async () => {
  identity = await getTestIdentity();
});
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** Registers, points `rs` at a proxy with this rewrite, runs everything. */
async function runThroughProxy(rewrite: Rewrite): Promise<{ result: RunResult; proxy: Proxy }> {
  const prepared: Prepared = await prepare(sandbox, identity, 'strict-headless');
  cleanup.push(
    () => prepared.dispatcher.close(),
    () => rm(prepared.stateDir, { recursive: true, force: true }),
  );
  const proxy = await startProxy(sandbox.urls.sandbox_base_url, prepared.dispatcher, identity, rewrite);
  cleanup.push(() => proxy.close());
  const environment = withEnvironmentValues(prepared.environment, { rs: proxy.origin });
  const certList = buildSslClientCertList({ origins: bankOriginsOf(environment.values), transport: identity.paths.transport });
  const result = await runAll({ ...prepared, environment }, { certList });
  return { result, proxy };
}

const failedTests = (result: RunResult): string[] => result.steps.flatMap((step) => step.failures.map((failure) => failure.test));

describe('a broken sandbox response fails the right assertion', () => {
  it('control: the same proxy without a rewrite passes every step', async () => {
    const { result, proxy } = await runThroughProxy((_path, body) => body);
    expect(result.passed, describeRun(result)).toBe(true);
    expect(proxy.rewrites).toBe(0);
  });

  it('a balance of another type (InterimBooked) fails "every balance is InterimAvailable" in account-balances', async () => {
    const { result, proxy } = await runThroughProxy((path, body) =>
      /\/aisp\/accounts\/[^/]+\/balances$/.test(path) ? body.split('"InterimAvailable"').join('"InterimBooked"') : body,
    );
    expect(proxy.rewrites).toBeGreaterThan(0);
    expect(result.passed).toBe(false);
    expect(result.failedStep).toBe('account-balances');
    expect(failedTests(result)).toEqual(expect.arrayContaining(['every balance is InterimAvailable']));
    // The body is still schema-valid (InterimBooked is an OBIE balance type): only the InterimAvailable rule caught it.
    expect(failedTests(result).filter((test) => test.startsWith('body is valid'))).toEqual([]);
    // The bank answered 200 with a body the rule refuses: the hint puts the fault on the bank's side.
    expect(runFailureError(result).hint).toMatch(
      /^The bank's answer broke a rule of the standard \(every balance is InterimAvailable\): the fault is on the bank's side/,
    );
  });

  it('a page link pointing elsewhere fails the links assertion in transactions', async () => {
    let done = false;
    const { result, proxy } = await runThroughProxy((path, body) => {
      if (done || !/\/aisp\/accounts\/[^/]+\/transactions$/.test(path)) return body;
      const parsed = JSON.parse(body) as { Links?: { Next?: string } };
      if (parsed.Links?.Next === undefined) return body;
      done = true;
      parsed.Links.Next = parsed.Links.Next.replace('/transactions', '/transactions-elsewhere');
      return JSON.stringify(parsed);
    });
    expect(proxy.rewrites).toBe(1);
    expect(result.passed).toBe(false);
    expect(result.failedStep).toBe('transactions');
    expect(
      failedTests(result).some((test) => /links are absolute, on the first page's origin and path/.test(test)),
      describeRun(result),
    ).toBe(true);
    expect(result.steps.filter((step) => !step.passed).map((step) => step.name)).toEqual(['transactions']);
  });
});
