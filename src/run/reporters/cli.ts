// The `cli` reporter: obflow's progress lines for people — a `▸ step` header, one line per request (method, path
// without its query, status or error), one ✓/✗ line per assertion, a line per local step — through the log seam, so
// --quiet/--json silence it. Events arrive redacted (src/run/events.ts).

import type { ReporterFactory, RunEvent } from '../events.js';

/** The lines one event prints (none for most). */
export function progressLines(event: RunEvent): string[] {
  switch (event.type) {
    case 'step':
      if (event.kind === 'collection') return event.phase === 'begin' ? [`▸ ${event.step}`] : [];
      return event.phase === 'end' ? [`${event.result.passed ? '✓' : '✗'} ${event.step} (local)`] : [];
    case 'request': {
      const path = event.url.replace(/^https:\/\/[^/]+/, '').replace(/\?.*$/, '');
      const outcome = event.failure !== undefined ? `error: ${event.failure.message}` : String(event.status ?? '');
      return [`  ${event.item}  ${event.method} ${path} → ${outcome}`];
    }
    case 'assertion':
      if (event.status === 'skipped') return [];
      return [event.status === 'failed' ? `    ✗ ${event.name}: ${event.message ?? ''}` : `    ✓ ${event.name}`];
    default:
      return [];
  }
}

export const createCliReporter: ReporterFactory = (context) => ({
  onEvent(event) {
    for (const line of progressLines(event)) context.log(line);
  },
});
