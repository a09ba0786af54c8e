// A live line on a terminal while a step runs longer than a second: the requests done, the transaction pages read,
// the account it is at (jo's 104 pages take seconds). Redrawn in place at most every 100 ms and erased when the step
// ends, so the lines the run prints stay as they are. Only for a TTY: the CLI never hands it to a run with --json,
// --quiet or a stdout that is not a terminal (CI logs stay a line per step).

import type { RunEvent, RunSubscriber } from '../events.js';

export interface LiveLineOptions {
  /** Writes to the terminal (no newline is ever written). */
  write(text: string): void;
  /** Milliseconds clock; default Date.now. */
  now?: () => number;
  /** A step is shown once it has run this long; default 1000 ms. */
  afterMs?: number;
  /** The terminal's width: the line is cut to fit, so it never wraps (a wrapped line cannot be erased). */
  columns?: number;
}

/** Erase the current line and go to its start (CSI 2K). */
export const ERASE_LINE = '\r\u001b[2K';

const REDRAW_MS = 100;

/** The AIS v3.1 path segments the line names: the account (…/accounts/{AccountId}/…) and a transactions page. */
const ACCOUNT = /\/accounts\/([^/?#]+)/;
const TRANSACTIONS = /\/transactions(\?|$)/;

export function createLiveLine(options: LiveLineOptions): RunSubscriber {
  const now = options.now ?? Date.now;
  const afterMs = options.afterMs ?? 1000;
  const width = Math.max(20, (options.columns ?? 80) - 1);
  let step: string | undefined;
  let began = 0;
  let requests = 0;
  let pages = 0;
  let account = '';
  let shown = false;
  let drawn = 0;
  const erase = (): void => {
    if (shown) options.write(ERASE_LINE);
    shown = false;
  };
  const draw = (): void => {
    const at = now();
    if (step === undefined || at - began < afterMs || (shown && at - drawn < REDRAW_MS)) return;
    const parts = [`${requests} request${requests === 1 ? '' : 's'}`];
    if (pages > 0) parts.push(`${pages} page${pages === 1 ? '' : 's'} of transactions`);
    if (account !== '') parts.push(`account ${account}`);
    const text = `${step}: ${parts.join(', ')} (${((at - began) / 1000).toFixed(1)} s)`;
    options.write(`${ERASE_LINE}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    shown = true;
    drawn = at;
  };
  return {
    onEvent(event: RunEvent) {
      if (event.type === 'step' && event.phase === 'begin') {
        erase();
        step = event.step;
        began = now();
        requests = 0;
        pages = 0;
        account = '';
      } else if (event.type === 'request' && event.step === step) {
        requests += 1;
        const path = event.url.replace(/^[a-z]+:\/\/[^/]+/i, '');
        if (TRANSACTIONS.test(path)) pages += 1;
        account = ACCOUNT.exec(path)?.[1] ?? account;
        draw();
      } else if ((event.type === 'step' && event.phase === 'end') || event.type === 'done') {
        erase();
        step = undefined;
      }
    },
    finish: async () => {
      erase();
      return [];
    },
  };
}
