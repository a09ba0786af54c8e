// Runs the flow's steps with `newman.run` in ONE process, chaining `summary.environment.toJSON()` from step to step
// (the environment is the only state that survives a run — docs/pipeline.md#newman-findings), client certificates
// via the checked `sslClientCertList`, server certificates verified against the target's CA unless `insecure` is
// asked for.

import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventEmitter } from 'node:events';
import type { Agent } from 'node:https';
import { ObflowError } from '../errors.js';
import { markUnfinished, writeFileAtomic } from '../fs.js';
import { isSecretKey, sortValues, withEnvironmentValues, type PostmanEnvironment, type PostmanEnvironmentValue } from '../environment/merge.js';
import { readMaterialFile } from '../pki/load.js';
import { certificateMatcher, checkCertificateCoverage, originOf, preflightClientCertificates, requestUrlsOf, type SslClientCert } from './certificates.js';
import { ExtraCaAgent } from './tls-agent.js';

/** One rule a local step checked (e.g. an id_token claim): an assertion of the step's result. */
export interface LocalCheck {
  rule: string;
  passed: boolean;
  /** Why it failed ('' when it passed); never a secret. */
  message: string;
}

/** What a local step returns: environment updates, or updates plus the checks it made. */
export type LocalOutcome = Readonly<Record<string, string>> | { values: Readonly<Record<string, string>>; checks: readonly LocalCheck[] };

/** A step is a collection newman runs, or a local action (e.g. browser consent, id_token verification) that returns
 *  environment updates and, optionally, the checks it made. */
export type RunStep =
  | { name: string; collection: object }
  | { name: string; local: (environment: PostmanEnvironment) => Promise<LocalOutcome> };

function splitOutcome(outcome: LocalOutcome): { values: Readonly<Record<string, string>>; checks: readonly LocalCheck[] } {
  return 'checks' in outcome && Array.isArray(outcome.checks) && typeof outcome.values === 'object'
    ? (outcome as { values: Readonly<Record<string, string>>; checks: readonly LocalCheck[] })
    : { values: outcome as Readonly<Record<string, string>>, checks: [] };
}

export type ReporterName = 'cli' | 'junit';

export interface RunStepsInput {
  steps: readonly RunStep[];
  environment: PostmanEnvironment;
  /** Pinned working directory: newman reads `./.newmanrc` from the process cwd, so obflow runs from here. */
  cwd: string;
  sslClientCertList: readonly SslClientCert[];
  /** PEM file of the target's CA: the bank's server certificate is verified against it (newman `sslExtraCaCerts`). */
  sslExtraCaCerts?: string;
  /** Skip server certificate verification (the spec allows it for the bank's self-signed sandbox, §5.1). */
  insecure?: boolean;
  /** Default cli + junit. */
  reporters?: readonly ReporterName[];
  /** Where junit files go (one per step); default `<cwd>/reports`. */
  reportDir?: string;
  /** Keys that are secrets by contract (kept typed `secret` through the chain and redacted from reports). */
  secretKeys?: ReadonlySet<string> | readonly string[];
  /** Stop after the first failing step (later steps read its state). Default true. */
  bail?: boolean;
  /** Where the cli reporter and obflow's progress lines go; default process.stdout. */
  log?: (line: string) => void;
  /** Per-request timeout (ms); default 30 000 so a silent server cannot hang a run forever. */
  timeoutRequest?: number;
  /** Check the certificate files and that every bank URL the collections name gets a certificate, before any
   *  request (default true; only tests that prove newman's silent behaviour turn it off). */
  preflight?: boolean;
}

export interface StepFailure {
  item: string;
  test: string;
  message: string;
}

/** A request that got no HTTP answer: the bank was not reached (refused, reset, DNS, timeout) or the TLS handshake
 *  failed (server certificate not trusted, client certificate refused). Not a verdict on the bank's answers. */
export interface TransportFailure {
  kind: 'unreachable' | 'tls';
  item: string;
  /** `https://host:port` of the request (no path: paths may carry ids). */
  origin: string;
  /** Node's error code when it has one (ECONNREFUSED, UNABLE_TO_GET_ISSUER_CERT_LOCALLY, …). */
  code?: string;
  message: string;
}

export interface StepResult {
  name: string;
  passed: boolean;
  /** Set when the step failed because a request got no answer (the CLI maps it to ERR_REMOTE_UNREACHABLE/_TLS). */
  transport?: TransportFailure;
  requests: number;
  assertions: { total: number; failed: number };
  failures: StepFailure[];
  /** Reports written for this step. */
  reports: string[];
}

/** One request the run made: enough for the summary; bodies kept only for the AIS accounts list. */
export interface ExecutionRecord {
  step: string;
  item: string;
  method: string;
  url: string;
  status: number | undefined;
  /** Parsed JSON body of GET …/aisp/accounts (the summary names the accounts). */
  json?: unknown;
}

export interface RunResult {
  passed: boolean;
  steps: StepResult[];
  /** The first step that failed (the CLI names it and exits 1 with ERR_RUN_FAILED, or 3 when it is a transport error). */
  failedStep?: string;
  /** The failed step's transport error, if its failure is that no answer came (see StepResult.transport). */
  transport?: TransportFailure & { step: string };
  environment: PostmanEnvironment;
  executions: ExecutionRecord[];
}

/** The subset of newman.run's options obflow sets (the published types lack sslClientCertList/sslExtraCaCerts). */
interface NewmanOptions {
  collection: object;
  environment: object;
  globals: object;
  workingDir: string;
  insecureFileRead: boolean;
  reporters: string[];
  reporter: Record<string, unknown>;
  insecure: boolean;
  sslClientCertList: SslClientCert[];
  sslClientCert: string;
  sslClientKey: string;
  sslClientPassphrase: string;
  sslExtraCaCerts?: string;
  requestAgents?: { https: Agent };
  ignoreRedirects: boolean;
  bail: boolean;
  delayRequest: number;
  timeoutRequest: number;
  suppressExitCode: boolean;
  color: 'on' | 'off' | 'auto';
  iterationCount: number;
}

interface NewmanSummaryLike {
  environment: { toJSON(): { values?: { key?: unknown; value?: unknown; type?: unknown; disabled?: unknown }[] } };
  run: {
    stats: { requests: { total?: number }; assertions: { total?: number; failed?: number } };
    failures: { error?: { message?: string; test?: string; name?: string }; source?: { name?: string } }[];
  };
}

type NewmanRun = (options: NewmanOptions, callback: (error: Error | null, summary: NewmanSummaryLike) => void) => EventEmitter;

let newmanRun: Promise<NewmanRun> | undefined;

/** newman costs ~0.3–0.45 s to import; only `run` pays it (STYLE.md: heavy dependencies lazily). */
function loadNewman(): Promise<NewmanRun> {
  newmanRun ??= import('newman').then((module) => (module.default as unknown as { run: NewmanRun }).run);
  return newmanRun;
}


function toSet(keys: RunStepsInput['secretKeys']): Set<string> {
  return new Set(keys === undefined ? [] : [...keys]);
}

/** Back from newman's VariableScope JSON into a sorted, typed environment; secret-ness never gets lost. */
export function environmentFromNewman(
  json: ReturnType<NewmanSummaryLike['environment']['toJSON']>,
  previous: PostmanEnvironment,
  secretKeys: ReadonlySet<string>,
): PostmanEnvironment {
  const wasSecret = new Set(previous.values.filter((entry) => entry.type === 'secret').map((entry) => entry.key));
  const values: PostmanEnvironmentValue[] = [];
  for (const entry of json.values ?? []) {
    if (typeof entry.key !== 'string' || entry.disabled === true) continue;
    const value = entry.value === undefined || entry.value === null ? '' : typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value);
    const secret = wasSecret.has(entry.key) || secretKeys.has(entry.key) || entry.type === 'secret' || isSecretKey(entry.key);
    values.push({ key: entry.key, value, type: secret ? 'secret' : 'default', enabled: true });
  }
  sortValues(values);
  return { ...previous, values };
}

/** Replaces every secret value of the run with `[redacted]` — whole values, and also fragments of ≥ 8 token
 *  characters cut from one (chai quotes long values truncated, `'eyJhbGciOi…'`, which still leaks a prefix). */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  const ordered = [...secrets].filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of ordered) out = out.split(secret).join('[redacted]');
  return out.replace(/[A-Za-z0-9._~+/=-]{8,}/g, (run) => (ordered.some((secret) => secret.includes(run)) ? '[redacted]' : run));
}

async function redactFile(path: string, secrets: ReadonlySet<string>): Promise<void> {
  const original = await readFile(path, 'utf8');
  const text = redactSecrets(original, secrets);
  if (text !== original) await writeFileAtomic(path, text, { secret: true });
}

function secretValuesOf(environment: PostmanEnvironment): string[] {
  return environment.values.filter((entry) => entry.type === 'secret' && entry.value !== '').map((entry) => entry.value);
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

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Per-step tallies of one newman run, keyed by the folder (step) an item sits in. */
interface StepTally {
  requests: number;
  total: number;
  failed: number;
  failures: StepFailure[];
  transport?: TransportFailure;
}

/** OpenSSL's certificate verification results as Node names them (X509_V_ERR_* without the prefix). */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED', 'CERT_UNTRUSTED', 'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE', 'HOSTNAME_MISMATCH', 'INVALID_CA', 'EPROTO',
]);

/** Whether a request error is a TLS failure (handshake, server certificate, client certificate alert) or the bank
 *  not being reached at all. Node puts the reason in `code`; an alert sometimes only in the message. */
export function transportErrorKind(error: { code?: unknown; message?: unknown }): TransportFailure['kind'] {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = typeof error.message === 'string' ? error.message : '';
  if (TLS_VERIFY_CODES.has(code) || /^ERR_(SSL|TLS)_/.test(code)) return 'tls';
  if (/certificate|\bssl\b|\btls\b|handshake|alert/i.test(message)) return 'tls';
  return 'unreachable';
}

interface BatchOutcome {
  summary: NewmanSummaryLike;
  tallies: Map<string, StepTally>;
  unmatched: Set<string>;
  certificateWarnings: string[];
  executions: ExecutionRecord[];
}

/** A variable of a script's environment as postman-runtime hands it: an sdk Variable (or its JSON). */
type ScopeVariable = { key?: unknown; value?: unknown };

type NewmanItem = { name?: string; parent?: () => { name?: string } | undefined } | undefined;

/** Item name → step name for a batch (item names are unique across the flow: setNextRequest relies on it). The
 *  `request` event hands out a copy of the item without its parent, so the folder cannot be asked directly. */
function itemSteps(batch: readonly { name: string; collection: object }[]): Map<string, string> {
  const map = new Map<string, string>();
  const visit = (items: unknown, step: string): void => {
    if (!Array.isArray(items)) return;
    for (const item of items as { name?: unknown; item?: unknown }[]) {
      if (typeof item.name === 'string') map.set(item.name, step);
      visit(item.item, step);
    }
  };
  for (const step of batch) visit((step.collection as { item?: unknown }).item, step.name);
  return map;
}

/** One collection with a folder per step, so consecutive steps share one newman.run (its fixed cost is paid once and
 *  the environment flows inside the run exactly as between runs). Item names are unique across the flow, so
 *  setNextRequest loops keep working. */
export function batchCollection(steps: readonly { name: string; collection: object }[]): object {
  return {
    info: { name: `obflow run: ${steps.map((step) => step.name).join(', ')}`, schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
    item: steps.map((step) => {
      const definition = step.collection as { item?: unknown; event?: unknown };
      return { name: step.name, item: structuredClone(definition.item ?? []), event: structuredClone(definition.event ?? []) };
    }),
  };
}

function tallyOf(tallies: Map<string, StepTally>, step: string): StepTally {
  let tally = tallies.get(step);
  if (tally === undefined) {
    tally = { requests: 0, total: 0, failed: 0, failures: [] };
    tallies.set(step, tally);
  }
  return tally;
}

async function runBatch(
  run: NewmanRun,
  batch: readonly { name: string; collection: object }[],
  environment: PostmanEnvironment,
  input: RunStepsInput,
  reporters: readonly ReporterName[],
  junitPath: string | undefined,
  secrets: Set<string>,
  secretKeys: ReadonlySet<string>,
  log: (line: string) => void,
  httpsAgent: Agent | undefined,
): Promise<BatchOutcome> {
  const tallies = new Map<string, StepTally>();
  const progress = reporters.includes('cli');
  let pending: string[] = [];
  let lastStep = '';
  const steps = itemSteps(batch);
  const stepOf = (item: NewmanItem): string => steps.get(item?.name ?? '') ?? (typeof item?.parent === 'function' ? item.parent()?.name : undefined) ?? '';
  const unmatched = new Set<string>();
  const certificateWarnings: string[] = [];
  const executions: ExecutionRecord[] = [];
  const options: NewmanOptions = {
    collection: batchCollection(batch),
    environment: { id: environment.id, name: environment.name, values: environment.values.map((entry) => ({ ...entry })) },
    globals: { values: [] },
    workingDir: input.cwd,
    insecureFileRead: true,
    // `cli` is obflow's own line reporter below (redacted, through the log seam); newman writes only JUnit.
    reporters: junitPath === undefined ? [] : ['junit'],
    reporter: junitPath === undefined ? {} : { junit: { export: junitPath } },
    insecure: input.insecure === true,
    // newman pushes onto and mutates the list's entries (it reads the files into them): give it a fresh copy.
    sslClientCertList: input.sslClientCertList.map((entry) => structuredClone(entry)),
    sslClientCert: '',
    sslClientKey: '',
    sslClientPassphrase: '',
    // Still given with the agent: a request the agent does not carry (through a proxy tunnel) trusts the CA as before.
    ...(input.sslExtraCaCerts !== undefined ? { sslExtraCaCerts: input.sslExtraCaCerts } : {}),
    ...(httpsAgent !== undefined ? { requestAgents: { https: httpsAgent } } : {}),
    ignoreRedirects: false,
    // Later steps read the state of earlier ones: stop after the first failing test script unless told otherwise.
    bail: input.bail !== false,
    delayRequest: 0,
    timeoutRequest: input.timeoutRequest ?? 30_000,
    suppressExitCode: true,
    color: process.stdout.isTTY ? 'auto' : 'off',
    iterationCount: 1,
  };
  const restore = pinForOptionLoading(input.cwd);
  try {
    return await new Promise<BatchOutcome>((resolve, reject) => {
      const emitter = run(options, (error, summary) => {
        restore();
        if (error !== null) reject(error);
        else resolve({ summary, tallies, unmatched, certificateWarnings, executions });
      });
      emitter.on('start', restore);
      // The resolved URL of every request, checked with the same matcher postman-runtime uses (certificates.ts).
      const certificateOf = certificateMatcher(input.sslClientCertList);
      emitter.on('beforeRequest', (_error: unknown, args: { request?: { url?: { toString(): string } } }) => {
        const url = args.request?.url?.toString();
        if (url !== undefined && url.startsWith('https://') && certificateOf(url) === undefined) {
          unmatched.add(originOf(url) ?? url);
        }
      });
      emitter.on('console', (_error: unknown, args: { level?: string; messages?: unknown[] }) => {
        const text = (args.messages ?? []).map(String).join(' ');
        if (args.level === 'warn' && /certificate/i.test(text)) certificateWarnings.push(text);
      });
      // Secrets issued during the run (tokens, codes) become known from the scripts' environments, before the
      // item's lines are printed (on `item`), so progress lines are redacted with them too.
      // The scope's variables are read in place (its PropertyList), not through toJSON(), which copies every value —
      // the whole environment, twice a request.
      const learnVariable = (entry: ScopeVariable): void => {
        if (typeof entry.key === 'string' && typeof entry.value === 'string' && entry.value !== '' && (secretKeys.has(entry.key) || isSecretKey(entry.key))) secrets.add(entry.value);
      };
      const learn = (_error: unknown, args: { executions?: { result?: { environment?: unknown } }[] }): void => {
        for (const execution of args.executions ?? []) {
          const values = (execution.result?.environment as { values?: unknown } | undefined)?.values;
          if (Array.isArray(values)) (values as ScopeVariable[]).forEach(learnVariable);
          else if (typeof (values as { each?: unknown } | undefined)?.each === 'function') (values as { each(callback: (entry: ScopeVariable) => void): void }).each(learnVariable);
        }
      };
      emitter.on('prerequest', learn);
      emitter.on('test', learn);
      emitter.on('item', () => {
        for (const line of pending) log(redactSecrets(line, secrets));
        pending = [];
      });
      emitter.on('assertion', (error: { message?: string } | null, args: { item?: NewmanItem; assertion?: string; skipped?: boolean }) => {
        if (args.skipped === true) return;
        const tally = tallyOf(tallies, stepOf(args.item));
        tally.total += 1;
        if (error !== null && error !== undefined) {
          tally.failed += 1;
          tally.failures.push({ item: args.item?.name ?? '', test: args.assertion ?? '', message: error.message ?? '' });
          if (progress) pending.push(`    ✗ ${args.assertion ?? ''}: ${error.message ?? ''}`);
        } else if (progress) {
          pending.push(`    ✓ ${args.assertion ?? ''}`);
        }
      });
      emitter.on('script', (error: { message?: string; name?: string } | null, args: { item?: NewmanItem; event?: { listen?: string } }) => {
        if (error === null || error === undefined) return;
        // A script that throws outside pm.test (e.g. JSON.parse of a non-JSON body) is a failure of its step too.
        tallyOf(tallies, stepOf(args.item)).failures.push({ item: args.item?.name ?? '', test: error.name ?? `${args.event?.listen ?? ''} script`, message: error.message ?? '' });
      });
      emitter.on('request', (error: { message?: string; code?: unknown } | null, args: { item?: NewmanItem; request?: { method?: string; url?: { toString(): string } }; response?: { code?: number; stream?: Buffer } }) => {
        const step = stepOf(args.item);
        const tally = tallyOf(tallies, step);
        tally.requests += 1;
        const url = args.request?.url?.toString() ?? '';
        if (error !== null && error !== undefined) {
          // No HTTP answer at all: the step's assertions that follow fail only as a consequence. Keep the first cause.
          tally.failures.push({ item: args.item?.name ?? '', test: 'request', message: error.message ?? '' });
          tally.transport ??= {
            kind: transportErrorKind(error),
            item: args.item?.name ?? '',
            origin: originOf(url) ?? url.replace(/^(https?:\/\/[^/?#]+).*$/, '$1'),
            ...(typeof error.code === 'string' ? { code: error.code } : {}),
            message: error.message ?? '',
          };
        }
        if (progress) {
          if (step !== lastStep) {
            pending.push(`▸ ${step}`);
            lastStep = step;
          }
          const path = url.replace(/^https:\/\/[^/]+/, '').replace(/\?.*$/, '');
          pending.push(`  ${args.item?.name ?? ''}  ${args.request?.method ?? 'GET'} ${path} → ${error !== null && error !== undefined ? `error: ${error.message ?? ''}` : String(args.response?.code ?? '')}`);
        }
        const record: ExecutionRecord = { step, item: args.item?.name ?? '', method: args.request?.method ?? 'GET', url, status: args.response?.code };
        if (record.method === 'GET' && /\/aisp\/accounts(\?|$)/.test(url) && args.response?.stream !== undefined) {
          try {
            record.json = JSON.parse(args.response.stream.toString('utf8'));
          } catch {
            // not JSON: the step's own tests report it
          }
        }
        executions.push(record);
      });
    });
  } finally {
    restore();
  }
}


/** Runs the steps in order; returns per-step results. Consecutive collection steps share one newman.run (a folder per
 *  step); local steps (browser consent) run between them. Throws ObflowError only for problems outside the
 *  assertions (certificates not applied, newman refusing its input); failed assertions are a result. */
export async function runSteps(input: RunStepsInput): Promise<RunResult> {
  const reporters = input.reporters ?? ['cli', 'junit'];
  const reportDir = input.reportDir ?? join(input.cwd, 'reports');
  const secretKeys = toSet(input.secretKeys);
  const log = input.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  await mkdir(input.cwd, { recursive: true });
  if (reporters.includes('junit')) await mkdir(reportDir, { recursive: true });

  if (input.preflight !== false) {
    await preflightClientCertificates(input.sslClientCertList);
    const values = Object.fromEntries(input.environment.values.map((entry) => [entry.key, entry.value]));
    const collections = input.steps.flatMap((step) => ('collection' in step ? [step.collection] : []));
    checkCertificateCoverage(input.sslClientCertList, requestUrlsOf(collections, values));
  }
  const names = input.steps.map((step) => step.name);
  if (new Set(names).size !== names.length) throw new TypeError(`step names must be unique: ${names.join(', ')}`);
  const run = input.steps.some((step) => 'collection' in step) ? await loadNewman() : undefined;
  // The CA through obflow's agent: one TLS context per origin and certificate for the whole run instead of one per
  // request (src/run/tls-agent.ts). Its keep-alive sockets close with the run.
  const httpsAgent = input.sslExtraCaCerts === undefined ? undefined : new ExtraCaAgent((await readMaterialFile(input.sslExtraCaCerts, 'server CA bundle')).toString('utf8'));
  try {
    return await runAll(input, run, httpsAgent, reporters, reportDir, secretKeys, log);
  } finally {
    httpsAgent?.destroy();
  }
}

async function runAll(
  input: RunStepsInput,
  run: NewmanRun | undefined,
  httpsAgent: Agent | undefined,
  reporters: readonly ReporterName[],
  reportDir: string,
  secretKeys: ReadonlySet<string>,
  log: (line: string) => void,
): Promise<RunResult> {
  let environment = input.environment;
  const steps: StepResult[] = [];
  const executions: ExecutionRecord[] = [];
  const secretsSeen = new Set(secretValuesOf(environment));
  const failedSoFar = (): boolean => steps.some((step) => !step.passed);

  for (let index = 0; index < input.steps.length && !(failedSoFar() && input.bail !== false);) {
    const step = input.steps[index] as RunStep;
    if ('local' in step) {
      index += 1;
      const { values, checks } = splitOutcome(await step.local(environment));
      environment = withEnvironmentValues(environment, values);
      for (const value of secretValuesOf(environment)) secretsSeen.add(value);
      const failures = checks.filter((item) => !item.passed).map((item) => ({ item: step.name, test: item.rule, message: item.message }));
      steps.push({ name: step.name, passed: failures.length === 0, requests: 0, assertions: { total: checks.length, failed: failures.length }, failures, reports: [] });
      log(`${failures.length === 0 ? '✓' : '✗'} ${step.name} (local)`);
      for (const item of checks) log(`  ${item.passed ? '✓' : '✗'} ${item.rule}${item.passed ? '' : `: ${redactSecrets(item.message, secretsSeen)}`}`);
      continue;
    }
    const batch: { name: string; collection: object }[] = [];
    while (index < input.steps.length && 'collection' in (input.steps[index] as RunStep)) {
      batch.push(input.steps[index] as { name: string; collection: object });
      index += 1;
    }
    if (run === undefined) throw new TypeError('newman not loaded');
    const first = batch[0]?.name ?? '';
    const last = batch[batch.length - 1]?.name ?? '';
    const label = first === last ? first : `${first}..${last}`;
    const junitPath = reporters.includes('junit') ? join(reportDir, `${safeFileName(first === last ? first : `${first}--${last}`)}.xml`) : undefined;
    let outcome: BatchOutcome;
    // newman writes the report before obflow redacts it: until then an interrupt removes it (never left unredacted).
    const finished = junitPath === undefined ? () => undefined : markUnfinished(junitPath);
    try {
      outcome = await runBatch(run, batch, environment, input, reporters, junitPath, secretsSeen, secretKeys, log, httpsAgent);
    } catch (cause) {
      // A report newman may have written is not redacted: removed, never left behind with secrets in it.
      if (junitPath !== undefined) await rm(junitPath, { force: true });
      finished();
      throw new ObflowError('ERR_COLLECTION_INVALID', `newman could not run ${label}: ${(cause as Error).message}`, {
        hint: 'Regenerate the collections (`obflow generate`) and check the certificate list and CA paths.',
        cause,
      });
    }
    // Redacted before anything below can throw: a batch's report is never left with the secrets it saw.
    environment = environmentFromNewman(outcome.summary.environment.toJSON(), environment, secretKeys);
    for (const value of secretValuesOf(environment)) secretsSeen.add(value);
    executions.push(...outcome.executions);
    if (junitPath !== undefined) await redactFile(junitPath, secretsSeen);
    finished();
    if (outcome.certificateWarnings.length > 0) {
      throw new ObflowError('ERR_FILE_UNREADABLE', `newman could not load the client certificate (${label}): ${outcome.certificateWarnings[0] ?? ''}`, {
        hint: 'Check the files the certificate list names exist and are readable (obflow preflights them; were they removed during the run?).',
      });
    }
    if (outcome.unmatched.size > 0) {
      throw new ObflowError('ERR_CERT_PORT_UNMATCHED', `${label} called ${[...outcome.unmatched].join(', ')} without a client certificate (no pattern matched)`, {
        hint: 'Every bank origin needs a port-qualified pattern (https://host:port/*) in the certificate list.',
      });
    }

    for (const member of batch) {
      const tally = outcome.tallies.get(member.name);
      if (tally === undefined) continue; // not reached: newman stopped at an earlier failure (bail)
      steps.push({
        name: member.name,
        passed: tally.failures.length === 0 && tally.failed === 0,
        requests: tally.requests,
        assertions: { total: tally.total, failed: tally.failed },
        failures: tally.failures,
        reports: junitPath === undefined ? [] : [junitPath],
        ...(tally.transport !== undefined ? { transport: tally.transport } : {}),
      });
    }
    // Failures newman reports that no event attributed to a step (should not happen) still fail the run.
    const attributed = [...outcome.tallies.values()].reduce((sum, tally) => sum + tally.failures.length, 0);
    if (outcome.summary.run.failures.length > attributed && !failedSoFar()) {
      const failure = outcome.summary.run.failures[0];
      steps.push({ name: label, passed: false, requests: 0, assertions: { total: 0, failed: 0 }, reports: [],
        failures: [{ item: failure?.source?.name ?? '', test: failure?.error?.test ?? failure?.error?.name ?? '', message: failure?.error?.message ?? '' }] });
    }
  }
  // Reports written before a secret first appeared (e.g. a token issued in a later step) are redacted again at the end.
  for (const report of new Set(steps.flatMap((step) => step.reports))) await redactFile(report, secretsSeen);

  // Failure messages go to the terminal (ERR_RUN_FAILED names the first): same redaction as the reports.
  for (const step of steps) {
    step.failures = step.failures.map((failure) => ({ item: failure.item, test: redactSecrets(failure.test, secretsSeen), message: redactSecrets(failure.message, secretsSeen) }));
    if (step.transport !== undefined) step.transport = { ...step.transport, message: redactSecrets(step.transport.message, secretsSeen) };
  }
  const failed = steps.find((step) => !step.passed);
  const complete = input.steps.every((step) => steps.some((result) => result.name === step.name));
  return {
    passed: failed === undefined && complete,
    steps,
    ...(failed !== undefined ? { failedStep: failed.name } : {}),
    ...(failed?.transport !== undefined ? { transport: { step: failed.name, ...failed.transport } } : {}),
    environment,
    executions,
  };
}
