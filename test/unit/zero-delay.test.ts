// Zero-delay timeouts as immediates while a newman run is in flight (src/run/zero-delay.ts): postman-runtime's
// seven `setTimeout(fn, 0)` hand-overs a request no longer sleep 1 ms each; a real delay keeps its timer, clearTimeout
// still cancels, and the globals are back as they were when the (last) run ends.

import { EventEmitter } from 'node:events';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { runNewmanBatch, type BatchInput } from '../../src/run/newman-adapter.js';
import type { NewmanRun, NewmanSummary } from '../../src/run/newman-types.js';
import { zeroDelayAsImmediate } from '../../src/run/zero-delay.js';

const ORIGINAL = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
let releases: (() => void)[] = [];
afterEach(() => {
  for (const release of releases) release();
  releases = [];
  expect(globalThis.setTimeout).toBe(ORIGINAL.setTimeout);
});

const hold = () => {
  const release = zeroDelayAsImmediate();
  releases.push(release);
  return release;
};
const kind = (handle: unknown) => (typeof handle === 'object' && handle !== null && '_onImmediate' in handle ? 'immediate' : 'timeout');

describe('zero-delay timeouts while a run is in flight', () => {
  it('run as immediates (0, no delay, below 1 ms); a delay of 1 ms or more keeps its timer', async () => {
    hold();
    const order: string[] = [];
    const timed = new Promise<string>((resolve) => {
      expect(kind(setTimeout(resolve, 1, '1 ms'))).toBe('timeout');
    });
    const handles = [
      setTimeout(() => order.push('0'), 0),
      setTimeout(() => order.push('none')),
      setTimeout((value: string) => order.push(value), 0.5, 'argument'),
    ];
    expect(handles.map(kind)).toEqual(['immediate', 'immediate', 'immediate']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['0', 'none', 'argument']);
    await expect(timed).resolves.toBe('1 ms');
  });

  it('are cancelled by clearTimeout, and util.promisify(setTimeout) still resolves with its value', async () => {
    hold();
    let called = false;
    clearTimeout(setTimeout(() => (called = true), 0));
    await expect(promisify(setTimeout)(0, 'value')).resolves.toBe('value');
    await new Promise((resolve) => setImmediate(resolve));
    expect(called).toBe(false);
  });

  it('end with the last of nested runs: the globals are restored exactly, a second release changes nothing', () => {
    const first = hold();
    const second = hold();
    expect(globalThis.setTimeout).not.toBe(ORIGINAL.setTimeout);
    first();
    first();
    expect(globalThis.setTimeout).not.toBe(ORIGINAL.setTimeout);
    second();
    expect(globalThis.setTimeout).toBe(ORIGINAL.setTimeout);
    expect(globalThis.clearTimeout).toBe(ORIGINAL.clearTimeout);
  });
});

describe('runNewmanBatch', () => {
  it('holds zero-delay timeouts as immediates for the run, and only for the run', async () => {
    const seen: string[] = [];
    const run: NewmanRun = (_options, callback) => {
      seen.push(kind(setTimeout(() => undefined, 0)));
      const emitter = new EventEmitter();
      setTimeout(() => callback(null, {} as NewmanSummary), 5);
      return emitter as unknown as ReturnType<NewmanRun>;
    };
    const input: BatchInput = {
      batch: [{ name: 'discovery', collection: { info: { name: 'discovery' }, item: [] } }],
      environment: { id: 'e', name: 'e', values: [], _postman_variable_scope: 'environment' },
      cwd: process.cwd(),
      sslClientCertList: [],
      insecure: false,
      bail: true,
      timeoutRequest: 1000,
      reports: [],
      now: () => new Date(0),
    };
    await runNewmanBatch(run, input, { event: () => undefined, variable: () => undefined, itemEnd: () => undefined });
    expect(seen).toEqual(['immediate']);
    expect(globalThis.setTimeout).toBe(ORIGINAL.setTimeout);
  });
});
