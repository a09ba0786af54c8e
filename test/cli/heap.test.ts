// The lean heap policy's effect on a real V8 heap (src/cli/heap.ts, issue 34), in a process of its own on this
// Node.js: the young generation keeps its size under allocation that would grow it to V8's maximum, and newman's
// loading is followed by a full GC. Beside it, the same allocation under OBFLOW_HEAP=v8. And a policy obflow does not
// know is one coded line. (What the policy asks of V8, step by step: test/unit/heap-policy.test.ts.)

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const distUrl = (path: string): string => pathToFileURL(join(root, 'dist', path)).href;

// Applies a policy, then: batches of objects of which the last three stay alive (survivors make V8 grow the young
// generation), then ~40 MiB promoted to the old generation and let go, and newman's channel published.
const PROBE = `
import v8 from 'node:v8';
import dc from 'node:diagnostics_channel';
const [heapUrl, channelsUrl, policy] = process.argv.slice(1);
const { applyHeapPolicy } = await import(heapUrl);
const { NEWMAN_LOADED } = await import(channelsUrl);
const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
applyHeapPolicy(policy);
let largest = 0;
const keep = [];
for (let i = 0; i < 150; i++) {
  const batch = [];
  for (let j = 0; j < 20000; j++) batch.push({ j, s: 'x' + j });
  keep.push(batch);
  if (keep.length > 3) keep.shift();
  largest = Math.max(largest, newSpace());
}
let old = [];
for (let i = 0; i < 400000; i++) old.push({ i, s: 'y' + i });
keep.length = 0;
old = null;
const before = v8.getHeapStatistics().used_heap_size;
dc.channel(NEWMAN_LOADED).publish(undefined);
const freed = before - v8.getHeapStatistics().used_heap_size;
console.log(JSON.stringify({ largest, freed }));
`;

function probe(policy: string): { largest: number; freed: number } {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', PROBE, distUrl('cli/heap.js'), distUrl('run/channels.js'), policy],
    {
      encoding: 'utf8',
    },
  );
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as { largest: number; freed: number };
}

const MiB = 1024 * 1024;

describe('the heap policy on a real V8 heap', () => {
  // Node.js 20 holds it at the size of the start exactly (committing its second half: 1 → 2 MiB); 24 and 26 still add
  // a little as they commit pages (1 → 3.5, 0.75 → 5.25 MiB), where V8's defaults reach 128 and 64 MiB.
  it('lean: the young generation stays near its starting size; newman loaded, a full GC frees the garbage', () => {
    const lean = probe('lean');
    expect(lean.largest).toBeLessThanOrEqual(8 * MiB);
    expect(lean.freed).toBeGreaterThan(20 * MiB);
  });

  it("v8: the same allocation grows the young generation to 32 MiB or more, and nothing collects at newman's loading", () => {
    const v8 = probe('v8');
    expect(v8.largest).toBeGreaterThanOrEqual(32 * MiB);
    expect(v8.freed).toBeLessThan(1 * MiB);
  });

  it('a policy obflow does not know: one coded line and a hint, exit 2, before any command runs', () => {
    const result = spawnSync(process.execPath, [join(root, 'dist', 'cli', 'main.js'), '--help'], {
      encoding: 'utf8',
      env: { ...process.env, OBFLOW_HEAP: 'small', NO_COLOR: '1' },
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: ERR_CONFIG_INVALID OBFLOW_HEAP=small is not a heap policy\nhint: Set OBFLOW_HEAP to one of lean, v8, or unset it (lean).\n',
    );
  });
});
