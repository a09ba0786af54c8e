// The one adapter over newman: runs a batch of consecutive collection steps as ONE `newman.run` (a folder per step) and turns its
// untyped emitter events into obflow's run events (src/run/events.ts), unredacted — the runner redacts them. Also what newman needs
// around a run: the rc-file pinning, the environment back from its VariableScope, the audit of each request's client certificate.

import diagnosticsChannel from 'node:diagnostics_channel';
import type { Agent } from 'node:https';
import { isSecretKey, sortValues, type PostmanEnvironment, type PostmanEnvironmentValue } from '../environment/merge.js';
import {
  ACCOUNTS_LIST,
  TRANSACTION_PAGE,
  assertionRecord,
  createSkipWatch,
  itemSteps,
  requestRecord,
  scriptErrorRecord,
} from '../runner-rules.js';
import { transportErrorKind } from '../bank/transport-error.js';
import { certificateMatcher, originOf, type SslClientCert } from './certificates.js';
import { batchCollection } from './batch-collection.js';
import { NEWMAN_STARTED } from './channels.js';
import { zeroDelayAsImmediate } from './zero-delay.js';
import type { AssertionEvent, RequestEvent, ScriptErrorEvent, SkipEvent, StepBeginEvent } from './events.js';
import type {
  NewmanItem,
  NewmanOptions,
  NewmanRun,
  NewmanRuntimeRun,
  NewmanScopeVariable,
  NewmanSummary,
  NewmanVariableJson,
} from './newman-types.js';

/** Back from newman's VariableScope JSON into a sorted, typed environment; secret-ness never gets lost. */
export function environmentFromNewman(
  json: { values?: NewmanVariableJson[] },
  previous: PostmanEnvironment,
  secretKeys: ReadonlySet<string>,
): PostmanEnvironment {
  const wasSecret = new Set(previous.values.filter((entry) => entry.type === 'secret').map((entry) => entry.key));
  const values: PostmanEnvironmentValue[] = [];
  for (const entry of json.values ?? []) {
    if (typeof entry.key !== 'string' || entry.disabled === true) continue;
    const value =
      entry.value === undefined || entry.value === null ? '' : typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value);
    const secret = wasSecret.has(entry.key) || secretKeys.has(entry.key) || entry.type === 'secret' || isSecretKey(entry.key);
    values.push({ key: entry.key, value, type: secret ? 'secret' : 'default', enabled: true });
  }
  sortValues(values);
  return { ...previous, values };
}

/**
 * newman merges `/etc/postman/newmanrc`, `~/.postman/newmanrc` and `./.newmanrc` into every run. obflow's options
 * override what they set, but not what they add (e.g. a catch-all sslClientCert). Pin cwd and HOME while newman loads
 * its options (until its `start` event), so only a system-wide file could still apply.
 */
function pinForOptionLoading(cwd: string): () => void {
  const previousCwd = process.cwd();
  const previousHome = process.env.HOME;
  process.chdir(cwd);
  process.env.HOME = cwd;
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    process.chdir(previousCwd);
    if (previousHome === undefined) delete process.env.HOME;
    else process.env.HOME = previousHome;
  };
}

/** GETs whose parsed body a subscriber reads: the AIS v3.1 accounts list (the summary names the accounts). Balances
 *  and transaction counts reach the summary through the environment (`interim_balances`, `transaction_counts`), so
 *  transaction pages — 10,250 transactions for one test user — are neither parsed twice nor held for the run. */
const BODY_KEPT: readonly RegExp[] = [ACCOUNTS_LIST];
/** …and, when a run over two API versions asks (BatchInput.keepTransactionBodies), the transaction pages too. */
const BODY_KEPT_WITH_TRANSACTIONS: readonly RegExp[] = [ACCOUNTS_LIST, TRANSACTION_PAGE];

export interface BatchInput {
  batch: readonly { name: string; collection: object }[];
  environment: PostmanEnvironment;
  cwd: string;
  sslClientCertList: readonly SslClientCert[];
  sslExtraCaCerts?: string;
  insecure: boolean;
  httpsAgent?: Agent;
  bail: boolean;
  timeoutRequest: number;
  /** Reports newman writes itself (JUnit), as the reporters' hooks opened them (events.ts NewmanReportHook). */
  reports: readonly { reporter: string; options: Record<string, unknown> }[];
  now: () => Date;
  /** Keep the transaction pages' parsed bodies as well (the comparison of two versions adds them up). */
  keepTransactionBodies?: boolean;
}

/** Where the adapter delivers what newman does, as it happens. */
export interface BatchSink {
  /** An event of the item newman is running (the runner holds them until `itemEnd`, then redacts them). */
  event(event: StepBeginEvent | RequestEvent | AssertionEvent | SkipEvent | ScriptErrorEvent): void;
  /** A variable a script's environment holds (secrets are learned from these before the item's events go out). */
  variable(key: string, value: string): void;
  /** newman finished an item: its scripts have run. */
  itemEnd(): void;
  /** Steps after which the run pauses before the next step's first item for stepDone (the observing local steps). */
  observed?: ReadonlySet<string>;
  /** One of the observed steps ended and the run is paused: resolves true to resume, false to stop the run there. */
  stepDone?(step: string, environment: { values?: NewmanVariableJson[] }): Promise<boolean>;
}

export interface BatchOutcome {
  summary: NewmanSummary;
  /** Origins newman called without a client certificate (no pattern of the list matched). */
  unmatched: Set<string>;
  /** newman's warnings that it could not load a client certificate. */
  certificateWarnings: string[];
}

function newmanOptions(input: BatchInput): NewmanOptions {
  return {
    collection: batchCollection(input.batch),
    environment: {
      id: input.environment.id,
      name: input.environment.name,
      values: input.environment.values.map((entry) => ({ ...entry })),
    },
    globals: { values: [] },
    workingDir: input.cwd,
    insecureFileRead: true,
    // Progress lines are obflow's own cli reporter (redacted, through the log seam); newman writes only its reports.
    reporters: input.reports.map((report) => report.reporter),
    reporter: Object.fromEntries(input.reports.map((report) => [report.reporter, report.options])),
    insecure: input.insecure,
    // newman pushes onto and mutates the list's entries (it reads the files into them): give it a fresh copy.
    sslClientCertList: input.sslClientCertList.map((entry) => structuredClone(entry)),
    sslClientCert: '',
    sslClientKey: '',
    sslClientPassphrase: '',
    // Still given with the agent: a request the agent does not carry (through a proxy tunnel) trusts the CA as before.
    ...(input.sslExtraCaCerts !== undefined ? { sslExtraCaCerts: input.sslExtraCaCerts } : {}),
    ...(input.httpsAgent !== undefined ? { requestAgents: { https: input.httpsAgent } } : {}),
    ignoreRedirects: false,
    // Later steps read the state of earlier ones: stop after the first failing test script unless told otherwise.
    bail: input.bail,
    delayRequest: 0,
    timeoutRequest: input.timeoutRequest,
    suppressExitCode: true,
    color: process.stdout.isTTY ? 'auto' : 'off',
    iterationCount: 1,
  };
}

function parseBody(stream: Buffer | undefined): unknown {
  if (stream === undefined) return undefined;
  try {
    return JSON.parse(stream.toString('utf8'));
  } catch {
    return undefined; // not JSON: the step's own tests report it
  }
}

let startedAnnounced = false;

/** NEWMAN_STARTED, at the first run's start in this process (src/run/channels.ts). */
function announceStarted(): void {
  if (startedAnnounced) return;
  startedAnnounced = true;
  diagnosticsChannel.channel(NEWMAN_STARTED).publish(undefined);
}

/** Runs one batch; resolves when newman is done (rejects when newman refuses its input). */
export async function runNewmanBatch(run: NewmanRun, input: BatchInput, sink: BatchSink): Promise<BatchOutcome> {
  const steps = itemSteps(input.batch);
  const stepOf = (item: NewmanItem): string =>
    steps.get(item?.name ?? '') ?? (typeof item?.parent === 'function' ? item.parent()?.name : undefined) ?? '';
  const at = (): string => input.now().toISOString();
  const kept = input.keepTransactionBodies === true ? BODY_KEPT_WITH_TRANSACTIONS : BODY_KEPT;
  const unmatched = new Set<string>();
  const certificateWarnings: string[] = [];
  let currentStep: string | undefined;
  // A skipped request is an item that ended without one (runner-rules.ts createSkipWatch says why newman shows no more).
  const skips = createSkipWatch();
  const restore = pinForOptionLoading(input.cwd);
  // postman-runtime's zero-delay hand-overs without the 1 ms sleep each (src/run/zero-delay.ts), for this run only.
  const release = zeroDelayAsImmediate();
  try {
    return await new Promise<BatchOutcome>((resolve, reject) => {
      const emitter = run(newmanOptions(input), (error, summary) => {
        release();
        restore();
        if (error !== null) reject(error);
        else resolve({ summary, unmatched, certificateWarnings });
      });
      let runtime: NewmanRuntimeRun | undefined;
      emitter.on('start', (_error, args) => {
        restore();
        runtime = args?.run;
        announceStarted();
      });
      emitter.on('beforeItem', (_error, args) => {
        const step = stepOf(args.item);
        skips.begin(args.item?.name ?? '');
        if (step === currentStep) return;
        const previous = currentStep;
        currentStep = step;
        const begin: StepBeginEvent = { type: 'step', phase: 'begin', step, kind: 'collection', at: at() };
        const paused = runtime;
        if (previous === undefined || paused === undefined || sink.stepDone === undefined || sink.observed?.has(previous) !== true) {
          sink.event(begin);
          return;
        }
        // The pause is the next instruction, before this item's pre-request script: nothing of the next step runs
        // until the observers are done (and nothing at all when they stop the run).
        const stepDone = sink.stepDone.bind(sink);
        paused.pause(() => {
          void stepDone(previous, emitter.summary?.environment.toJSON() ?? {}).then((go) => {
            if (!go) return paused.abort();
            sink.event(begin);
            paused.resume();
          });
        });
      });
      // The resolved URL of every request, checked with the same matcher postman-runtime uses (certificates.ts).
      const certificateOf = certificateMatcher(input.sslClientCertList);
      emitter.on('beforeRequest', (_error, args) => {
        const url = args.request?.url?.toString();
        if (url !== undefined && url.startsWith('https://') && certificateOf(url) === undefined) unmatched.add(originOf(url) ?? url);
      });
      emitter.on('console', (_error, args) => {
        skips.console(args.messages ?? []);
        const text = (args.messages ?? []).map(String).join(' ');
        if (args.level === 'warn' && /certificate/i.test(text)) certificateWarnings.push(text);
      });
      // The scope's variables are read in place (its PropertyList), not through toJSON(), which copies every value —
      // the whole environment, twice a request.
      const variable = (entry: NewmanScopeVariable): void => {
        if (typeof entry.key === 'string' && typeof entry.value === 'string') sink.variable(entry.key, entry.value);
      };
      const learn = (_error: unknown, args: { executions?: { result?: { environment?: unknown } }[] }): void => {
        for (const execution of args.executions ?? []) {
          const values = (execution.result?.environment as { values?: unknown } | undefined)?.values;
          if (Array.isArray(values)) (values as NewmanScopeVariable[]).forEach(variable);
          else if (typeof (values as { each?: unknown } | undefined)?.each === 'function')
            (values as { each(callback: (entry: NewmanScopeVariable) => void): void }).each(variable);
        }
      };
      emitter.on('prerequest', learn);
      emitter.on('test', learn);
      emitter.on('item', (_error, args) => {
        const skipped = skips.end();
        if (skipped !== undefined) sink.event({ type: 'skip', step: stepOf(args?.item), ...skipped });
        sink.itemEnd();
      });
      // What an assertion or a script error says is read as every workspace reads it (src/runner-rules.ts).
      emitter.on('assertion', (error, args) => {
        skips.asserted();
        if (error !== null && error !== undefined) skips.failed();
        sink.event({ type: 'assertion', step: stepOf(args.item), ...assertionRecord(error, args) });
      });
      emitter.on('script', (error, args) => {
        if (error !== null && error !== undefined) skips.failed();
        const record = scriptErrorRecord(error, args);
        if (record !== undefined) sink.event({ type: 'script', step: stepOf(args.item), ...record });
      });
      emitter.on('request', (error, args) => {
        skips.request();
        const { item, method, url } = requestRecord(error, args);
        const response = error === null || error === undefined ? args.response : undefined;
        const json =
          response !== undefined && method === 'GET' && kept.some((pattern) => pattern.test(url)) ? parseBody(response.stream) : undefined;
        sink.event({
          type: 'request',
          step: stepOf(args.item),
          item,
          method,
          url,
          ...(response?.code !== undefined ? { status: response.code } : {}),
          ...(response?.status !== undefined ? { statusText: response.status } : {}),
          ...(response?.responseTime !== undefined ? { responseTime: response.responseTime } : {}),
          ...(response !== undefined ? { responseSize: response.responseSize ?? response.stream?.byteLength ?? 0 } : {}),
          ...(error !== null && error !== undefined
            ? {
                failure: {
                  kind: transportErrorKind(error),
                  item,
                  origin: originOf(url) ?? url.replace(/^(https?:\/\/[^/?#]+).*$/, '$1'),
                  ...(typeof error.code === 'string' ? { code: error.code } : {}),
                  message: error.message ?? '',
                },
              }
            : {}),
          ...(json !== undefined ? { json } : {}),
          at: at(),
        });
      });
    });
  } finally {
    release();
    restore();
  }
}
