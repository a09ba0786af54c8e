// What the tests ask of an ObflowError: its code (or the whole error) when a call throws or a promise rejects with one.
// A success gives undefined; any other error is rethrown, so the test fails with it.

import { isObflowError } from '../../src/errors.js';
import type { ObflowError } from '../../src/errors.js';

/** The ObflowError `run` throws (a function), or its promise rejects with (a promise or a function returning one). */
export function errorOf(run: Promise<unknown> | (() => Promise<unknown>)): Promise<ObflowError | undefined>;
export function errorOf(run: () => unknown): ObflowError | undefined;
export function errorOf(run: Promise<unknown> | (() => unknown)): ObflowError | undefined | Promise<ObflowError | undefined> {
  const caught = (error: unknown): ObflowError => {
    if (isObflowError(error)) return error;
    throw error;
  };
  let result: unknown;
  try {
    result = typeof run === 'function' ? run() : run;
  } catch (error) {
    return caught(error);
  }
  if (result instanceof Promise) return result.then(() => undefined, caught);
  return undefined;
}

/** The code of the ObflowError `run` throws or rejects with; undefined when it succeeds. */
export function codeOf(run: Promise<unknown> | (() => Promise<unknown>)): Promise<string | undefined>;
export function codeOf(run: () => unknown): string | undefined;
export function codeOf(run: Promise<unknown> | (() => unknown)): string | undefined | Promise<string | undefined> {
  const outcome = errorOf(run as () => unknown) as ObflowError | undefined | Promise<ObflowError | undefined>;
  return outcome instanceof Promise ? outcome.then((error) => error?.code) : outcome?.code;
}
