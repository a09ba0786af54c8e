// Per-step tallies of a run — requests, assertions, failures, the first transport failure — from its events; the
// runner reads a step's result from it when the step ends (StepResult, src/run/result.ts).

import type { RunEvent, RunSubscriber } from '../events.js';
import type { StepFailure, StepResult, StepSkip, TransportFailure } from '../result.js';

interface StepTally {
  requests: number;
  total: number;
  failed: number;
  failures: StepFailure[];
  skipped: StepSkip[];
  transport?: TransportFailure;
}

export interface Tally extends RunSubscriber {
  /** The step's result so far; undefined when no event named it (newman stopped before it: bail). */
  resultOf(step: string): StepResult | undefined;
  /** Failures attributed to any step (the runner compares it with newman's own count). */
  attributedFailures(): number;
}

export function createTally(): Tally {
  const tallies = new Map<string, StepTally>();
  const tallyOf = (step: string): StepTally => {
    let tally = tallies.get(step);
    if (tally === undefined) {
      tally = { requests: 0, total: 0, failed: 0, failures: [], skipped: [] };
      tallies.set(step, tally);
    }
    return tally;
  };
  const onEvent = (event: RunEvent): void => {
    switch (event.type) {
      case 'step':
        if (event.phase === 'begin') tallyOf(event.step);
        return;
      case 'request': {
        const tally = tallyOf(event.step);
        tally.requests += 1;
        if (event.failure !== undefined) {
          // No HTTP answer at all: the step's assertions that follow fail only as a consequence. Keep the first cause.
          tally.failures.push({ item: event.item, test: 'request', message: event.failure.message });
          tally.transport ??= event.failure;
        }
        return;
      }
      case 'assertion': {
        if (event.status === 'skipped') return;
        const tally = tallyOf(event.step);
        tally.total += 1;
        if (event.status === 'failed') {
          tally.failed += 1;
          tally.failures.push({ item: event.item, test: event.name, message: event.message ?? '' });
        }
        return;
      }
      case 'skip':
        tallyOf(event.step).skipped.push({ item: event.item, reason: event.reason });
        return;
      case 'script':
        // A script that throws outside pm.test (e.g. JSON.parse of a non-JSON body) is a failure of its step too.
        tallyOf(event.step).failures.push({ item: event.item, test: event.name, message: event.message });
        return;
      default:
    }
  };
  return {
    onEvent,
    resultOf(step) {
      const tally = tallies.get(step);
      if (tally === undefined) return undefined;
      return {
        name: step,
        passed: tally.failures.length === 0 && tally.failed === 0,
        requests: tally.requests,
        assertions: { total: tally.total, failed: tally.failed },
        failures: [...tally.failures],
        reports: [],
        ...(tally.skipped.length > 0 ? { skipped: [...tally.skipped] } : {}),
        ...(tally.transport !== undefined ? { transport: tally.transport } : {}),
      };
    },
    attributedFailures: () => [...tallies.values()].reduce((sum, tally) => sum + tally.failures.length, 0),
  };
}
