/**
 * The flush protocol across the sink threads: a counting inbox's `flush()` asks every running thread
 * to hand on what it holds for the token (`flush` with an id), and resolves once each has answered
 * (`flushed` with that id) or ended: a thread that ended has nothing more to hand on, so no flush
 * waits for it. Threads are opaque here (`T`), so the protocol is tested without workers.
 */
export class FlushProtocol<T> {
  #nextId = 0;
  /** Flushes under way, each with the threads that have yet to answer it. */
  readonly #flushes = new Map<number, { readonly waiting: Set<T>; readonly done: () => void }>();

  /**
   * Starts a flush that waits for `threads` (a copy is taken); `ask` sends it with its id. With no
   * thread running there is nothing to wait for, and nothing is sent.
   */
  flush(threads: ReadonlySet<T>, ask: (id: number) => void): Promise<void> {
    const id = this.#nextId++;
    return new Promise<void>((resolve) => {
      if (threads.size === 0) {
        resolve();
        return;
      }
      this.#flushes.set(id, { waiting: new Set(threads), done: resolve });
      ask(id);
    });
  }

  /** `thread` answered flush `id`, or (no id) ended: no flush waits for it any more. */
  answered(thread: T, id?: number): void {
    for (const [key, flush] of this.#flushes) {
      if (id !== undefined && key !== id) continue;
      flush.waiting.delete(thread);
      if (flush.waiting.size === 0) {
        this.#flushes.delete(key);
        flush.done();
      }
    }
  }
}
