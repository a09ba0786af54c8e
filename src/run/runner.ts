// Runs the flow's steps in ONE process, chaining the environment from step to step (the environment is the only state
// that survives a newman run — docs/pipeline.md#newman-findings): consecutive collection steps share one newman.run
// (src/run/newman-adapter.ts), local steps (browser consent) run between them. Everything it does goes out as typed
// events (src/run/events.ts) to subscribers — the tally, the summary's records, the reporters the caller names. Its
// input is src/run/steps.ts.

export type { LocalCheck, LocalOutcome, RunStep, RunStepsInput } from './steps.js';

import { join } from 'node:path';
import type { Agent } from 'node:https';
import { ObflowError } from '../errors.js';
import { ensureDirectory } from '../fs.js';
import { withEnvironmentValues, type PostmanEnvironment } from '../environment/merge.js';
import { readMaterialFile } from '../pki/load.js';
import { checkCertificateCoverage, originOf, preflightClientCertificates, requestUrlsOf } from './certificates.js';
import { EventDispatch } from './dispatch.js';
import type { NewmanReportHook, RunEvent, StepKind } from './events.js';
import { environmentFromNewman, loadNewman, runNewmanBatch, type BatchSink } from './newman-adapter.js';
import type { NewmanRun } from './newman-types.js';
import { Redactor } from './redaction.js';
import { DEFAULT_REPORTERS, REPORTERS } from './reporters/index.js';
import type { RunResult, StepResult } from './result.js';
import { splitOutcome, type RunStep, type RunStepsInput } from './steps.js';
import { createExecutionLog, type ExecutionLog } from './subscribers/executions.js';
import { createTally, type Tally } from './subscribers/tally.js';
import { ExtraCaAgent } from './tls-agent.js';

/** One run's working parts (what runBatch's nine parameters were). */
interface RunContext {
  input: RunStepsInput;
  run: NewmanRun | undefined;
  httpsAgent: Agent | undefined;
  secretKeys: ReadonlySet<string>;
  redactor: Redactor;
  dispatch: EventDispatch;
  tally: Tally;
  executions: ExecutionLog;
  reportHooks: NewmanReportHook[];
  /** The results of the steps run so far, in order. */
  steps: StepResult[];
  now: () => Date;
}

function createContext(input: RunStepsInput, run: NewmanRun | undefined, httpsAgent: Agent | undefined): RunContext {
  const secretKeys = new Set(input.secretKeys === undefined ? [] : [...input.secretKeys]);
  const redactor = new Redactor(secretKeys);
  redactor.learnEnvironment(input.environment);
  const log = input.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const reportDir = input.reportDir ?? join(input.cwd, 'reports');
  const reporters = (input.reporters ?? DEFAULT_REPORTERS).map((name) =>
    REPORTERS[name]({ cwd: input.cwd, reportDir, log, redact: redactor.text }),
  );
  const tally = createTally();
  const executions = createExecutionLog();
  const subscribers = [tally, executions, ...reporters, ...(input.subscribers ?? [])];
  const reportHooks = subscribers.flatMap((subscriber) => (subscriber.newmanReport !== undefined ? [subscriber.newmanReport] : []));
  return {
    input,
    run,
    httpsAgent,
    secretKeys,
    redactor,
    dispatch: new EventDispatch(redactor, subscribers),
    tally,
    executions,
    reportHooks,
    steps: [],
    now: input.now ?? (() => new Date()),
  };
}

/** Runs the steps in order; returns per-step results. Throws ObflowError only for problems outside the assertions
 *  (certificates not applied, newman refusing its input, a reporter failing to write); failed assertions are a result. */
export async function runSteps(input: RunStepsInput): Promise<RunResult> {
  // Where the run writes (every reporter but cli writes files), before anything is sent: ERR_WRITE_FAILED if not.
  await ensureDirectory(input.cwd, { secret: true });
  if ((input.reporters ?? DEFAULT_REPORTERS).some((name) => name !== 'cli'))
    await ensureDirectory(input.reportDir ?? join(input.cwd, 'reports'));
  if (input.preflight !== false) {
    await preflightClientCertificates(input.sslClientCertList, input.transportMaterial);
    const values = Object.fromEntries(input.environment.values.map((entry) => [entry.key, entry.value]));
    const collections = input.steps.flatMap((step) => ('collection' in step ? [step.collection] : []));
    checkCertificateCoverage(input.sslClientCertList, requestUrlsOf(collections, values));
  }
  const names = input.steps.map((step) => step.name);
  if (new Set(names).size !== names.length) throw new TypeError(`step names must be unique: ${names.join(', ')}`);
  const run = input.steps.some((step) => 'collection' in step) ? await loadNewman() : undefined;
  // The CA through obflow's agent: one TLS context per origin and certificate for the whole run instead of one per
  // request (src/run/tls-agent.ts). Its keep-alive sockets close with the run.
  const httpsAgent =
    input.sslExtraCaCerts === undefined
      ? undefined
      : new ExtraCaAgent((await readMaterialFile(input.sslExtraCaCerts, 'server CA bundle')).toString('utf8'));
  try {
    const context = createContext(input, run, httpsAgent);
    return await runAll(context);
  } finally {
    httpsAgent?.destroy();
  }
}

function stepEnd(context: RunContext, step: string, kind: StepKind, result: StepResult): RunEvent {
  return { type: 'step', phase: 'end', step, kind, at: context.now().toISOString(), result };
}

async function runAll(context: RunContext): Promise<RunResult> {
  const { input, dispatch, redactor } = context;
  const origins = [
    ...new Set(
      input.sslClientCertList.flatMap((entry) => entry.matches.map((pattern) => originOf(pattern.replace(/\/\*$/, '')) ?? pattern)),
    ),
  ].sort();
  dispatch.emit({
    type: 'start',
    startedAt: context.now().toISOString(),
    steps: input.steps.map((step) => ({ name: step.name, kind: 'local' in step ? 'local' : 'collection' })),
    origins,
    ...(input.target !== undefined ? { target: input.target } : {}),
  });
  let environment = input.environment;
  const { steps } = context;
  const failedSoFar = (): boolean => steps.some((step) => !step.passed);

  for (let index = 0; index < input.steps.length && !(failedSoFar() && input.bail !== false);) {
    const step = input.steps[index] as RunStep;
    if ('local' in step) {
      index += 1;
      dispatch.emit({ type: 'step', phase: 'begin', step: step.name, kind: 'local', at: context.now().toISOString() });
      const { values, checks } = splitOutcome(await step.local(environment));
      environment = withEnvironmentValues(environment, values);
      redactor.learnEnvironment(environment);
      // Each check is an assertion of the step (item = the step): the reporters show it like a collection's pm.test.
      for (const check of checks) {
        const message = check.passed ? {} : { message: redactor.text(check.message) };
        dispatch.emit({
          type: 'assertion',
          step: step.name,
          item: step.name,
          name: check.rule,
          status: check.passed ? 'passed' : 'failed',
          ...message,
        });
      }
      const failures = checks
        .filter((check) => !check.passed)
        .map((check) => ({ item: step.name, test: check.rule, message: check.message }));
      const assertions = { total: checks.length, failed: failures.length };
      const result: StepResult = { name: step.name, passed: failures.length === 0, requests: 0, assertions, failures, reports: [] };
      steps.push(result);
      dispatch.emit(stepEnd(context, step.name, 'local', result));
      continue;
    }
    const batch: { name: string; collection: object }[] = [];
    while (index < input.steps.length && 'collection' in (input.steps[index] as RunStep)) {
      batch.push(input.steps[index] as { name: string; collection: object });
      index += 1;
    }
    environment = await runBatch(context, batch, environment);
  }

  // Failure messages go to the terminal (ERR_RUN_FAILED names the first): redacted with every secret the run saw.
  for (const step of steps) {
    step.failures = step.failures.map((failure) => ({
      item: failure.item,
      test: redactor.text(failure.test),
      message: redactor.text(failure.message),
    }));
    if (step.transport !== undefined) step.transport = { ...step.transport, message: redactor.text(step.transport.message) };
  }
  const failed = steps.find((step) => !step.passed);
  const complete = input.steps.every((step) => steps.some((result) => result.name === step.name));
  const result: RunResult = {
    passed: failed === undefined && complete,
    steps,
    ...(failed !== undefined ? { failedStep: failed.name } : {}),
    ...(failed?.transport !== undefined ? { transport: { step: failed.name, ...failed.transport } } : {}),
    environment,
    executions: context.executions.records,
  };
  dispatch.emit({ type: 'done', finishedAt: context.now().toISOString(), result });
  // Reports written before a secret first appeared (e.g. a token issued in a later step) are redacted again here.
  const reports = await dispatch.finish();
  return { ...result, reports };
}

/** One newman.run over consecutive collection steps: its events out through the dispatch, its steps' results into
 *  context.steps; returns the environment after it. */
async function runBatch(
  context: RunContext,
  batch: readonly { name: string; collection: object }[],
  environment: PostmanEnvironment,
): Promise<PostmanEnvironment> {
  const { input, dispatch, redactor, tally } = context;
  if (context.run === undefined) throw new TypeError('newman not loaded');
  const names = batch.map((member) => member.name);
  const label = names.length === 1 ? (names[0] ?? '') : `${names[0] ?? ''}..${names[names.length - 1] ?? ''}`;
  const reports = context.reportHooks.map((hook) => ({ hook, ...hook.open(names) }));
  const files = reports.map((report) => report.file);
  const attributedBefore = tally.attributedFailures();
  // An item's events wait for its end: the secrets its scripts set are learned before they go out redacted.
  const held: RunEvent[] = [];
  let openStep: string | undefined;
  const endOpenStep = (): void => {
    const result = openStep === undefined ? undefined : tally.resultOf(openStep);
    if (openStep !== undefined && result !== undefined)
      dispatch.emit(stepEnd(context, openStep, 'collection', { ...result, reports: files }));
    openStep = undefined;
  };
  const flush = (): void => {
    for (const event of held.splice(0)) {
      if (event.type === 'step' && event.phase === 'begin') {
        endOpenStep();
        openStep = event.step;
      }
      dispatch.emit(event);
    }
  };
  const sink: BatchSink = {
    event: (event) => held.push(event),
    variable: (key, value) => redactor.learnVariable(key, value),
    itemEnd: flush,
  };
  let outcome: Awaited<ReturnType<typeof runNewmanBatch>>;
  try {
    outcome = await runNewmanBatch(
      context.run,
      {
        batch,
        environment,
        cwd: input.cwd,
        sslClientCertList: input.sslClientCertList,
        ...(input.sslExtraCaCerts !== undefined ? { sslExtraCaCerts: input.sslExtraCaCerts } : {}),
        insecure: input.insecure === true,
        ...(context.httpsAgent !== undefined ? { httpsAgent: context.httpsAgent } : {}),
        bail: input.bail !== false,
        timeoutRequest: input.timeoutRequest ?? 30_000,
        reports: reports.map(({ reporter, options }) => ({ reporter, options })),
        now: context.now,
      },
      sink,
    );
  } catch (cause) {
    // A report newman may have written is not redacted: removed, never left behind with secrets in it.
    for (const report of reports) await report.hook.close(report.file, false);
    throw new ObflowError('ERR_COLLECTION_INVALID', `newman could not run ${label}: ${redactor.text((cause as Error).message)}`, {
      hint: 'Regenerate the collections (`obflow generate`) and check the certificate list and CA paths.',
      cause: redactor.error(cause), // OBFLOW_DEBUG prints the cause's stack (src/cli/main.ts)
    });
  }
  const next = environmentFromNewman(outcome.summary.environment.toJSON(), environment, context.secretKeys);
  redactor.learnEnvironment(next);
  flush();
  endOpenStep();
  // Redacted before anything below can throw: a batch's report is never left with the secrets it saw.
  for (const report of reports) await report.hook.close(report.file, true);
  if (outcome.certificateWarnings.length > 0) {
    throw new ObflowError(
      'ERR_FILE_UNREADABLE',
      `newman could not load the client certificate (${label}): ${outcome.certificateWarnings[0] ?? ''}`,
      {
        hint: 'Check the files the certificate list names exist and are readable (obflow preflights them; were they removed during the run?).',
      },
    );
  }
  if (outcome.unmatched.size > 0) {
    throw new ObflowError(
      'ERR_CERT_PORT_UNMATCHED',
      `${label} called ${[...outcome.unmatched].join(', ')} without a client certificate (no pattern matched)`,
      {
        hint: 'Every bank origin needs a port-qualified pattern (https://host:port/*) in the certificate list.',
      },
    );
  }
  // Steps newman did not reach (it stopped at an earlier failure: bail) have no result.
  const { steps } = context;
  for (const name of names) {
    const result = tally.resultOf(name);
    if (result !== undefined) steps.push({ ...result, reports: files });
  }
  // Failures newman reports that no event attributed to a step (should not happen) still fail the run.
  if (outcome.summary.run.failures.length > tally.attributedFailures() - attributedBefore && !steps.some((step) => !step.passed)) {
    const failure = outcome.summary.run.failures[0];
    steps.push({
      name: label,
      passed: false,
      requests: 0,
      assertions: { total: 0, failed: 0 },
      reports: [],
      failures: [
        {
          item: failure?.source?.name ?? '',
          test: failure?.error?.test ?? failure?.error?.name ?? '',
          // Redacted with every other failure message when the run ends (runAll).
          message: failure?.error?.message ?? '',
        },
      ],
    });
  }
  return next;
}
