/**
 * The one fan-out ledger (issue 37): what every fan-out scenario counts, whichever way its arrivals come
 * (kv-fanout's subscribers on server-sent events, `fanout.ts`; the messaging scenarios' sink,
 * `messaging-accounting.ts`). Arrivals are keyed within streams: a key's first arrival is kept (its time
 * and record) with how often it came, so a repeat is a duplicate and never a second receipt; what must
 * arrive is a set of expected keys per stream, given once the load ended (arrivals may come before and
 * after). Each accounting reads its report's fields from it; the ledger itself holds no report shape.
 * Pure: arrivals in, keys out; the clock is the caller's (any unit, as long as one per ledger).
 */

/** A key's first arrival, and how many arrivals it had in all. */
export interface FirstArrival<R> {
  readonly at: number;
  readonly record: R;
  count: number;
}

export class ArrivalLedger<S, K, R, E> {
  readonly #arrived: Map<S, Map<K, FirstArrival<R>>>;
  #expected: ReadonlyMap<S, ReadonlyMap<K, E>> = new Map();

  /** `streams`: the only streams arrivals may name (another is refused by `arrive`). */
  constructor(streams: readonly S[]) {
    this.#arrived = new Map(streams.map((stream) => [stream, new Map()]));
  }

  /**
   * One arrival of `key` in `stream` at `at`: true when it is the key's first, false for a repeat,
   * undefined (nothing kept) when the stream is none of the ledger's.
   */
  arrive(stream: S, key: K, at: number, record: R): boolean | undefined {
    const keys = this.#arrived.get(stream);
    if (keys === undefined) return undefined;
    const seen = keys.get(key);
    if (seen !== undefined) {
      seen.count++;
      return false;
    }
    keys.set(key, { at, record, count: 1 });
    return true;
  }

  /** The keys of `stream` that arrived, in the order of their first arrivals. */
  arrivals(stream: S): ReadonlyMap<K, FirstArrival<R>> {
    return this.#arrived.get(stream) ?? new Map();
  }

  /** Every stream's arrivals, in the order of the streams given. */
  allArrivals(): IterableIterator<ReadonlyMap<K, FirstArrival<R>>> {
    return this.#arrived.values();
  }

  /** What must arrive, per stream, each key with what its accounting needs (replaces any set before). */
  expect(expected: ReadonlyMap<S, ReadonlyMap<K, E>>): void {
    this.#expected = expected;
  }

  /** The expected keys of `stream` (none before `expect`). */
  expected(stream: S): ReadonlyMap<K, E> {
    return this.#expected.get(stream) ?? new Map();
  }

  /** Whether any stream expects a key (false before `expect`). */
  expectsAny(): boolean {
    for (const keys of this.#expected.values()) if (keys.size > 0) return true;
    return false;
  }

  /** Expected keys that have not arrived yet (0 before `expect`). */
  missing(): number {
    let missing = 0;
    for (const [stream, keys] of this.#expected) {
      const arrived = this.arrivals(stream);
      for (const key of keys.keys()) if (!arrived.has(key)) missing++;
    }
    return missing;
  }
}
