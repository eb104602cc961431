/**
 * The charts of index.html as data, computed in Node at render time: the page's inline script only
 * hands each spec to uPlot, so every number it draws is tested here and the page needs no HDR decoder.
 */
import { type VerdictTotals, verdictKinds } from '../../results/conformance-run.ts';
import { decodeHistogram } from '../../results/histogram.ts';
import { batchCurve, type ScenarioResult, type TagMetrics } from '../../results/load-run.ts';
import type { VerdictKind } from '../../results/verdict.ts';
import type { RuleVerdicts } from '../rule-verdicts.ts';
import type { FaultBand } from './fault-bands.ts';

/**
 * How the x axis reads. `nines`: x is -log10(1 - p/100), so 90, 99, 99.9 % sit one step apart (the
 * HDR percentile plot); `seconds`: linear; `log`: base-10 log (batch sizes); `rules`: one slot per
 * rule, the rule ids in `names`.
 */
export type XScale = 'nines' | 'seconds' | 'log' | 'rules';

export interface ChartSeries {
  readonly label: string;
  /** One per x value; null where there is nothing to draw. */
  readonly values: readonly (number | null)[];
  /** The left axis (`y`) or the right one (`y2`). */
  readonly axis: 'y' | 'y2';
  readonly color: string;
  /** Stacked bars: values are running totals (to draw), `own` the series' own counts (for the legend). */
  readonly own?: readonly number[];
}

export interface ChartSpec {
  /** Stable: the container is `[data-chart="<id>"]`. */
  readonly id: string;
  readonly title: string;
  readonly kind: 'lines' | 'stacked-bars';
  readonly x: {
    readonly label: string;
    readonly scale: XScale;
    readonly values: readonly number[];
    readonly names?: readonly string[];
  };
  readonly y: { readonly label: string; readonly log: boolean };
  readonly y2?: { readonly label: string };
  readonly series: readonly ChartSeries[];
  /** A soak's faults, shaded behind the series over the x values they lasted (fault-bands.ts). */
  readonly bands?: readonly FaultBand[];
}

/** Colour-blind-safe (Okabe–Ito), in the order series are added. */
export const palette = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];
const colorAt = (index: number) => palette[index % palette.length] ?? '#000000';

/** The percentiles a latency curve is drawn at; only those the sample count can resolve are kept. */
export const curvePercentiles: readonly number[] = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999];

/** The nines-axis position of a percentile, rounded so 90 % is exactly 1. */
export function ninesOf(percentile: number): number {
  return Math.round(-Math.log10(1 - percentile / 100) * 1e6) / 1e6;
}

/**
 * The percentiles worth drawing for `count` samples: no more nines than the count resolves (1,200
 * samples resolve 99.9 %, not 99.99 %), so the curve does not run flat along the max.
 */
export function percentilesFor(count: number): number[] {
  const resolved = Math.max(1, Math.log10(Math.max(count, 1)));
  return curvePercentiles.filter((percentile) => ninesOf(percentile) <= resolved + 1e-6);
}

/** An encoded histogram's latencies (ms) at `percentiles`; undefined when it holds no sample. */
export function percentileCurve(encoded: string, percentiles: readonly number[]): number[] | undefined {
  const histogram = decodeHistogram(encoded);
  try {
    if (histogram.totalCount === 0) return undefined;
    return percentiles.map((percentile) => histogram.getValueAtPercentile(percentile) / 1000);
  } finally {
    histogram.destroy();
  }
}

/** Log scale when the values span more than two decades (a pipeline of 1 next to one of 1000). */
export function wantsLog(series: readonly ChartSeries[]): boolean {
  const positive = series.flatMap((line) => line.values).filter((value): value is number => (value ?? 0) > 0);
  return positive.length > 0 && Math.max(...positive) / Math.min(...positive) > 100;
}

/** A lowercase id part; an index keeps two scenarios whose names differ only in punctuation apart. */
export function slug(text: string, index: number): string {
  return `${
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'scenario'
  }-${index}`;
}

export function tagLabel(tags: Readonly<Record<string, string>>): string {
  const label = Object.entries(tags)
    .map(([key, value]) => `${key}:${value}`)
    .join(' ');
  return label === '' ? '(untagged)' : label;
}

/**
 * The tag sets worth showing beside `all requests`, in natural order (batch:1 before batch:10 before
 * batch:100); a lone untagged set is every request again and is left out.
 */
export function shownTags(scenario: ScenarioResult): TagMetrics[] {
  const tags =
    scenario.tags.length === 1 && Object.keys(scenario.tags[0]?.tags ?? {}).length === 0 ? [] : scenario.tags;
  return [...tags].sort((a, b) => tagLabel(a.tags).localeCompare(tagLabel(b.tags), 'en', { numeric: true }));
}

/** Most tag series a latency chart draws beside `all`; more would be unreadable. */
const maxTagCurves = 7;

/** The scenario's latency by percentile: every request, then each tag set (GET, SET, batch sizes). */
export function latencyChart(scenario: ScenarioResult, key: string): ChartSpec | undefined {
  const percentiles = percentilesFor(scenario.latencyMs.count);
  const all = percentileCurve(scenario.histogram, percentiles);
  if (!all) return undefined;
  const curves = [{ label: 'all requests', values: all }];
  // Past the colours a reader can tell apart, the slowest tag sets are drawn (a chart of latency is read
  // for its worst), and the title names the ones left out: the pipeline's slowest batch went missing silently.
  const tags = shownTags(scenario);
  const drawn =
    tags.length <= maxTagCurves
      ? tags
      : [...tags].sort((a, b) => (b.latencyMs.p99 ?? 0) - (a.latencyMs.p99 ?? 0)).slice(0, maxTagCurves);
  for (const tag of tags.filter((item) => drawn.includes(item))) {
    const values = percentileCurve(tag.histogram, percentiles);
    if (values) curves.push({ label: tagLabel(tag.tags), values });
  }
  const left = tags.filter((item) => !drawn.includes(item)).map((item) => tagLabel(item.tags));
  const series = curves.map((curve, index) => ({ ...curve, axis: 'y' as const, color: colorAt(index) }));
  return {
    id: `latency-${key}`,
    title: `${scenario.name}: latency by percentile${left.length > 0 ? ` (not drawn, the fastest: ${left.join(', ')}; the table has every one)` : ''}`,
    kind: 'lines',
    x: { label: 'percentile', scale: 'nines', values: percentiles.map(ninesOf) },
    y: { label: 'latency (ms)', log: wantsLog(series) },
    series,
  };
}

/** Completed requests per second and their p99, second by second; failures when there were any; a soak's faults as bands. */
export function timelineChart(
  scenario: ScenarioResult,
  key: string,
  bands: readonly FaultBand[] = [],
): ChartSpec | undefined {
  const points = scenario.series;
  if (points.length === 0) return undefined;
  const failed = points.some((point) => point.failed > 0);
  return {
    ...(bands.length > 0 && { bands }),
    id: `timeline-${key}`,
    title: `${scenario.name}: throughput and p99 over time${bands.length > 0 ? ' (shaded: the soak’s faults)' : ''}`,
    kind: 'lines',
    x: { label: 'seconds since start', scale: 'seconds', values: points.map((point) => point.second) },
    y: { label: 'requests/s', log: false },
    y2: { label: 'p99 (ms)' },
    series: [
      { label: 'completed/s', values: points.map((point) => point.completed), axis: 'y', color: colorAt(0) },
      ...(failed
        ? [{ label: 'failed/s', values: points.map((point) => point.failed), axis: 'y' as const, color: colorAt(5) }]
        : []),
      { label: 'p99 (ms)', values: points.map((point) => point.p99), axis: 'y2', color: colorAt(1) },
    ],
  };
}

/** The pipeline curve: what each batch size carried (commands/s) and what it cost (p99). */
export function batchChart(scenario: ScenarioResult, key: string): ChartSpec | undefined {
  const curve = batchCurve(scenario);
  if (curve.length === 0) return undefined;
  return {
    id: `batch-${key}`,
    title: `${scenario.name}: commands/s and p99 by batch size`,
    kind: 'lines',
    x: { label: 'batch size (commands per request)', scale: 'log', values: curve.map((point) => point.batch) },
    y: { label: 'commands/s', log: false },
    y2: { label: 'p99 (ms)' },
    series: [
      { label: 'commands/s', values: curve.map((point) => point.commandsPerSecond), axis: 'y', color: colorAt(0) },
      { label: 'p99 (ms)', values: curve.map((point) => point.p99), axis: 'y2', color: colorAt(1) },
    ],
  };
}

/** Publish → event latency of a fan-out, by percentile. */
export function deliveryChart(scenario: ScenarioResult, key: string): ChartSpec | undefined {
  const delivery = scenario.accounting.delivery;
  if (!delivery) return undefined;
  const percentiles = percentilesFor(delivery.latencyMs.count);
  const values = percentileCurve(delivery.histogram, percentiles);
  if (!values) return undefined;
  const series = [{ label: 'publish → event', values, axis: 'y' as const, color: colorAt(2) }];
  return {
    id: `delivery-${key}`,
    title: `${scenario.name}: delivery latency by percentile`,
    kind: 'lines',
    x: { label: 'percentile', scale: 'nines', values: percentiles.map(ninesOf) },
    y: { label: 'publish → event (ms)', log: wantsLog(series) },
    series,
  };
}

/** The three stacks of the verdict chart: `fail` counts what fails the gate by rule (fail, stale); `other` the rest. */
export const verdictStacks = [
  { label: 'pass', color: '#2e7d32', count: (totals: VerdictTotals) => totals.pass },
  { label: 'fail or stale', color: '#c62828', count: (totals: VerdictTotals) => totals.fail + totals.stale },
  {
    label: 'other',
    color: '#9e9e9e',
    count: (totals: VerdictTotals) => totals.total - totals.pass - totals.fail - totals.stale,
  },
] as const;

/** `B.multi-exec.discard.unsupported-command` → `B.multi-exec`: the topic a rule belongs to. */
export function ruleTopic(id: string): string {
  return id.split('.').slice(0, 2).join('.');
}

function addTotals(a: VerdictTotals, b: VerdictTotals): VerdictTotals {
  const sum = Object.fromEntries(verdictKinds.map((kind) => [kind, a[kind] + b[kind]])) as Record<VerdictKind, number>;
  return { ...sum, total: a.total + b.total };
}

/** The rules' verdicts added up per topic, in catalog order: ~40 bars a reader can label, not ~150. */
function byTopic(rules: readonly RuleVerdicts[]): { readonly topic: string; readonly totals: VerdictTotals }[] {
  const topics = new Map<string, VerdictTotals>();
  for (const { rule, totals } of rules) {
    const topic = ruleTopic(rule.id);
    const before = topics.get(topic);
    topics.set(topic, before === undefined ? totals : addTotals(before, totals));
  }
  return [...topics].map(([topic, totals]) => ({ topic, totals }));
}

/**
 * One stacked bar per rule topic (`B.auth`, `A.callback`); the table below the chart has every rule.
 * uPlot has no stacking of its own: each series carries the running total up to itself and the
 * tallest is drawn first, so the shorter ones paint over it from the bottom.
 */
export function verdictChart(rules: readonly RuleVerdicts[]): ChartSpec | undefined {
  if (rules.length === 0) return undefined;
  const topics = byTopic(rules);
  const running = topics.map(() => 0);
  const stacked = verdictStacks.map((stack) => {
    const own = topics.map(({ totals }) => stack.count(totals));
    own.forEach((count, index) => {
      running[index] = (running[index] ?? 0) + count;
    });
    return { label: stack.label, values: [...running], axis: 'y' as const, color: stack.color, own };
  });
  return {
    id: 'verdicts',
    title: 'Conformance: case verdicts by rule topic (every rule in the table below)',
    kind: 'stacked-bars',
    x: {
      label: 'rule topic',
      scale: 'rules',
      values: topics.map((_, index) => index),
      names: topics.map(({ topic }) => topic),
    },
    y: { label: 'cases', log: false },
    series: stacked.reverse(),
  };
}
