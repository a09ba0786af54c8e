// newman's engine (postman-runtime) hands control from one instruction of a request to the next with `setTimeout(fn,
// 0)` (lib/runner/instruction.js, run.js: seven a request), and Node.js runs a 0 ms timeout no sooner than 1 ms later,
// at the event loop's next timer phase. When the bank answers in microseconds (the embedded emulator, a bank on this
// machine) the main thread sleeps through every one of them: ~25 % of the demo's run step was idle. While
// a newman run is in flight, a zero-delay `setTimeout` of the global scope is `setImmediate` — the same contract:
// after the current task and after the I/O that is ready, only without the sleep — and `clearTimeout` clears it. A
// delay of 1 ms or more keeps its timer; `node:timers`, which postman-sandbox hands the collections' scripts, is
// untouched (a script's setTimeout behaves as in Postman). postman-runtime uses no Timeout method on these handles.

interface Globals {
  setTimeout: typeof globalThis.setTimeout;
  clearTimeout: typeof globalThis.clearTimeout;
}

let runs = 0;
let saved: Globals | undefined;

/** Whether a handle is one of ours (an Immediate), for clearTimeout. */
function isImmediate(handle: unknown): handle is NodeJS.Immediate {
  return typeof handle === 'object' && handle !== null && '_onImmediate' in handle;
}

/**
 * Zero-delay timeouts run as immediates until the returned release is called (once per run; nested runs count, the
 * last release restores the globals as they were).
 */
export function zeroDelayAsImmediate(): () => void {
  runs += 1;
  if (saved === undefined) {
    const original: Globals = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
    saved = original;
    const setTimeoutZeroAsImmediate = function (this: unknown, callback: unknown, delay?: unknown, ...args: unknown[]) {
      if (typeof callback === 'function' && !(Number(delay) >= 1)) {
        return setImmediate(callback as (...args: unknown[]) => void, ...args);
      }
      return (original.setTimeout as (...all: unknown[]) => unknown).call(this, callback, delay, ...args);
    };
    // util.promisify(setTimeout) keeps working while a run is in flight.
    Object.assign(setTimeoutZeroAsImmediate, original.setTimeout);
    globalThis.setTimeout = setTimeoutZeroAsImmediate as unknown as typeof globalThis.setTimeout;
    globalThis.clearTimeout = ((handle?: unknown) => {
      if (isImmediate(handle)) clearImmediate(handle);
      else original.clearTimeout(handle as Parameters<typeof clearTimeout>[0]);
    }) as typeof globalThis.clearTimeout;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    runs -= 1;
    if (runs > 0 || saved === undefined) return;
    globalThis.setTimeout = saved.setTimeout;
    globalThis.clearTimeout = saved.clearTimeout;
    saved = undefined;
  };
}
