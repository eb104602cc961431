/**
 * The calling thread's end of the counting inboxes: their tokens, and the listeners their batches of
 * arrivals go to. Batches come from this thread's counting host or from the sink threads, in arrival
 * order per thread; those that come before the first listener are held for it, so a scenario that
 * subscribes after it handed out its URLs loses nothing.
 */
import type { CountedArrival } from './counting-inbox.ts';
import type { SinkLog } from './sink-log.ts';

type Listener = (batch: readonly CountedArrival<unknown>[]) => void;

interface CounterEntry {
  readonly label: string;
  readonly listeners: Listener[];
  /** Batches that came before the first listener. */
  held: CountedArrival<unknown>[][];
}

export class CounterListeners {
  readonly #counters = new Map<string, CounterEntry>();
  readonly #log: SinkLog;

  constructor(log: SinkLog) {
    this.#log = log;
  }

  add(token: string, label: string): void {
    this.#counters.set(token, { label, listeners: [], held: [] });
  }

  has(token: string): boolean {
    return this.#counters.has(token);
  }

  /** A batch for `token` arrived (its last arrival is the sink's latest); one for no counter is dropped. */
  deliver(token: string, batch: CountedArrival<unknown>[]): void {
    const last = batch[batch.length - 1];
    if (last !== undefined) this.#log.arrived(last.at);
    const entry = this.#counters.get(token);
    if (entry === undefined) return;
    if (entry.listeners.length === 0) entry.held.push(batch);
    for (const listener of entry.listeners) listener(batch);
  }

  /** Adds a listener of `token`'s batches, handing it the batches held so far first. */
  listen(token: string, listener: Listener): void {
    const entry = this.#counters.get(token);
    if (entry === undefined) return;
    entry.listeners.push(listener);
    const held = entry.held;
    entry.held = [];
    for (const batch of held) listener(batch);
  }
}
