// The run's secrets and their redaction: the values of every secret variable the run has seen (the environment it
// started with, what scripts set during it), replaced by `[redacted]` in every event, failure message and report
// (README: secrets never appear in reports or logs). The runner owns one Redactor per run (src/run/events.ts says why).

import { isSecretKey, type PostmanEnvironment } from '../environment/merge.js';
import { orderSecrets, REDACTED, redactOrdered } from '../runner-rules.js';
import type { RunEvent } from './events.js';

// The rule itself (whole values and fragments of them) is the one every workspace ships: src/runner-rules.ts.
export { REDACTED, redactSecrets } from '../runner-rules.js';

/** The non-empty values of an environment's secret entries. */
export function secretValuesOf(environment: PostmanEnvironment): string[] {
  return environment.values.filter((entry) => entry.type === 'secret' && entry.value !== '').map((entry) => entry.value);
}

/** Every string inside a JSON-like value redacted (objects and arrays copied, other values as they are). */
function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((entry) => redactDeep(entry, redact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, redactDeep(entry, redact)]));
  }
  return value;
}

export class Redactor {
  readonly #secrets = new Set<string>();
  readonly #secretKeys: ReadonlySet<string>;
  /** `orderSecrets` of the secrets, worked out again only when a new one is learned (every event's strings use it). */
  #ordered: readonly string[] | undefined;

  constructor(secretKeys: ReadonlySet<string>) {
    this.#secretKeys = secretKeys;
  }

  /** The secrets seen so far (a live view). */
  get secrets(): ReadonlySet<string> {
    return this.#secrets;
  }

  /** A variable a script's environment holds: its value is a secret when its key is one by contract or by name. */
  learnVariable(key: string, value: string): void {
    if (value !== '' && (this.#secretKeys.has(key) || isSecretKey(key))) this.#learn(value);
  }

  /** Every value the environment types `secret`. */
  learnEnvironment(environment: PostmanEnvironment): void {
    for (const value of secretValuesOf(environment)) this.#learn(value);
  }

  #learn(value: string): void {
    if (this.#secrets.has(value)) return;
    this.#secrets.add(value);
    this.#ordered = undefined;
  }

  readonly text = (text: string): string => redactOrdered(text, (this.#ordered ??= orderSecrets(this.#secrets)));

  /** An error as it may leave the run (an ObflowError's cause, printed with OBFLOW_DEBUG): its message and stack
   *  redacted, and its causes in turn; the name kept. */
  error(error: unknown): Error {
    const source = error instanceof Error ? error : new Error(String(error));
    const safe = new Error(this.text(source.message), source.cause === undefined ? {} : { cause: this.error(source.cause) });
    safe.name = source.name;
    if (source.stack !== undefined) safe.stack = this.text(source.stack);
    return safe;
  }

  /** An event as subscribers get it: every string redacted; `done`'s environment with each secret entry replaced
   *  whole (a secret shorter than the fragment length is still a secret). */
  event<E extends RunEvent>(event: E): E {
    if (event.type !== 'done') return redactDeep(event, this.text) as E;
    const { environment, ...rest } = event.result;
    const values = environment.values.map((entry) => ({
      ...entry,
      value: entry.type === 'secret' && entry.value !== '' ? REDACTED : this.text(entry.value),
    }));
    return { ...event, result: { ...(redactDeep(rest, this.text) as typeof rest), environment: { ...environment, values } } };
  }
}
