// V8's heap in obflow's own process. A run is newman executing scripts: every execution serialises its
// context into the sandbox and back, megabytes of short-lived garbage a page. Left to V8's defaults, the young
// generation grows to its maximum (32 MiB on Node.js 20, 128 on 24), and the old generation's limit is set at the last
// full GC while modules load — about twice the loaded heap, above a long paging run's whole peak, so no full GC runs
// during the paging — and obflow's process peaked ~40 MiB above plain newman's for the same collection
// (docs/notes.md, "jo's memory"). The `lean` policy, the default:
//   - before the command loads its modules, the young generation stops growing, and for a newman run (`run`, `demo`)
//     it is grown to 8 MiB first: V8 grows it by --semi-space-growth-factor after a scavenge in which enough survived,
//     and has no run-time setting of its size, so obflow makes it grow (batches of objects kept alive across
//     scavenges, ~9 ms) and then sets the factor to 1. Node.js 20 holds it there; 24 and 26 still commit pages to it (12–18 MiB in test/cli/heap.test.ts's
//     probe), where their defaults reach 128 and 64 MiB (32 on 20). Left at 4 MiB (its size at obflow's entry), the
//     default demo's GC took ~215 ms of the main thread against ~90 under V8's sizing; at 8 MiB ~145, at 16 MiB ~130
//     with jo's peak 16 MiB higher (docs/notes.md, "the start's CPU, third pass");
//   - once newman's first run has started (its modules are in, and its script sandbox is made), the old generation
//     grows by 25 % over what the last full GC kept (--heap-growing-percent; V8's own factor is up to 4×), and one full
//     GC sets that limit from the live heap of then. Set from the start instead, it costs ~15 % more CPU on the default
//     demo: full GCs all through loading.
// V8 reads both flags as the heap grows, so setting them at run time takes effect. V8 also rejects code cached under
// other flags: Node.js's compile cache is kept per policy (src/cli/compile-cache.ts), and the late flag is unset again
// as the process exits, before the cache is written, so what it keeps matches the flags of the next start.
// `npm run bench` measures the policy beside V8's defaults (OBFLOW_HEAP=v8): peak RSS, and the CPU it costs.
// `obflow sandbox` keeps V8's defaults: a server's throughput, not a command's footprint.

import diagnosticsChannel from 'node:diagnostics_channel';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ObflowError } from '../errors.js';
import { NEWMAN_STARTED } from '../run/channels.js';

export const HEAP_POLICIES = {
  lean: { youngGenerationMiB: 8, oldGenerationGrowingPercent: 25 },
  v8: undefined,
} as const;

export type HeapPolicyName = keyof typeof HEAP_POLICIES;

/** Commands whose work is a newman run: the young generation is grown for them (for the others, short commands and
 *  `obflow --help`, the growth would cost more than it saves). */
const NEWMAN_COMMANDS: ReadonlySet<string> = new Set(['run', 'demo']);

/** Commands that keep V8's defaults whatever OBFLOW_HEAP says. */
const V8_DEFAULT_COMMANDS: ReadonlySet<string> = new Set(['sandbox']);

/** The policy for this process: OBFLOW_HEAP (lean | v8, default lean), V8's defaults for the commands above. */
export function heapPolicyName(env: NodeJS.ProcessEnv, command: string | undefined): HeapPolicyName {
  const wanted = env.OBFLOW_HEAP ?? 'lean';
  if (!Object.hasOwn(HEAP_POLICIES, wanted)) {
    throw new ObflowError('ERR_CONFIG_INVALID', `OBFLOW_HEAP=${wanted} is not a heap policy`, {
      hint: `Set OBFLOW_HEAP to one of ${Object.keys(HEAP_POLICIES).join(', ')}, or unset it (lean).`,
    });
  }
  return command !== undefined && V8_DEFAULT_COMMANDS.has(command) ? 'v8' : (wanted as HeapPolicyName);
}

/** The V8 flags a policy sets at the start, and so the flags its compile caches are kept under (none: V8's own). */
export function heapFlags(name: HeapPolicyName): string[] {
  const policy = HEAP_POLICIES[name];
  return policy === undefined ? [] : ['--semi-space-growth-factor=1'];
}

/** What the policy does to the process; the real one below, a recording one in tests. */
export interface HeapControl {
  setFlags(flags: string): void;
  /** Grows the young generation to `mib` MiB (or as far as V8 lets it), under V8's own growth factor. */
  growYoungGeneration(mib: number): void;
  /** Calls `then` once newman's first run has started (its modules loaded, its script sandbox made). */
  onNewmanStarted(then: () => void): void;
  /** Calls `then` as the process exits, before any other exit listener (the compile caches write theirs). */
  onExit(then: () => void): void;
  fullGc(): void;
}

export const processHeap: HeapControl = {
  setFlags: (flags) => v8.setFlagsFromString(flags),
  growYoungGeneration: (mib) => {
    // Batches of small arrays (~80 KiB each) kept alive: each scavenge finds them surviving, and V8 grows the young
    // generation once what survived exceeds its size (1 → 2 → … MiB). Where V8 stops short of `mib` (its maximum is
    // lower: --max-semi-space-size, a small heap), the loop stops once twice what a growth needs went by without one.
    const newSpace = (): number => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    let kept: number[][][] | undefined = [];
    let size = newSpace();
    let sinceGrowth = 0;
    while (size < mib * 1024 * 1024 && sinceGrowth <= (2 * size) / (80 * 1024)) {
      const arrays: number[][] = new Array<number[]>(1024);
      for (let index = 0; index < 1024; index += 1) arrays[index] = [index, index + 1, index + 2, index + 3];
      kept.push(arrays);
      const now = newSpace();
      sinceGrowth = now > size ? 0 : sinceGrowth + 1;
      size = now;
    }
    kept = undefined;
  },
  onNewmanStarted: (then) => {
    const once = (): void => {
      diagnosticsChannel.unsubscribe(NEWMAN_STARTED, once);
      then();
    };
    diagnosticsChannel.subscribe(NEWMAN_STARTED, once);
  },
  onExit: (then) => process.prependListener('exit', then),
  fullGc: () => {
    // gc() from a context made while --expose-gc is on, which is off again before any other context is made (newman's
    // script sandboxes never see it). The inspector's collectGarbage would do, but runs later and holds the loop.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
    gc();
  },
};

/** Applies a policy to this process for `command` (the first argument, if any): call it before the modules a command
 *  loads (obflow's entry does). */
export function applyHeapPolicy(name: HeapPolicyName, heap: HeapControl = processHeap, command?: string): void {
  const policy = HEAP_POLICIES[name];
  if (policy !== undefined) {
    if (command !== undefined && NEWMAN_COMMANDS.has(command)) heap.growYoungGeneration(policy.youngGenerationMiB);
    for (const flag of heapFlags(name)) heap.setFlags(flag);
    heap.onNewmanStarted(() => {
      heap.setFlags(`--heap-growing-percent=${policy.oldGenerationGrowingPercent}`);
      heap.fullGc();
      heap.onExit(() => heap.setFlags('--heap-growing-percent=0'));
    });
  }
}
