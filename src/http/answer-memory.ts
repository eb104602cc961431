/**
 * What the answers being read at one time may hold together, for the one HTTP client. A case that
 * sends eight requests at once, or a set-up sixteen, to a target answering 50 MB each held 400–800 MB of
 * bytes in flight (issue 25). Past `limit` bytes, one answer (the lead) reads on and the others wait
 * between chunks; undici then stops reading their sockets, so TCP holds the rest at the target. When
 * the lead or another ends, the waiting readers go on. Ordinary answers never come near the limit.
 * The socket pool of the load engine keeps its own budget the same way (src/engines/load/net).
 */

/** One answer being read: what it holds. */
export interface AnswerReader {
  /** Counts `bytes` more; a promise to await before reading on, when the budget is passed. */
  hold(bytes: number): Promise<void> | undefined;
  /** The answer is read (or abandoned): its bytes are no longer counted. */
  release(): void;
}

export class AnswerMemory {
  readonly limit: number;
  #held = 0;
  #peak = 0;
  #lead: object | undefined;
  #waiting: (() => void)[] = [];
  /** How many times a reader waited for room. */
  waits = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The most bytes the answers being read held at once. */
  get peak(): number {
    return this.#peak;
  }

  reader(): AnswerReader {
    const self = {};
    let held = 0;
    const room = async (): Promise<void> => {
      this.waits++;
      // Woken whenever an answer ends; the lead's place is taken by the first that finds none.
      while (this.#held > this.limit && this.#lead !== self && this.#lead !== undefined) {
        await new Promise<void>((resolve) => this.#waiting.push(resolve));
      }
      if (this.#held > this.limit) this.#lead = self;
    };
    return {
      hold: (bytes) => {
        held += bytes;
        this.#held += bytes;
        if (this.#held > this.#peak) this.#peak = this.#held;
        if (this.#held <= this.limit || this.#lead === self) return undefined;
        if (this.#lead === undefined) {
          this.#lead = self;
          return undefined;
        }
        return room();
      },
      release: () => {
        this.#held -= held;
        held = 0;
        if (this.#lead === self) this.#lead = undefined;
        for (const wake of this.#waiting.splice(0)) wake();
      },
    };
  }
}

/** The client's budget: 64 MB of answers being read at once. */
export const answerMemory = new AnswerMemory(64 * 1024 * 1024);
