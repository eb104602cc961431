/**
 * The `exec-write-behind` fault switch (issue 39, the soak's proof for lost updates): a /multi-exec of
 * INCRs alone is answered at once from a cache of the counters in memory, its increments held and
 * written to Redis (INCRBY) on the next flush, every `periodMs`. Every other request flushes first and
 * forgets the cache, so whatever reads sees every increment it was told of, and a graceful stop
 * flushes: only a SIGKILL shows it, losing exactly what was held. No conformance case kills the
 * service; the soak's read-back after a kill's restart finds the counters short of what was committed.
 *
 * Its own record, for the test that holds the soak to it: with a record file, each increment is
 * appended as `acknowledged <key> 1` before its answer is sent, `writing <key> <n>` when its flush
 * begins and `persisted <key> <n>` once Redis answered the INCRBY (synchronously: a kill cannot lose a
 * line the process wrote). A key's acknowledged increments less its writing ones were lost for certain;
 * less its persisted ones, at most that many were (a kill between Redis's reply and the line is the one
 * window the record cannot close). A persisted line before the write was wrong: @redis/client sends on
 * the next setImmediate, and a slow machine's kill in between lost a flush the record called stored.
 */
import { appendFileSync } from 'node:fs';

/** How long an increment is held in memory before it is written: a kill within it loses it. */
export const execWriteBehindPeriodMs = 1000;

/** Redis as the cache needs it: a counter's value, and increments written. */
export interface CounterStore {
  read(key: string): Promise<number>;
  add(increments: ReadonlyMap<string, number>): Promise<void>;
}

export class ExecWriteBehind {
  readonly #store: CounterStore;
  readonly #record: string | undefined;
  readonly #warn: (line: string) => void;
  /** Each cached counter's value as answered: Redis's at its first touch, plus every increment since. */
  #values = new Map<string, Promise<number>>();
  /** Increments answered and not yet written. */
  #held = new Map<string, number>();
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;

  constructor(
    store: CounterStore,
    record: string | undefined,
    warn: (line: string) => void,
    periodMs = execWriteBehindPeriodMs,
  ) {
    this.#store = store;
    this.#record = record;
    this.#warn = warn;
    this.#timer = setInterval(() => void this.flush(), periodMs);
    this.#timer.unref();
  }

  /** The keys of a transaction this cache answers (INCR of one key, each command), else undefined. */
  static keysOf(commands: readonly (readonly Buffer[])[]): string[] | undefined {
    const keys: string[] = [];
    for (const args of commands) {
      if (args.length !== 2 || args[0]?.toString('latin1').toUpperCase() !== 'INCR') return undefined;
      keys.push((args[1] as Buffer).toString('latin1'));
    }
    return keys.length > 0 ? keys : undefined;
  }

  /** The INCRs' results, in order, answered from the cache; the increments held until the next flush. */
  async increment(keys: readonly string[]): Promise<number[]> {
    const results: Promise<number>[] = [];
    for (const key of keys) {
      // Chained per key, synchronously: concurrent transactions count each increment once, in order.
      const before = this.#values.get(key) ?? this.#store.read(key);
      const after = before.then((value) => value + 1);
      this.#values.set(key, after);
      results.push(after);
    }
    const values = await Promise.all(results);
    for (const key of keys) {
      this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
      this.#note(`acknowledged ${key} 1`);
    }
    return values;
  }

  /** Writes what is held and forgets the cache (another request may change the keys): before every other request. */
  settle(): Promise<void> {
    const flushed = this.flush();
    this.#values = new Map();
    return flushed;
  }

  /** Writes what is held, one flush at a time. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const batch = this.#held;
      if (batch.size === 0) return;
      this.#held = new Map();
      for (const [key, count] of batch) this.#note(`writing ${key} ${count}`);
      const written = await Promise.allSettled(
        [...batch].map(async ([key, count]) => {
          await this.#store.add(new Map([[key, count]]));
          this.#note(`persisted ${key} ${count}`);
        }),
      );
      const failed = written.filter((result) => result.status === 'rejected');
      if (failed.length > 0) {
        const reason = (failed[0] as PromiseRejectedResult).reason;
        this.#warn(`exec-write-behind: ${failed.length} held counters could not be written: ${String(reason)}`);
      }
    });
    return this.#flushing;
  }

  /** A graceful stop: what is held is written. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  #note(line: string): void {
    if (this.#record !== undefined) appendFileSync(this.#record, `${line}\n`);
  }
}
