// The `cli` reporter: obflow's progress lines for people, through the log seam (so --quiet/--json silence it). By
// default one line per step when it ends — ✓ passed, ✗ failed, – skipped with its reason — and one line naming the
// steps a failure left unreached; `--verbose` adds each step's requests (method, path without its query, status or
// error) and checks, each check once (a local step's check that repeats one its collection step printed — the id_token
// signature — is not printed again). Events arrive redacted (src/run/events.ts).

import type { ReporterFactory, RunEvent, StepEndEvent } from '../events.js';
import { skipReasonOf, stepStatus } from '../result.js';

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The one line of a step that ended: its verdict, what it did, and why it was skipped. */
export function stepLine(event: StepEndEvent): string {
  const { result } = event;
  const status = stepStatus(result);
  if (status === 'skipped') return `– ${event.step}  skipped: ${skipReasonOf(result)}`;
  const parts = event.kind === 'collection' ? [plural(result.requests, 'request')] : [];
  const { total, failed } = result.assertions;
  parts.push(failed > 0 ? `${failed} of ${plural(total, 'check')} failed` : plural(total, 'check'));
  const skipped = result.skipped?.length ?? 0;
  if (skipped > 0) parts.push(`${skipped} skipped (${skipReasonOf(result)})`);
  if (result.transport !== undefined) parts.push('no answer');
  return `${status === 'failed' ? '✗' : '✓'} ${event.step}  ${parts.join(', ')}`;
}

/** The lines one event prints with `--verbose` (none for most). */
export function progressLines(event: RunEvent): string[] {
  switch (event.type) {
    case 'step':
      return event.phase === 'begin' ? [`▸ ${event.step}${event.kind === 'local' ? ' (local)' : ''}`] : [stepLine(event)];
    case 'request': {
      const path = event.url.replace(/^https:\/\/[^/]+/, '').replace(/\?.*$/, '');
      const outcome = event.failure !== undefined ? `error: ${event.failure.message}` : String(event.status ?? '');
      return [`  ${event.item}  ${event.method} ${path} → ${outcome}`];
    }
    case 'skip':
      return [`  ${event.item}  – skipped: ${event.reason}`];
    case 'assertion':
      if (event.status === 'skipped') return [];
      return [event.status === 'failed' ? `    ✗ ${event.name}: ${event.message ?? ''}` : `    ✓ ${event.name}`];
    default:
      return [];
  }
}

export const createCliReporter: ReporterFactory = (context) => {
  let planned: string[] = [];
  const ended = new Set<string>();
  // Passed checks printed since the last collection step began: its local observers' repeats are left out.
  let printed = new Set<string>();
  return {
    onEvent(event) {
      if (event.type === 'start') planned = event.steps.map((step) => step.name);
      if (event.type === 'step' && event.phase === 'end') ended.add(event.step);
      if (event.type === 'done') {
        const unreached = planned.filter((name) => !ended.has(name));
        if (unreached.length > 0) context.log(`· not reached: ${unreached.join(', ')}`);
        return;
      }
      if (context.verbose !== true) {
        if (event.type === 'step' && event.phase === 'end') context.log(stepLine(event));
        return;
      }
      if (event.type === 'step' && event.phase === 'begin' && event.kind === 'collection') printed = new Set();
      if (event.type === 'assertion' && event.status === 'passed') {
        if (printed.has(event.name)) return;
        printed.add(event.name);
      }
      for (const line of progressLines(event)) context.log(line);
    },
  };
};
