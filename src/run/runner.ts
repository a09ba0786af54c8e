// Runs the flow's steps in ONE process, chaining the environment from step to step (the environment is the only state
// that survives a newman run — docs/pipeline.md#newman-findings): consecutive collection steps share one newman.run
// (src/run/newman-adapter.ts), local steps (browser consent) run between them. Everything it does goes out as typed
// events (src/run/events.ts) to subscribers — the tally, the summary's records, the reporters the caller names. Its
// input is src/run/steps.ts.

export type { LocalCheck, LocalOutcome, RunStep, RunStepsInput } from './steps.js';

import { join } from 'node:path';
import { ObflowError } from '../errors.js';
import { ensureDirectory } from '../fs.js';
import type { PostmanEnvironment } from '../environment/merge.js';
import { readMaterialFile } from '../pki/load.js';
import { checkCertificateCoverage, originOf, preflightClientCertificates, requestUrlsOf } from './certificates.js';
import { createContext, runLocalStep, stepEnd, type RunContext } from './context.js';
import type { RunEvent } from './events.js';
import { environmentFromNewman, runNewmanBatch, type BatchSink } from './newman-adapter.js';
import { loadNewman } from './newman-load.js';
import { keepCertificateFiles } from './certificate-files.js';
import { DEFAULT_REPORTERS, removePreviousReports } from './reporters/index.js';
import type { RunResult, StepResult } from './result.js';
import type { RunStep, RunStepsInput } from './steps.js';
import { ExtraCaAgent } from './tls-agent.js';

type CollectionStep = Extract<RunStep, { collection: object }>;
type LocalStep = Extract<RunStep, { local: unknown }>;

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
  // From here the run is under way: an earlier run's reports go, so none is left as if it were this one's.
  await removePreviousReports(input.reportDir ?? join(input.cwd, 'reports'), names);
  const run = input.steps.some((step) => 'collection' in step) ? await loadNewman() : undefined;
  // The CA through obflow's agent: one TLS context per origin and certificate for the whole run instead of one per
  // request (src/run/tls-agent.ts). Its keep-alive sockets close with the run.
  const httpsAgent =
    input.sslExtraCaCerts === undefined
      ? undefined
      : new ExtraCaAgent((await readMaterialFile(input.sslExtraCaCerts, 'server CA bundle')).toString('utf8'));
  // newman reads the client certificate's files before every request: from memory for this run (certificate-files.ts).
  const releaseCertificateFiles = run === undefined ? undefined : await keepCertificateFiles(input.sslClientCertList);
  try {
    const context = createContext(input, run, httpsAgent);
    return await runAll(context);
  } finally {
    releaseCertificateFiles?.();
    httpsAgent?.destroy();
  }
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
      const local = await runLocalStep(context, step, environment);
      environment = local.environment;
      steps.push(local.result);
      continue;
    }
    // One newman run for consecutive collection steps and the observing local steps after them (the id_token checks).
    const batch: RunStep[] = [];
    for (let next = input.steps[index]; next !== undefined && ('collection' in next || next.observe === true); next = input.steps[index]) {
      batch.push(next);
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
    if (step.skipped !== undefined) step.skipped = step.skipped.map((skip) => ({ item: skip.item, reason: redactor.text(skip.reason) }));
  }
  const failed = steps.find((step) => !step.passed);
  const complete = input.steps.every((step) => steps.some((result) => result.name === step.name));
  const result: RunResult = {
    passed: failed === undefined && complete,
    steps,
    planned: input.steps.map((step) => step.name),
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

/** One newman.run over consecutive collection steps and the observing local steps after them: its events out through
 *  the dispatch, its steps' results into context.steps in plan order; returns the environment after it. */
async function runBatch(context: RunContext, members: readonly RunStep[], environment: PostmanEnvironment): Promise<PostmanEnvironment> {
  const { input, dispatch, redactor, tally } = context;
  if (context.run === undefined) throw new TypeError('newman not loaded');
  const batch = members.filter((member): member is CollectionStep => 'collection' in member);
  const names = batch.map((member) => member.name);
  // The observers after each collection step (the plan puts them right after it).
  const observers = new Map<string, LocalStep[]>();
  let after = '';
  for (const member of members) {
    if ('collection' in member) after = member.name;
    else observers.set(after, [...(observers.get(after) ?? []), member]);
  }
  const observed = new Map<string, StepResult>();
  const label = names.length === 1 ? (names[0] ?? '') : `${names[0] ?? ''}..${names[names.length - 1] ?? ''}`;
  const reports = context.reportHooks.map((hook) => ({ hook, ...hook.open(names) }));
  const files = reports.map((report) => report.file);
  const attributedBefore = tally.attributedFailures();
  // An item's events wait for its end: the secrets its scripts set are learned before they go out redacted.
  const held: RunEvent[] = [];
  let openStep: string | undefined;
  let stopped = false;
  let observerError: { error: unknown } | undefined;
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
  /** The observers after a collection step, on the environment as its scripts left it; false: stop the run (a check
   *  failed and the run bails — as when they ran between two newman runs, the code is then never used). */
  const observe = async (step: string, values: Parameters<typeof environmentFromNewman>[0]): Promise<boolean> => {
    flush();
    endOpenStep();
    let current = environmentFromNewman(values, environment, context.secretKeys);
    let go = true;
    try {
      for (const observer of observers.get(step) ?? []) {
        if (observed.has(observer.name) || !go) continue;
        const local = await runLocalStep(context, observer, current);
        current = local.environment;
        observed.set(observer.name, local.result);
        go = local.result.passed || input.bail === false;
      }
    } catch (error) {
      // Thrown once newman has stopped (as a local step's error between runs ends the run).
      observerError = { error };
      go = false;
    }
    stopped = !go;
    return go;
  };
  const sink: BatchSink = {
    event: (event) => void (stopped ? undefined : held.push(event)),
    variable: (key, value) => redactor.learnVariable(key, value),
    itemEnd: flush,
    observed: new Set(observers.keys()),
    stepDone: observe,
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
        ...(input.keepTransactionBodies === true ? { keepTransactionBodies: true } : {}),
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
  const final = outcome.summary.environment.toJSON();
  const next = environmentFromNewman(final, environment, context.secretKeys);
  redactor.learnEnvironment(next);
  flush();
  endOpenStep();
  // The last step newman reached: its observers run now, unless it failed and the run bails (as between runs).
  const last = [...names].reverse().find((name) => tally.resultOf(name) !== undefined);
  const failed = names.some((name) => tally.resultOf(name)?.passed === false);
  if (!stopped && last !== undefined && (!failed || input.bail === false)) await observe(last, final);
  // Redacted before anything below can throw: a batch's report is never left with the secrets it saw.
  for (const report of reports) await report.hook.close(report.file, true);
  if (observerError !== undefined) throw observerError.error;
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
  for (const member of members) {
    const result = 'collection' in member ? tally.resultOf(member.name) : observed.get(member.name);
    if (result !== undefined) steps.push('collection' in member ? { ...result, reports: files } : result);
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
