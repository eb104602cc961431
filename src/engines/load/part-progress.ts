/**
 * The scenario's live figures (`LoadProgress`) from what each of its parts (the main thread, each
 * worker) last posted: counts added, in all, per tag set and per check; the last whole second's
 * latency from the parts' histograms of that second, decoded and added, so its percentiles are the
 * series point's, not a maximum of the parts' own.
 */
import { type LatencySummary, mergeEncoded, newSecondHistogram, summarize } from '../../results/histogram.ts';
import type { CheckTotals, RequestCounts } from '../../results/load-run.ts';
import type { LoadProgress } from '../../results/reporter.ts';
import { type PartProgress, tagKey } from './recorder.ts';

const zero: RequestCounts = { sent: 0, completed: 0, failed: 0, dropped: 0 };

const add = (a: RequestCounts, b: RequestCounts): RequestCounts => ({
  sent: a.sent + b.sent,
  completed: a.completed + b.completed,
  failed: a.failed + b.failed,
  dropped: a.dropped + b.dropped,
});

export function progressOf(
  parts: readonly PartProgress[],
  about: Pick<LoadProgress, 'scenario' | 'engine' | 'elapsedS' | 'durationS'>,
): LoadProgress {
  const tags = new Map<string, { tags: Readonly<Record<string, string>>; requests: RequestCounts }>();
  const checks = new Map<string, CheckTotals>();
  for (const part of parts) {
    for (const entry of part.tags) {
      const key = tagKey(entry.tags);
      const known = tags.get(key);
      tags.set(key, { tags: entry.tags, requests: add(known?.requests ?? zero, entry.requests) });
    }
    for (const check of part.checks) {
      const known = checks.get(check.name);
      checks.set(check.name, {
        name: check.name,
        passes: (known?.passes ?? 0) + check.passes,
        fails: (known?.fails ?? 0) + check.fails,
      });
    }
  }
  // Parts tick on their own timers, started together: the newest second any has closed is reported,
  // with the histograms of the parts that closed it (all of them, unless a timer straddled an edge).
  const second = Math.max(-1, ...parts.map((part) => part.second));
  const ofSecond = parts.filter((part) => part.second === second);
  const requests = parts.reduce((sum, part) => add(sum, part.requests), zero);
  return {
    ...about,
    rate: parts.reduce((sum, part) => sum + part.rate, 0),
    p99Ms: Math.max(0, ...parts.map((part) => part.p99Ms)),
    errors: requests.failed,
    dropped: requests.dropped,
    requests,
    tags: [...tags.values()],
    checks: [...checks.values()],
    ...(second >= 0 && { lastSecond: lastSecondOf(second, ofSecond) }),
  };
}

/**
 * The last whole second's latency, decoded, added and summarized when first read. Only live outputs
 * read it: without them a run paid for it once a second anyway (a profile at 2,000 req/s: a sixth of
 * the main thread's JavaScript, most of it the summary's mean walking the histogram).
 */
function lastSecondOf(second: number, parts: readonly PartProgress[]): NonNullable<LoadProgress['lastSecond']> {
  let latencyMs: LatencySummary | undefined;
  return {
    second,
    get latencyMs() {
      // One part (the main thread's): its own summary, without an encode to decode.
      const [only] = parts;
      if (latencyMs === undefined && parts.length === 1 && only?.latencyMs !== undefined) latencyMs = only.latencyMs;
      if (latencyMs === undefined) {
        const histogram = mergeEncoded(
          parts.map((part) => part.histogram),
          newSecondHistogram,
        );
        latencyMs = summarize(histogram);
        histogram.destroy();
      }
      return latencyMs;
    },
  };
}
