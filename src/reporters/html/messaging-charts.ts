/**
 * The charts of a messaging scenario, as data (drawn by the page script like every other chart):
 * each stream's latency second by second (the sink's per-second series, p50 and p99, with arrivals
 * per second on the right axis), and each stream's latency by percentile (its HDR histogram).
 */
import type { ScenarioResult } from '../../results/load-run.ts';
import { messagingStreams } from '../messaging-streams.ts';
import {
  type ChartSeries,
  type ChartSpec,
  ninesOf,
  palette,
  percentileCurve,
  percentilesFor,
  wantsLog,
} from './chart-data.ts';
import type { FaultBand } from './fault-bands.ts';

const colorAt = (index: number) => palette[index % palette.length] ?? '#000000';

/**
 * Delivery and callback latency over time: per stream its p50 and p99 in each second arrivals came
 * (null where none came, so a gap shows as a gap), and every stream's arrivals per second together.
 */
export function arrivalTimelineChart(
  scenario: ScenarioResult,
  key: string,
  bands: readonly FaultBand[] = [],
): ChartSpec | undefined {
  const messaging = scenario.accounting.messaging;
  if (!messaging || messaging.series.length === 0) return undefined;
  const seconds = [...new Set(messaging.series.map((point) => point.second))].sort((a, b) => a - b);
  const lines: ChartSeries[] = [];
  const streams = messagingStreams(messaging).filter((stream) =>
    messaging.series.some((point) => point.stream === stream.series),
  );
  streams.forEach((stream, index) => {
    const bySecond = new Map(
      messaging.series.filter((point) => point.stream === stream.series).map((point) => [point.second, point]),
    );
    const at = (pick: (point: { p50: number; p99: number }) => number) =>
      seconds.map((second) => {
        const point = bySecond.get(second);
        return point && point.count > 0 ? pick(point) : null;
      });
    lines.push(
      { label: `${stream.label} p50 (ms)`, values: at((point) => point.p50), axis: 'y', color: colorAt(2 * index) },
      { label: `${stream.label} p99 (ms)`, values: at((point) => point.p99), axis: 'y', color: colorAt(2 * index + 1) },
    );
  });
  if (lines.length === 0) return undefined;
  const arrivals = seconds.map((second) =>
    messaging.series.filter((point) => point.second === second).reduce((sum, point) => sum + point.count, 0),
  );
  return {
    ...(bands.length > 0 && { bands }),
    id: `arrivals-${key}`,
    title: `${scenario.name}: delivery and callback latency over time${bands.length > 0 ? ' (shaded: the soak’s faults)' : ''}`,
    kind: 'lines',
    x: { label: 'seconds since start', scale: 'seconds', values: seconds },
    y: { label: 'latency (ms)', log: wantsLog(lines) },
    y2: { label: 'arrivals/s' },
    series: [...lines, { label: 'arrivals/s', values: arrivals, axis: 'y2', color: '#000000' }],
  };
}

/** Each stream's latency by percentile (publish → delivery, delivery → callback, …) and `complete`'s, from their histograms. */
export function streamLatencyChart(scenario: ScenarioResult, key: string): ChartSpec | undefined {
  const messaging = scenario.accounting.messaging;
  if (!messaging) return undefined;
  // Each stream, then `complete`: an iteration's send → the last arrival it caused (every waiter of a notify).
  const curves = messagingStreams(messaging).map((stream) => ({
    label: stream.latency,
    count: stream.accounting.latencyMs.count,
    histogram: stream.accounting.histogram,
  }));
  if (messaging.complete) {
    const { latencyMs, histogram } = messaging.complete;
    curves.push({ label: 'send → last arrival (complete)', count: latencyMs.count, histogram });
  }
  const percentiles = percentilesFor(Math.max(0, ...curves.map((curve) => curve.count)));
  const series: ChartSeries[] = [];
  curves.forEach((curve, index) => {
    // A curve with fewer samples is drawn where its count resolves, null beyond.
    const values = percentileCurve(curve.histogram, percentilesFor(curve.count));
    if (!values) return;
    series.push({
      label: curve.label,
      values: percentiles.map((_, at) => values[at] ?? null),
      axis: 'y',
      color: colorAt(index),
    });
  });
  if (series.length === 0) return undefined;
  return {
    id: `streams-${key}`,
    title: `${scenario.name}: messaging latency by percentile`,
    kind: 'lines',
    x: { label: 'percentile', scale: 'nines', values: percentiles.map(ninesOf) },
    y: { label: 'latency (ms)', log: wantsLog(series) },
    series,
  };
}
