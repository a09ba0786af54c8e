// Delivers a run's events to its subscribers: redacted first (src/run/events.ts says why the runner does it), in order,
// each subscriber on its own queue — a synchronous subscriber (the tally) is current as soon as emit returns, an
// asynchronous one never blocks newman. The first error of a subscriber is kept and thrown by settle().

import type { RunEvent, RunSubscriber } from './events.js';
import type { Redactor } from './redaction.js';

class Delivery {
  #tail: Promise<void> | undefined;
  #failed = false;
  #error: unknown;

  constructor(readonly subscriber: RunSubscriber) {}

  readonly #fail = (error: unknown): void => {
    if (this.#failed) return;
    this.#failed = true;
    this.#error = error;
  };

  deliver(event: RunEvent): void {
    if (this.#failed) return;
    if (this.#tail !== undefined) {
      this.#tail = this.#tail.then(() => (this.#failed ? undefined : this.subscriber.onEvent(event))).catch(this.#fail);
      return;
    }
    try {
      const pending = this.subscriber.onEvent(event);
      if (pending !== undefined) this.#tail = Promise.resolve(pending).catch(this.#fail);
    } catch (error) {
      this.#fail(error);
    }
  }

  async settle(): Promise<void> {
    await this.#tail;
    if (this.#failed) throw this.#error;
  }
}

export class EventDispatch {
  readonly #deliveries: Delivery[];
  readonly #redactor: Redactor;

  constructor(redactor: Redactor, subscribers: readonly RunSubscriber[]) {
    this.#redactor = redactor;
    this.#deliveries = subscribers.map((subscriber) => new Delivery(subscriber));
  }

  emit(event: RunEvent): void {
    const redacted = this.#redactor.event(event);
    for (const delivery of this.#deliveries) delivery.deliver(redacted);
  }

  /** Waits for every subscriber's queue; throws the first subscriber error. */
  async settle(): Promise<void> {
    for (const delivery of this.#deliveries) await delivery.settle();
  }

  /** finish() of every subscriber that has one, in order; the files they wrote. */
  async finish(): Promise<string[]> {
    await this.settle();
    const files: string[] = [];
    for (const { subscriber } of this.#deliveries) if (subscriber.finish !== undefined) files.push(...(await subscriber.finish()));
    return files;
  }
}
