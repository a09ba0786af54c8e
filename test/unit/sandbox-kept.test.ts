// src/sandbox/kept.ts: the emulator's bounded memos keep at most so many entries, the oldest dropped first.

import { describe, expect, it } from 'vitest';

import { keepAtMost } from '../../src/sandbox/kept.js';

describe('a bounded memo', () => {
  it('drops the oldest entry for a new key once full, and none for a key it holds', () => {
    const map = new Map<string, number>();
    for (const [index, key] of ['a', 'b', 'c'].entries()) keepAtMost(map, 3, key, index);
    keepAtMost(map, 3, 'b', 10);
    expect([...map]).toEqual([
      ['a', 0],
      ['b', 10],
      ['c', 2],
    ]);
    keepAtMost(map, 3, 'd', 3);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
    expect(map.size).toBe(3);
  });
});
