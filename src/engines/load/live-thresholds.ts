/**
 * A scenario's thresholds judged over its load so far, once a second, for the live outputs
 * (`LoadProgress.thresholds`): the same evaluation as at the end (scenario-result.ts), over the parts'
 * totals so far. Only the thresholds of what the load itself counts are judged live; a messaging
 * stream's accounting, a fan-out's deliveries and `finish`'s updates exist only once the load is over.
 */
import {
  encodeHistogram,
  type HistogramHolder,
  liveHistogram,
  mergeEncoded,
  summarize,
  summarizeAsDecoded,
  withLiveHistogram,
} from '../../results/histogram.ts';
import type { RequestCounts, ScenarioResult, ThresholdResult } from '../../results/load-run.ts';
import type { LoadProgress } from '../../results/reporter.ts';
import { evaluateThresholds, type Threshold } from '../../results/threshold.ts';
import type { RecorderPart } from './recorder.ts';
import type { ResultBase } from './scenario-result.ts';

/** The latency summary of encoded histograms, merged. */
function summarizeEncoded(encoded: readonly string[]) {
  const histogram = mergeEncoded(encoded);
  try {
    return summarize(histogram);
  } finally {
    histogram.destroy();
  }
}

/** The latency summary of one holder's histogram: of the live one when it has it, as decoding would give it. */
function summaryOf(holder: HistogramHolder) {
  const live = holder[liveHistogram];
  return live !== undefined ? summarizeAsDecoded(live) : summarizeEncoded([holder.histogram]);
}

/**
 * `target` holding `from`'s histogram without reading it: the live one when `from` has it (encoded
 * only if something reads `histogram`), else its encoded form, as a worker's part carries it.
 */
function holding<T extends object>(target: T, from: HistogramHolder): T & HistogramHolder {
  const live = from[liveHistogram];
  return live !== undefined ? withLiveHistogram(target, live) : Object.assign(target, { histogram: from.histogram });
}

/** Encoded histograms merged into one, encoded. */
function encodeHistogramOf(encoded: readonly string[]): string {
  const histogram = mergeEncoded(encoded);
  try {
    return encodeHistogram(histogram);
  } finally {
    histogram.destroy();
  }
}

/** The metrics the load counts as it goes: their thresholds have a value before the end. */
const liveMetrics = new Set([
  'http_req_duration',
  'http_req_failed',
  'http_reqs',
  'checks',
  'dropped_iterations',
  'commands',
]);

/** The thresholds that can be judged while the load runs. */
export function liveThresholdsOf(thresholds: readonly Threshold[]): Threshold[] {
  return thresholds.filter((threshold) => liveMetrics.has(threshold.metric));
}

/**
 * `progress` with its `thresholds`: `thresholds` (live ones) judged over `parts` (Recorder.totals) when
 * a reporter first reads them. Judging decodes and adds the parts' histograms (about 12 ms a second
 * for four thresholds over four tag sets), which a run pays only when a reporter asks: the live
 * outputs do, the console does not.
 */
export function withThresholds(
  progress: LoadProgress,
  base: ResultBase,
  thresholds: readonly Threshold[],
  parts: readonly RecorderPart[],
): LoadProgress {
  if (thresholds.length === 0) return progress;
  let judged: readonly ThresholdResult[] | undefined;
  return Object.defineProperty({ ...progress }, 'thresholds', {
    enumerable: true,
    get: () => {
      judged ??= currentThresholds(base, thresholds, parts, progress.elapsedS);
      return judged;
    },
  });
}

/**
 * `thresholds` (live ones) judged over `parts` (Recorder.totals), `elapsedS` seconds into the measured
 * load: the same evaluation as at the end (results/threshold.ts), over a view of the parts that holds
 * only what a threshold reads. The end's result merges every histogram and summarizes every tag set;
 * judged that way once a second, it was a third of what the live outputs cost at 3,000 req/s
 * (bench/outputs-cost.ts). Here a tag set's entries stay one per part (a threshold's selection adds
 * their counts and merges their histograms itself), the overall histogram is merged only when a
 * threshold reads it, and a tag set's latency summary is decoded only if something reads it.
 */
export function currentThresholds(
  base: ResultBase,
  thresholds: readonly Threshold[],
  parts: readonly RecorderPart[],
  elapsedS: number,
): readonly ThresholdResult[] {
  if (thresholds.length === 0) return [];
  return evaluateThresholds(thresholds, liveView(base, parts, Math.max(0.001, elapsedS)));
}

const add = (a: RequestCounts, b: RequestCounts): RequestCounts => ({
  sent: a.sent + b.sent,
  completed: a.completed + b.completed,
  failed: a.failed + b.failed,
  dropped: a.dropped + b.dropped,
});

const none: RequestCounts = { sent: 0, completed: 0, failed: 0, dropped: 0 };

/** A lazily computed field: decoded on first read, once. */
function lazy<T extends object, K extends string, V>(target: T, key: K, make: () => V): T & Record<K, V> {
  let value: { v: V } | undefined;
  return Object.defineProperty(target, key, {
    enumerable: true,
    get: () => {
      value ??= { v: make() };
      return value.v;
    },
  }) as T & Record<K, V>;
}

/** The parts as the scenario result a threshold reads, without what no threshold needs. */
function liveView(base: ResultBase, parts: readonly RecorderPart[], seconds: number): ScenarioResult {
  const checks = new Map<string, { passes: number; fails: number }>();
  for (const check of parts.flatMap((part) => part.checks)) {
    const known = checks.get(check.name) ?? { passes: 0, fails: 0 };
    checks.set(check.name, { passes: known.passes + check.passes, fails: known.fails + check.fails });
  }
  const tags = parts.flatMap((part) =>
    part.tags.map((entry) =>
      lazy(holding({ tags: entry.tags, requests: entry.counts, commands: entry.commands }, entry), 'latencyMs', () =>
        summaryOf(entry),
      ),
    ),
  );
  const counts = parts.reduce((sum, part) => add(sum, part.counts), none);
  const commands = parts.reduce((sum, part) => sum + part.commands, 0);
  const view = {
    ...base,
    durationMs: seconds * 1000,
    requests: counts,
    commands,
    throughput: { requestsPerSecond: counts.completed / seconds, commandsPerSecond: commands / seconds },
    series: [],
    tags,
    checks: [...checks].map(([name, totals]) => ({ name, ...totals })),
    errors: [],
    counters: {},
    accounting: {},
    thresholds: [],
  };
  const [only] = parts;
  const withHistogram: typeof view & HistogramHolder =
    parts.length === 1 && only !== undefined
      ? holding(view, only)
      : lazy(view, 'histogram', () => encodeHistogramOf(parts.map((part) => part.histogram)));
  return lazy(withHistogram, 'latencyMs', () => summaryOf(withHistogram)) as ScenarioResult;
}
