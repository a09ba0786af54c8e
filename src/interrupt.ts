// Interrupts (Ctrl-C = SIGINT, SIGTERM from CI or `kill`): what runs before the process ends, for the core and the CLI
// alike. Commands register what must not outlive them (the embedded sandbox and its temporary data folder, an open
// prompt line); `obflow sandbox` instead takes the signal as its stop command. src/cli/main.ts installs the handlers
// and alone decides the exit code (docs/errors.md, "Interrupts").

import { rmSync } from 'node:fs';
import { pendingTemporaryFiles, settleTemporaryWrites } from './fs.js';

export type InterruptSignal = 'SIGINT' | 'SIGTERM';
type Cleanup = () => Promise<void> | void;

const cleanups = new Set<Cleanup>();
const stopWaiters = new Set<(signal: InterruptSignal) => void>();

/** Runs `cleanup` if the process is interrupted before the returned function is called (in reverse order of
 *  registration: what started last stops first). */
export function onInterrupt(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/** For a command whose normal end is a signal (`obflow sandbox`): resolves with the first SIGINT/SIGTERM, which then
 *  interrupts nothing — the command stops in its own way and ends with its own exit code. */
export function whenStopRequested(): Promise<InterruptSignal> {
  return new Promise((resolve) => {
    const waiter = (signal: InterruptSignal) => {
      stopWaiters.delete(waiter);
      resolve(signal);
    };
    stopWaiters.add(waiter);
  });
}

/** Hands the signal to a command waiting for it; true when one took it (the process goes on). */
export function requestStop(signal: InterruptSignal): boolean {
  const waiter = stopWaiters.values().next().value;
  if (waiter === undefined) return false;
  waiter(signal);
  return true;
}

/**
 * Runs every registered cleanup (each bounded by `timeoutMs`), lets temporary writes in flight settle, then removes the
 * temporary files of atomic writes not yet in place: the files obflow writes are either whole or absent, never
 * half-written.
 */
export async function runInterruptCleanups(timeoutMs = 10_000): Promise<void> {
  const pending = [...cleanups].reverse();
  cleanups.clear();
  for (const cleanup of pending) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.resolve()
        .then(cleanup)
        .catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      }),
    ]);
    if (timer !== undefined) clearTimeout(timer);
  }
  // A write whose open(2) is still on the thread pool would create its temporary file after the removal below.
  await settleTemporaryWrites(2_000);
  removeTemporaryFiles();
}

/** Synchronous, so it also runs on the second signal that ends the process at once. */
export function removeTemporaryFiles(): void {
  for (const file of pendingTemporaryFiles()) {
    try {
      rmSync(file, { force: true, recursive: true });
    } catch {
      // Permissions or a busy file: the others are still removed, and a signal handler never throws a stack trace.
    }
  }
}
