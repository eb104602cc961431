/**
 * Latency histograms, with their settings in one place (after autocannon's lib/histUtil.js): HDR
 * histograms in microseconds from 1 µs to one hour at 3 significant digits, encoded as compressed
 * base64 so a result is plain JSON, and merged by decode and add (workers, tags, segments, runs).
 * Counts are 32-bit arrays, not packed ones: measured here, recording costs 146 ns against 757 ns
 * packed and the p99 scan 0.1 ms against 1.8 ms, for 95 KB a histogram. The per-second histograms
 * of the time series, one per second of a run, keep 2 significant digits up to ten minutes (13 KB
 * each, a p99 in 0.01 ms): a series point needs no finer grain, and a long run stays small.
 */
import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** Milliseconds. In the open model measured from each request's intended start (coordinated omission corrected). */
export interface LatencySummary {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** One hour in microseconds: anything longer is recorded as one hour (a request times out well before). */
export const highestMicros = 3_600_000_000;

/** The one place the HDR settings are made: 32-bit counts, from 1 µs, no resizing. */
function build(numberOfSignificantValueDigits: 2 | 3, highestTrackableValue: number): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue,
    numberOfSignificantValueDigits,
    bitBucketSize: 32,
    autoResize: false,
  });
}

export function newHistogram(): Histogram {
  return build(3, highestMicros);
}

/** Ten minutes in microseconds: the ceiling of a per-second histogram. */
export const highestSecondMicros = 600_000_000;

/** A histogram of one second of a run (the time series): 2 significant digits. */
export function newSecondHistogram(): Histogram {
  return build(2, highestSecondMicros);
}

/** Records one latency given in milliseconds (fractions kept to the microsecond). */
export function recordMs(histogram: Histogram, ms: number): void {
  const micros = Math.round(ms * 1000);
  histogram.recordValue(Math.min(Math.max(micros, 1), histogram.highestTrackableValue));
}

export function encodeHistogram(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string, make: () => Histogram = newHistogram): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(encoded, 32, false);
  // Decoding yields a histogram with the encoder's range; re-add into ours so every one adds to every other.
  const histogram = make();
  histogram.add(decoded);
  decoded.destroy();
  return histogram;
}

/**
 * Where a holder of an encoded histogram (`{ histogram: string }`) also holds the live one it encodes,
 * on the same thread, to be read now: a live threshold (engines/load/live-thresholds.ts) reads it
 * without encoding it and decoding it again. Each second at 3,000 req/s that round trip was a 95 KB
 * histogram encoded, inflated and built twice, per tag set: garbage the collector's threads paid for.
 * A symbol, so a part posted between threads or written as JSON carries only the encoded form.
 */
export const liveHistogram: unique symbol = Symbol('live histogram');

/** An encoded histogram, with the live one it encodes when that is at hand (liveHistogram). */
export interface HistogramHolder {
  readonly histogram: string;
  readonly [liveHistogram]?: Histogram;
}

/**
 * `target` with `histogram` encoded from `live` when first read (once), and `live` under
 * liveHistogram. Defined as a getter: a spread (`{ ...lazy }`) would read it, and encode, at once.
 */
export function withLiveHistogram<T extends object>(target: T, live: Histogram): T & HistogramHolder {
  let encoded: string | undefined;
  return Object.defineProperties(target, {
    histogram: {
      enumerable: true,
      get: () => {
        encoded ??= encodeHistogram(live);
        return encoded;
      },
    },
    [liveHistogram]: { value: live, enumerable: false },
  }) as T & HistogramHolder;
}

/** Decode-and-add: one histogram of every encoded one. */
export function mergeEncoded(encoded: readonly string[], make: () => Histogram = newHistogram): Histogram {
  // One alone is its own sum: decoded into `make`'s kind, without a second histogram to add it into
  // (a live threshold reads one part's whole histogram each second).
  const [only] = encoded;
  if (encoded.length === 1 && only !== undefined) return decodeHistogram(only, make);
  const total = make();
  for (const item of encoded) {
    const part = decodeHistogram(item, make);
    total.add(part);
    part.destroy();
  }
  return total;
}

const ms = (micros: number) => Math.round(micros) / 1000;

/** The summary in milliseconds; zeros for an empty histogram. */
export function summarize(histogram: Histogram): LatencySummary {
  const count = histogram.totalCount;
  if (count === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  return {
    count,
    min: ms(histogram.minNonZeroValue),
    mean: ms(histogram.mean),
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p999: ms(histogram.getValueAtPercentile(99.9)),
    max: ms(histogram.maxValue),
  };
}

/** The bucket edges hdr-histogram-js's JS histograms (the ones `build` makes) have, and its typings omit. */
interface BucketEdges {
  lowestEquivalentValue(value: number): number;
  highestEquivalentValue(value: number): number;
}

/**
 * The summary `histogram` has once encoded and decoded (as the report's series reads it): the same
 * counts and percentiles, its min and max at their buckets' edges (decoding knows only the buckets),
 * without the encode and decode: a second's live point of one part costs a summary, not a round trip.
 */
export function summarizeAsDecoded(histogram: Histogram): LatencySummary {
  const summary = summarize(histogram);
  if (summary.count === 0) return summary;
  const edges = histogram as Histogram & BucketEdges;
  return {
    ...summary,
    min: ms(edges.lowestEquivalentValue(histogram.minNonZeroValue)),
    max: ms(edges.highestEquivalentValue(histogram.maxValue)),
  };
}

/** A percentile (0–100) in milliseconds of an encoded histogram. */
export function percentileOf(encoded: string, percentile: number): number {
  const histogram = decodeHistogram(encoded);
  const value = histogram.totalCount === 0 ? 0 : ms(histogram.getValueAtPercentile(percentile));
  histogram.destroy();
  return value;
}
