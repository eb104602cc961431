/**
 * The exact accounting of a messaging scenario: every arrival at the sink, classified by the
 * scenario into a stream and a key, against what the accepted iterations must cause. Each key counts
 * once: its first arrival is received, later ones are duplicates, and an arrival no accepted
 * iteration expects is unexpected; lost = expected − received. Latency is read from the first arrival
 * of each expected key only (a duplicate never adds a sample): deliveries, waiters and failure
 * callbacks from the send the record carries (`sentAt`), callbacks from the first arrival of the
 * delivery they report on (`causeKey`), and an iteration is complete when every key it expects arrived.
 * Pure: arrivals in, numbers out; the sink and the clock are the caller's. The keys and their first
 * arrivals are the one fan-out ledger's (`arrival-ledger.ts`), which kv-fanout's accounting reads too.
 * While the load runs, `take` tells the live outputs each stream's arrivals as they come (`live-arrivals.ts`).
 */
import type { ArrivalRecord, ArrivalStream, Expectation, Tags } from '../../protocol/scenario.ts';
import {
  encodeHistogram,
  type Histogram,
  newHistogram,
  newSecondHistogram,
  recordMs,
  summarize,
} from '../../results/histogram.ts';
import type {
  ArrivalSeriesPoint,
  MessagingAccounting,
  StreamAccounting,
  StreamCounts,
} from '../../results/load-run.ts';
import type { MessageProgress } from '../../results/reporter.ts';
import type { KeyArrivals } from '../../results/soak-check.ts';
import { ArrivalLedger, type FirstArrival } from './arrival-ledger.ts';
import { LiveArrivals } from './live-arrivals.ts';

/** One arrival as the sink hands it on (a `CountedArrival` of the sink). */
export interface LedgerArrival {
  readonly record: ArrivalRecord | undefined;
  /** Unix milliseconds. */
  readonly at: number;
  readonly signature: 'ok' | 'failed' | 'unchecked';
  readonly jti?: string;
}

/**
 * What the accounting reads of a key's first arrival, beside its time: the rest of the record (its
 * stream and key are the ledger's own; its iteration is in its expectation) is not kept, and equal tag
 * sets are one object. A long soak keeps one per key: the whole record, its tags and its stream's
 * string, as the sink's thread cloned them, were about 130 bytes more a key.
 */
interface KeptRecord {
  // Always all three (undefined when absent): one fixed shape with its fields in the object, where
  // optional fields spread in one by one put them in a property array of its own (40 bytes a key).
  readonly sentAt: number | undefined;
  readonly causeKey: string | undefined;
  readonly tags: Tags | undefined;
}

/** Every key of a stream that arrived: its first arrival, and how often it came. */
type Arrived = FirstArrival<KeptRecord>;

const bare: KeptRecord = Object.freeze({ sentAt: undefined, causeKey: undefined, tags: undefined });

interface ExpectedKey {
  readonly index: number;
  readonly tags: Tags | undefined;
}

const streams: readonly ArrivalStream[] = ['delivery', 'callback', 'failureCallback', 'waiter'];

/** The report's name of each stream's accounting. */
const fieldOf = {
  delivery: 'delivery',
  callback: 'callbacks',
  failureCallback: 'failureCallbacks',
  waiter: 'waiters',
} as const satisfies Record<ArrivalStream, keyof MessagingAccounting>;

/** A stable name of a tag set (keys sorted), to keep metrics per set. */
function tagKey(tags: Tags): string {
  return JSON.stringify(Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export class MessagingLedger {
  readonly #ledger = new ArrivalLedger<ArrivalStream, string, KeptRecord, ExpectedKey>(streams);
  /** One object per tag set among the kept records, by its stable name. */
  readonly #tagSets = new Map<string, Tags>();
  readonly #badSignatures = new Map<ArrivalStream, number>();
  #unclassified = 0;
  readonly #signatures = { verified: 0, failed: 0, unchecked: 0, replays: 0 };
  readonly #jtis = new Set<string>();
  /** Per accepted iteration, every (stream, key) it expects. */
  #keysOf = new Map<number, { readonly stream: ArrivalStream; readonly key: string }[]>();
  #accepted = 0;
  readonly #live = new Map(streams.map((stream) => [stream, new LiveArrivals(stream)]));

  /** Takes a batch of arrivals, in any order and at any time (before or after `expect`). */
  add(batch: readonly LedgerArrival[]): void {
    for (const arrival of batch) {
      if (arrival.signature === 'ok') this.#signatures.verified++;
      else if (arrival.signature === 'failed') this.#signatures.failed++;
      else this.#signatures.unchecked++;
      if (arrival.jti !== undefined) {
        if (this.#jtis.has(arrival.jti)) this.#signatures.replays++;
        else this.#jtis.add(arrival.jti);
      }
      const record = arrival.record;
      const first =
        record === undefined
          ? undefined
          : this.#ledger.arrive(record.stream, record.key, arrival.at, this.#kept(record));
      if (record === undefined || first === undefined) {
        this.#unclassified++;
        continue;
      }
      // A first arrival's latency as the end measures it, from what has arrived by now.
      const item = first ? this.#ledger.arrivals(record.stream).get(record.key) : undefined;
      this.#live.get(record.stream)?.arrive(first, item && this.#latency(record.stream, item));
      if (arrival.signature === 'failed') {
        this.#badSignatures.set(record.stream, (this.#badSignatures.get(record.stream) ?? 0) + 1);
      }
    }
  }

  /** The part of a record the accounting reads, its tags shared with every equal set's. */
  #kept(record: ArrivalRecord): KeptRecord {
    const { sentAt, causeKey, tags } = record;
    if (sentAt === undefined && causeKey === undefined && tags === undefined) return bare;
    let shared: Tags | undefined;
    if (tags !== undefined) {
      const name = tagKey(tags);
      shared = this.#tagSets.get(name);
      if (shared === undefined) {
        shared = tags;
        this.#tagSets.set(name, tags);
      }
    }
    return { sentAt, causeKey, tags: shared };
  }

  /** What the accepted iterations must cause (set once the load ended and its marks are merged). */
  expect<State>(
    accepted: readonly number[],
    expectedOf: (state: State, index: number) => Expectation,
    state: State,
  ): void {
    const expected = new Map<ArrivalStream, Map<string, ExpectedKey>>();
    const keysOf = new Map<number, { readonly stream: ArrivalStream; readonly key: string }[]>();
    const unique = [...new Set(accepted)];
    for (const index of unique) {
      const own: { stream: ArrivalStream; key: string }[] = [];
      const expectation = expectedOf(state, index);
      for (const stream of streams) {
        for (const item of expectation[stream] ?? []) {
          const key = typeof item === 'string' ? item : item.key;
          const tags = typeof item === 'string' ? undefined : item.tags;
          let keys = expected.get(stream);
          if (keys === undefined) {
            keys = new Map();
            expected.set(stream, keys);
          }
          if (keys.has(key)) continue;
          keys.set(key, { index, tags });
          own.push({ stream, key });
        }
      }
      keysOf.set(index, own);
    }
    this.#ledger.expect(expected);
    this.#keysOf = keysOf;
    this.#accepted = unique.length;
  }

  /** Expected keys that have not arrived yet (0 before `expect`). */
  missing(): number {
    return this.#ledger.missing();
  }

  /** Each stream's arrivals so far, for a progress event (only the streams anything reached); resets their latency. */
  take(): MessageProgress[] {
    return [...this.#live.values()].filter((live) => live.any).map((live) => live.take());
  }

  /**
   * Every key that arrived, looked up as `stream:key`: its first arrival (Unix ms) and how often it
   * came, for the soak's checker. A view of the ledger, not a copy (a long soak's keys are its memory).
   */
  keyArrivals(): KeyArrivals {
    const ledger = this.#ledger;
    let size = 0;
    for (const stream of streams) size += ledger.arrivals(stream).size;
    return {
      size,
      get(name) {
        const colon = name.indexOf(':');
        const first = ledger.arrivals(name.slice(0, colon) as ArrivalStream).get(name.slice(colon + 1));
        return first === undefined ? undefined : { firstAt: first.at, count: first.count };
      },
    };
  }

  /** The accounting as it stands: call it once the wait ended. */
  account(extra: { readonly waitedS: number; readonly strays: number }): MessagingAccounting {
    const origin = this.#origin();
    const series = new Map<string, { second: number; stream: ArrivalStream; histogram: Histogram }>();
    const point = (stream: ArrivalStream, at: number) => {
      const second = Math.max(0, Math.floor((at - origin) / 1000));
      const name = `${second} ${stream}`;
      let entry = series.get(name);
      if (entry === undefined) {
        entry = { second, stream, histogram: newSecondHistogram() };
        series.set(name, entry);
      }
      return entry.histogram;
    };
    const accounting: Partial<Record<(typeof fieldOf)[ArrivalStream], StreamAccounting>> = {};
    for (const stream of streams) {
      const keys = this.#ledger.expected(stream);
      const arrived = this.#ledger.arrivals(stream);
      if (keys.size === 0 && arrived.size === 0 && !this.#badSignatures.has(stream)) continue;
      accounting[fieldOf[stream]] = this.#stream(stream, keys, arrived, point);
    }
    const complete = this.#complete();
    const points: ArrivalSeriesPoint[] = [...series.values()]
      .sort((a, b) => a.second - b.second || streams.indexOf(a.stream) - streams.indexOf(b.stream))
      .map(({ second, stream, histogram }) => {
        const summary = summarize(histogram);
        histogram.destroy();
        return { second, stream, count: summary.count, p50: summary.p50, p99: summary.p99, max: summary.max };
      });
    return {
      ...accounting,
      ...(complete && { complete }),
      series: points,
      accepted: this.#accepted,
      waitedS: extra.waitedS,
      strays: extra.strays,
      unclassified: this.#unclassified,
      signatures: { ...this.#signatures },
    };
  }

  /** The first send among the expected arrivals (the load's start, as the sink sees it): the series' second 0. */
  #origin(): number {
    let origin = Number.POSITIVE_INFINITY;
    for (const keys of this.#ledger.allArrivals()) {
      for (const item of keys.values()) {
        const from = item.record.sentAt ?? item.at;
        if (from < origin) origin = from;
      }
    }
    return Number.isFinite(origin) ? origin : 0;
  }

  /** A received key's latency in ms, or undefined when what it is measured from is unknown. */
  #latency(stream: ArrivalStream, item: Arrived): number | undefined {
    if (stream === 'callback') {
      const cause = item.record.causeKey;
      const delivery = cause === undefined ? undefined : this.#ledger.arrivals('delivery').get(cause);
      if (delivery !== undefined) return item.at - delivery.at;
    }
    const sentAt = item.record.sentAt;
    return stream === 'callback' || sentAt === undefined ? undefined : item.at - sentAt;
  }

  #stream(
    stream: ArrivalStream,
    keys: ReadonlyMap<string, ExpectedKey>,
    arrived: ReadonlyMap<string, Arrived>,
    point: (stream: ArrivalStream, at: number) => Histogram,
  ): StreamAccounting {
    const histogram = newHistogram();
    const byTags = new Map<string, { tags: Tags; counts: MutableCounts; histogram: Histogram }>();
    const totals: MutableCounts = { expected: keys.size, received: 0, lost: 0, duplicated: 0 };
    for (const [key, wanted] of keys) {
      const item = arrived.get(key);
      const tags = wanted.tags ?? item?.record.tags;
      let group: { tags: Tags; counts: MutableCounts; histogram: Histogram } | undefined;
      if (tags !== undefined && Object.keys(tags).length > 0) {
        const name = tagKey(tags);
        group = byTags.get(name);
        if (group === undefined) {
          group = { tags, counts: { expected: 0, received: 0, lost: 0, duplicated: 0 }, histogram: newHistogram() };
          byTags.set(name, group);
        }
        group.counts.expected++;
      }
      if (item === undefined) {
        totals.lost++;
        if (group) group.counts.lost++;
        continue;
      }
      totals.received++;
      totals.duplicated += item.count - 1;
      if (group) {
        group.counts.received++;
        group.counts.duplicated += item.count - 1;
      }
      const latency = this.#latency(stream, item);
      if (latency === undefined) continue;
      recordMs(histogram, latency);
      if (group) recordMs(group.histogram, latency);
      recordMs(point(stream, item.at), latency);
    }
    let unexpected = 0;
    let unexpectedKeys = 0;
    for (const [key, item] of arrived) {
      if (keys.has(key)) continue;
      unexpected += item.count;
      unexpectedKeys++;
    }
    const result: StreamAccounting = {
      ...totals,
      unexpected,
      unexpectedKeys,
      badSignatures: this.#badSignatures.get(stream) ?? 0,
      latencyMs: summarize(histogram),
      histogram: encodeHistogram(histogram),
      byTags: [...byTags.values()]
        .sort((a, b) => (tagKey(a.tags) < tagKey(b.tags) ? -1 : 1))
        .map((group) => {
          const entry = {
            tags: group.tags,
            ...group.counts,
            latencyMs: summarize(group.histogram),
            histogram: encodeHistogram(group.histogram),
          };
          group.histogram.destroy();
          return entry;
        }),
    };
    histogram.destroy();
    return result;
  }

  /** Per accepted iteration whose every expected key arrived: its last first arrival − its send. */
  #complete(): MessagingAccounting['complete'] | undefined {
    if (!this.#ledger.expectsAny()) return undefined;
    const histogram = newHistogram();
    for (const keys of this.#keysOf.values()) {
      let last = Number.NEGATIVE_INFINITY;
      let sentAt: number | undefined;
      let whole = keys.length > 0;
      for (const { stream, key } of keys) {
        const item = this.#ledger.arrivals(stream).get(key);
        if (item === undefined) {
          whole = false;
          break;
        }
        last = Math.max(last, item.at);
        sentAt ??= item.record.sentAt;
      }
      if (whole && sentAt !== undefined) recordMs(histogram, last - sentAt);
    }
    const complete = { latencyMs: summarize(histogram), histogram: encodeHistogram(histogram) };
    histogram.destroy();
    return complete;
  }
}

type MutableCounts = { -readonly [K in keyof StreamCounts]: StreamCounts[K] };
