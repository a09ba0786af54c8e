// The live line of a long run step: nothing for a short step, then requests, transaction pages and the account,
// redrawn in place and erased when the step ends; only on a terminal, never with --json or --quiet.

import { describe, expect, it } from 'vitest';
import { createOutput, type CliIo } from '../../src/cli/output.js';
import { liveLineFor } from '../../src/cli/context.js';
import type { RunEvent } from '../../src/run/events.js';
import { createLiveLine, ERASE_LINE } from '../../src/run/subscribers/live-line.js';

const at = '2026-11-25T10:00:00.000Z';
const begin = (step: string): RunEvent => ({ type: 'step', phase: 'begin', step, kind: 'collection', at });
const end = (step: string): RunEvent => ({
  type: 'step',
  phase: 'end',
  step,
  kind: 'collection',
  at,
  result: { name: step, passed: true, requests: 0, assertions: { total: 0, failed: 0 }, failures: [], reports: [] },
});
const page = (account: string, n: number, step = 'transactions'): RunEvent => ({
  type: 'request',
  step,
  item: 'transactions: GET',
  method: 'GET',
  url: `https://rs.example:8443/open-banking/v3.1/aisp/accounts/${account}/transactions?page=${n}`,
  status: 200,
  at,
});

function terminal(): { writes: string[]; clock: { ms: number }; line: ReturnType<typeof createLiveLine> } {
  const writes: string[] = [];
  const clock = { ms: 0 };
  return { writes, clock, line: createLiveLine({ write: (text) => writes.push(text), now: () => clock.ms, columns: 100 }) };
}

describe('live line', () => {
  it('stays silent for a step shorter than a second', async () => {
    const { writes, clock, line } = terminal();
    await line.onEvent(begin('accounts'));
    clock.ms = 900;
    await line.onEvent(page('acc-1', 1, 'accounts'));
    await line.onEvent(end('accounts'));
    expect(writes).toEqual([]);
  });

  it('after a second shows requests, pages and the account, redraws at most every 100 ms, erases at the end', async () => {
    const { writes, clock, line } = terminal();
    await line.onEvent(begin('transactions'));
    clock.ms = 1200;
    await line.onEvent(page('acc-1', 1));
    expect(writes).toEqual([`${ERASE_LINE}transactions: 1 request, 1 page of transactions, account acc-1 (1.2 s)`]);
    clock.ms = 1250;
    await line.onEvent(page('acc-1', 2));
    expect(writes).toHaveLength(1);
    clock.ms = 1400;
    await line.onEvent(page('acc-2', 1));
    expect(writes[1]).toBe(`${ERASE_LINE}transactions: 3 requests, 3 pages of transactions, account acc-2 (1.4 s)`);
    await line.onEvent(end('transactions'));
    expect(writes[2]).toBe(ERASE_LINE);
    expect(writes.join('')).not.toContain('\n');
  });

  it('never wraps: the line is cut to the terminal width', async () => {
    const writes: string[] = [];
    const clock = { ms: 0 };
    const line = createLiveLine({ write: (text) => writes.push(text), now: () => clock.ms, columns: 30 });
    await line.onEvent(begin('transactions'));
    clock.ms = 2000;
    await line.onEvent(page('a-very-long-account-identifier', 1));
    expect((writes[0] ?? '').slice(ERASE_LINE.length).length).toBeLessThanOrEqual(29);
  });
});

describe('liveLineFor: a terminal only, never with --json or --quiet', () => {
  const io = (isTTY: boolean): CliIo => ({
    stdout: Object.assign(
      new (class {
        write(): boolean {
          return true;
        }
      })() as unknown as NodeJS.WritableStream,
      { isTTY },
    ),
    stderr: process.stderr,
    env: {},
    cwd: '/',
  });
  const core = { createLiveLine };
  it.each([
    [true, false, false, true],
    [false, false, false, false],
    [true, true, false, false],
    [true, false, true, false],
  ])('stdout TTY %s, --json %s, --quiet %s: a live line %s', (tty, json, quiet, expected) => {
    const cli = io(tty);
    const state = { io: cli, output: createOutput(cli, { json, quiet }) };
    expect(liveLineFor(state, core) !== undefined).toBe(expected);
  });
});
