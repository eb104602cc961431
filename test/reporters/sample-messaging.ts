/**
 * Messaging accounting for the renderers' tests, as the sink would account it: per stream, arrivals
 * recorded into real HDR histograms (overall, per tag set, per second) from a seeded sequence, with
 * the losses, duplicates, strays and bad signatures a test names, so every count is known exactly.
 */
import type { Tags } from '../../src/protocol/scenario.ts';
import { encodeHistogram, type Histogram, newHistogram, recordMs, summarize } from '../../src/results/histogram.ts';
import type { ArrivalSeriesPoint, MessagingAccounting, StreamAccounting } from '../../src/results/load-run.ts';

/** One stream to simulate: what is expected per tag set, and what goes wrong. */
export interface StreamPlan {
  readonly stream: ArrivalSeriesPoint['stream'];
  /** Tag sets and how many arrivals each expects (one untagged set for a stream without tags). */
  readonly expected: readonly { readonly tags: Tags; readonly count: number }[];
  /** Expected arrivals that never came, per tag set (by index of `expected`). */
  readonly lost?: Readonly<Record<number, number>>;
  readonly duplicated?: Readonly<Record<number, number>>;
  readonly unexpected?: number;
  readonly badSignatures?: number;
  /** Median latency, ms. */
  readonly medianMs: number;
}

interface Tagged {
  readonly tags: Tags;
  histogram: Histogram;
  expected: number;
  received: number;
  lost: number;
  duplicated: number;
}

function streamOf(plan: StreamPlan, seconds: number, next: () => number, series: ArrivalSeriesPoint[]) {
  const all = newHistogram();
  const perSecond = Array.from({ length: seconds }, () => ({ histogram: newHistogram(), count: 0 }));
  const tagged: Tagged[] = plan.expected.map((item) => ({
    tags: item.tags,
    histogram: newHistogram(),
    expected: item.count,
    received: 0,
    lost: 0,
    duplicated: 0,
  }));
  plan.expected.forEach((item, index) => {
    const entry = tagged[index] as Tagged;
    const lost = plan.lost?.[index] ?? 0;
    const duplicated = plan.duplicated?.[index] ?? 0;
    entry.lost = lost;
    entry.received = item.count - lost;
    entry.duplicated = duplicated;
    // Each arrival, duplicates included, is a latency sample at the second it came.
    for (let arrival = 0; arrival < entry.received + duplicated; arrival++) {
      const gaussian = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      const ms = plan.medianMs * Math.exp(0.4 * gaussian);
      recordMs(all, ms);
      recordMs(entry.histogram, ms);
      const second = perSecond[Math.floor((arrival / (entry.received + duplicated)) * seconds)];
      if (second) {
        recordMs(second.histogram, ms);
        second.count++;
      }
    }
  });
  perSecond.forEach((second, index) => {
    const summary = summarize(second.histogram);
    second.histogram.destroy();
    series.push({
      second: index,
      stream: plan.stream,
      count: second.count,
      p50: summary.p50,
      p99: summary.p99,
      max: summary.max,
    });
  });
  const total = (key: 'expected' | 'received' | 'lost' | 'duplicated') =>
    tagged.reduce((sum, item) => sum + item[key], 0);
  const accounting: StreamAccounting = {
    expected: total('expected'),
    received: total('received'),
    lost: total('lost'),
    duplicated: total('duplicated'),
    unexpected: plan.unexpected ?? 0,
    badSignatures: plan.badSignatures ?? 0,
    latencyMs: summarize(all),
    histogram: encodeHistogram(all),
    byTags: tagged
      .filter((item) => Object.keys(item.tags).length > 0)
      .map((item) => ({
        tags: item.tags,
        expected: item.expected,
        received: item.received,
        lost: item.lost,
        duplicated: item.duplicated,
        latencyMs: summarize(item.histogram),
        histogram: encodeHistogram(item.histogram),
      })),
  };
  all.destroy();
  for (const item of tagged) item.histogram.destroy();
  return accounting;
}

const keyOf = {
  delivery: 'delivery',
  callback: 'callbacks',
  failureCallback: 'failureCallbacks',
  waiter: 'waiters',
} as const;

/** The accounting of `plans` over `seconds` of arrivals; `accepted` iterations, signatures as counted. */
export function sampleMessaging(
  plans: readonly StreamPlan[],
  options: {
    readonly accepted: number;
    readonly seconds: number;
    readonly seed: () => number;
    readonly strays?: number;
    /** Median send → last arrival of an iteration, ms: a `complete` histogram of `accepted` samples. */
    readonly completeMedianMs?: number;
  },
): MessagingAccounting {
  const series: ArrivalSeriesPoint[] = [];
  const streams: Partial<Record<(typeof keyOf)[keyof typeof keyOf], StreamAccounting>> = {};
  for (const plan of plans) streams[keyOf[plan.stream]] = streamOf(plan, options.seconds, options.seed, series);
  const arrivals = Object.values(streams).reduce(
    (sum, item) => sum + item.received + item.duplicated + item.unexpected,
    0,
  );
  const bad = Object.values(streams).reduce((sum, item) => sum + item.badSignatures, 0);
  let complete: MessagingAccounting['complete'];
  if (options.completeMedianMs !== undefined) {
    const histogram = newHistogram();
    for (let index = 0; index < options.accepted; index++) {
      recordMs(histogram, options.completeMedianMs * (0.8 + 0.4 * options.seed()));
    }
    complete = { latencyMs: summarize(histogram), histogram: encodeHistogram(histogram) };
    histogram.destroy();
  }
  return {
    ...streams,
    ...(complete && { complete }),
    series,
    accepted: options.accepted,
    waitedS: 0.4,
    strays: options.strays ?? 0,
    unclassified: 0,
    signatures: { verified: arrivals - bad, failed: bad, unchecked: 0, replays: 0 },
  };
}
