/**
 * Gathers the requests of one event-loop turn into one call: at saturation many publishes arrive and
 * many attempts finish per turn, and a Redis call of its own for each cost the client a command (queue
 * node, timer, reply) and Redis a call per item. An item waits at most until the event loop's next
 * check phase (setImmediate), so a lone one is not delayed by a timer. Each caller's promise settles
 * with its batch: a failed call rejects every item in it, and each caller decides what that means.
 */

interface Pending<Item, Answer> {
  readonly item: Item;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

/** More items than this go in more than one call (each argument list stays a bounded size). */
const maxBatch = 256;

export class TurnBatch<Item, Answer> {
  /** Answers one per item, in the items' order. */
  readonly #call: (items: readonly Item[]) => Promise<readonly Answer[]>;
  #pending: Pending<Item, Answer>[] = [];
  #scheduled = false;

  constructor(call: (items: readonly Item[]) => Promise<readonly Answer[]>) {
    this.#call = call;
  }

  add(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
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
    this.#call(batch.map(({ item }) => item)).then(
      (answers) => {
        batch.forEach(({ resolve, reject }, at) => {
          // By count, not by `!== undefined`: a call whose answers are `void` answers undefined items.
          if (at < answers.length) resolve(answers[at] as Answer);
          else reject(new Error(`the batched call answered ${answers.length} of ${batch.length} items`));
        });
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }
}
