// The requests of a run as the summary reads them (RunResult.executions → src/run/summary.ts names the accounts from
// the GET /aisp/accounts body): one record per request event, with its parsed body where the event carries one.

import type { RunEvent, RunSubscriber } from '../events.js';
import type { ExecutionRecord } from '../result.js';

export interface ExecutionLog extends RunSubscriber {
  readonly records: ExecutionRecord[];
}

export function createExecutionLog(): ExecutionLog {
  const records: ExecutionRecord[] = [];
  return {
    records,
    onEvent(event: RunEvent) {
      if (event.type !== 'request') return;
      records.push({
        step: event.step,
        item: event.item,
        method: event.method,
        url: event.url,
        status: event.status,
        ...(event.json !== undefined ? { json: event.json } : {}),
      });
    },
  };
}
