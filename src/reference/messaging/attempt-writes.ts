/**
 * Gathers the outcome writes of attempts that finish close together and sends them as one call
 * (MessageStore.finishAttempts): at saturation hundreds of attempts finish per event-loop turn, and a
 * round trip of its own for each was most of the delivery loop's Redis work. A write waits at most
 * until the event loop's next check phase (setImmediate), so a lone attempt is not delayed by a timer.
 * Each caller's promise settles with its batch: a failed batch rejects every write in it, and each
 * caller decides whether to try again (the dispatcher does, while Redis is away).
 */
import type { AttemptWrite, MessageStore } from './message-store.ts';

interface Pending {
  readonly write: AttemptWrite;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** More writes than this go in more than one call (each argument list stays a bounded size). */
const maxBatch = 256;

export class AttemptWrites {
  readonly #store: MessageStore;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(store: MessageStore) {
    this.#store = store;
  }

  write(write: AttemptWrite): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ write, resolve, reject });
      if (this.#pending.length >= maxBatch) this.#flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.#store.finishAttempts(batch.map(({ write }) => write)).then(
      () => {
        for (const { resolve } of batch) resolve();
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }
}
