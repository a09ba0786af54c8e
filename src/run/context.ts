// One run's working parts (src/run/runner.ts): its input, newman, the agent, the redactor, the dispatch and its
// subscribers, the results so far — and how a local step runs in it (its checks become the step's assertions).

import { join } from 'node:path';
import type { Agent } from 'node:https';
import { withEnvironmentValues, type PostmanEnvironment } from '../environment/merge.js';
import { EventDispatch } from './dispatch.js';
import type { NewmanReportHook, RunEvent, StepKind } from './events.js';
import type { NewmanRun } from './newman-types.js';
import { Redactor } from './redaction.js';
import { DEFAULT_REPORTERS, REPORTERS } from './reporters/index.js';
import type { StepResult } from './result.js';
import { splitOutcome, type RunStep, type RunStepsInput } from './steps.js';
import { createExecutionLog, type ExecutionLog } from './subscribers/executions.js';
import { createTally, type Tally } from './subscribers/tally.js';

export interface RunContext {
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

export function createContext(input: RunStepsInput, run: NewmanRun | undefined, httpsAgent: Agent | undefined): RunContext {
  const secretKeys = new Set(input.secretKeys === undefined ? [] : [...input.secretKeys]);
  const redactor = new Redactor(secretKeys);
  redactor.learnEnvironment(input.environment);
  const log = input.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const reportDir = input.reportDir ?? join(input.cwd, 'reports');
  const reporters = (input.reporters ?? DEFAULT_REPORTERS).map((name) =>
    REPORTERS[name]({
      cwd: input.cwd,
      reportDir,
      log,
      redact: redactor.text,
      ...(input.verbose === true ? { verbose: true } : {}),
      ...(input.versionPage !== undefined ? { versionPage: input.versionPage } : {}),
    }),
  );
  const tally = createTally();
  const executions = createExecutionLog();
  const subscribers = [tally, executions, ...(input.first ?? []), ...reporters, ...(input.subscribers ?? [])];
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

export function stepEnd(context: RunContext, step: string, kind: StepKind, result: StepResult): RunEvent {
  return { type: 'step', phase: 'end', step, kind, at: context.now().toISOString(), result };
}

/** Runs one local step on the environment as it stands: its begin, one assertion per check (item = the step, as a
 *  collection's pm.test), its end. Returns the environment with its updates and its result (not yet in steps). */
export async function runLocalStep(
  context: RunContext,
  step: Extract<RunStep, { local: unknown }>,
  environment: PostmanEnvironment,
): Promise<{ environment: PostmanEnvironment; result: StepResult }> {
  const { dispatch, redactor } = context;
  dispatch.emit({ type: 'step', phase: 'begin', step: step.name, kind: 'local', at: context.now().toISOString() });
  const { values, checks, skipped } = splitOutcome(await step.local(environment));
  const next = withEnvironmentValues(environment, values);
  redactor.learnEnvironment(next);
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
  const failures = checks.filter((check) => !check.passed).map((check) => ({ item: step.name, test: check.rule, message: check.message }));
  const assertions = { total: checks.length, failed: failures.length };
  // Nothing to check (e.g. no id_token with response_type code): skipped with the reason, never a pass with 0 checks.
  const reason = skipped !== undefined && checks.length === 0 ? redactor.text(skipped) : undefined;
  if (reason !== undefined) dispatch.emit({ type: 'skip', step: step.name, item: step.name, reason });
  const result: StepResult = {
    name: step.name,
    passed: failures.length === 0,
    requests: 0,
    assertions,
    failures,
    reports: [],
    ...(reason !== undefined ? { skipped: [{ item: step.name, reason }] } : {}),
  };
  dispatch.emit(stepEnd(context, step.name, 'local', result));
  return { environment: next, result };
}
