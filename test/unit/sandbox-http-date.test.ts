// The Date header of the emulator's answers (http/io.ts httpDate): formatted once per second of the emulator's clock
// (not once per answer), always the same text as formatting the instant itself, whatever order the clocks of several sandboxes in
// one process read.

import { describe, expect, it } from 'vitest';

import { httpDate } from '../../src/sandbox/http/io.js';

describe('the Date header names the second of the clock that answered', () => {
  it('is the IMF-fixdate of the instant: within one second, across seconds, backwards, and for two clocks in turn', () => {
    const base = Date.parse('2026-11-26T12:00:00.000Z');
    const instants = [0, 1, 999, 1000, 1001, 5999, 6000, 500, -1, -1000, 3_600_000, 1, 3_600_999, 2].map((ms) => new Date(base + ms));
    for (const instant of instants) expect(httpDate(instant), instant.toISOString()).toBe(instant.toUTCString());
    expect(httpDate(new Date(base + 999))).toBe('Thu, 26 Nov 2026 12:00:00 GMT');
    expect(httpDate(new Date(base + 1000))).toBe('Thu, 26 Nov 2026 12:00:01 GMT');
  });
});
