// The process's heap policy (src/cli/heap.ts): which policy a process gets, what each asks of V8 step by
// step (through a recording HeapControl), and the compile caches kept apart per set of flags. Its effect on a real
// V8 heap and on the compile cache: test/cli/heap.test.ts.

import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { heapFlagsFolder } from '../../src/cli/compile-cache.js';
import { applyHeapPolicy, heapFlags, heapPolicyName, type HeapControl } from '../../src/cli/heap.js';
import { codeOf, errorOf } from '../helpers/errors.js';

const distUrl = (path: string): string => pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', path)).href;

/** A HeapControl that records what the policy does. */
function recordingHeap() {
  const calls: string[] = [];
  const started: Array<() => void> = [];
  const exits: Array<() => void> = [];
  return {
    calls,
    newmanStarted: () => started.forEach((then) => then()),
    exit: () => exits.forEach((then) => then()),
    control: {
      setFlags: (flags: string) => calls.push(flags),
      growYoungGeneration: (mib: number) => calls.push(`grow the young generation to ${mib} MiB`),
      onNewmanStarted: (then: () => void) => started.push(then),
      onExit: (then: () => void) => exits.push(then),
      fullGc: () => calls.push('full gc'),
    } satisfies HeapControl,
  };
}

describe('heapPolicyName', () => {
  it('is lean unless OBFLOW_HEAP says v8', () => {
    expect(heapPolicyName({}, 'demo')).toBe('lean');
    expect(heapPolicyName({ OBFLOW_HEAP: 'lean' }, 'run')).toBe('lean');
    expect(heapPolicyName({ OBFLOW_HEAP: 'v8' }, 'demo')).toBe('v8');
    expect(heapPolicyName({}, undefined)).toBe('lean');
  });

  it("keeps V8's defaults for `obflow sandbox`, a server", () => {
    expect(heapPolicyName({}, 'sandbox')).toBe('v8');
    expect(heapPolicyName({ OBFLOW_HEAP: 'lean' }, 'sandbox')).toBe('v8');
  });

  it('refuses another value with a coded error and a hint naming the policies', () => {
    const error = errorOf(() => heapPolicyName({ OBFLOW_HEAP: 'small' }, 'demo'));
    expect(codeOf(() => heapPolicyName({ OBFLOW_HEAP: 'small' }, 'demo'))).toBe('ERR_CONFIG_INVALID');
    expect(error?.message).toBe('OBFLOW_HEAP=small is not a heap policy');
    expect(error?.hint).toContain('lean, v8');
  });
});

describe('applyHeapPolicy', () => {
  it('v8: asks nothing of V8', () => {
    const heap = recordingHeap();
    applyHeapPolicy('v8', heap.control);
    heap.newmanStarted();
    heap.exit();
    expect(heap.calls).toEqual([]);
  });

  it('lean: from the start of a newman run (run, demo), the young generation is grown to 8 MiB, then grows no more', () => {
    for (const command of ['run', 'demo']) {
      const heap = recordingHeap();
      applyHeapPolicy('lean', heap.control, command);
      expect(heap.calls).toEqual(['grow the young generation to 8 MiB', '--semi-space-growth-factor=1']);
      expect(heapFlags('lean')).toEqual(heap.calls.slice(1));
    }
  });

  it('lean: for another command, or none (`obflow --help`), the young generation only grows no more', () => {
    for (const command of ['generate', 'register', undefined]) {
      const heap = recordingHeap();
      applyHeapPolicy('lean', heap.control, command);
      expect(heap.calls).toEqual(['--semi-space-growth-factor=1']);
    }
  });

  it("lean: once newman's first run has started, the old generation grows by 25 % and one full GC sets its limit", () => {
    const heap = recordingHeap();
    applyHeapPolicy('lean', heap.control, 'run');
    heap.newmanStarted();
    expect(heap.calls.slice(2)).toEqual(['--heap-growing-percent=25', 'full gc']);
  });

  it("lean: at exit, the late flag is unset, so Node.js's compile cache is written under the flags of a start", () => {
    const heap = recordingHeap();
    applyHeapPolicy('lean', heap.control, 'run');
    heap.exit();
    expect(heap.calls.slice(2)).toEqual([]);
    heap.newmanStarted();
    heap.exit();
    expect(heap.calls.slice(4)).toEqual(['--heap-growing-percent=0']);
  });
});

describe('the compile caches, one per set of heap flags (V8 rejects code cached under other flags)', () => {
  it("the module cache's folder: a subfolder for the lean flags, the folder itself for none", () => {
    expect(heapFlagsFolder('/c', heapFlags('v8'))).toBe('/c');
    expect(heapFlagsFolder('/c', heapFlags('lean'))).toMatch(/^\/c\/heap-[0-9a-f]{8}$/);
  });
});

describe('the channel the policy waits for', () => {
  // In a process of its own: files may share a worker's modules (vitest.config.ts), and the channel is published once
  // per process. A real newman run of an empty collection: newman makes its script sandbox, then starts.
  it("is published once, at the start of newman's first run, not at its loading", () => {
    const script = [
      "import diagnosticsChannel from 'node:diagnostics_channel';",
      'const [channels, load, adapter] = await Promise.all(process.argv.slice(1, 4).map((url) => import(url)));',
      'let published = 0;',
      'diagnosticsChannel.subscribe(channels.NEWMAN_STARTED, () => (published += 1));',
      'const run = await load.loadNewman();',
      'const afterLoading = published;',
      "const collection = { info: { name: 'empty', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' }, item: [] };",
      "const input = { batch: [{ name: 'empty', collection }], environment: { id: 'e', name: 'e', values: [] }, cwd: process.argv[4],",
      '  sslClientCertList: [], insecure: false, bail: false, timeoutRequest: 1000, reports: [], now: () => new Date() };',
      'const sink = { event: () => undefined, variable: () => undefined, itemEnd: () => undefined };',
      'await adapter.runNewmanBatch(run, input, sink);',
      'await adapter.runNewmanBatch(run, input, sink);',
      'console.log(JSON.stringify({ afterLoading, afterTwoRuns: published }));',
    ].join('\n');
    const urls = ['run/channels.js', 'run/newman-load.js', 'run/newman-adapter.js'].map(distUrl);
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, ...urls, tmpdir()], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ afterLoading: 0, afterTwoRuns: 1 });
  });
});
