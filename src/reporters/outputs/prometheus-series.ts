/**
 * The run's records (live-records.ts) as Prometheus samples, for `--out prometheus-rw=URL`. Pure: no
 * clock, no network; prometheus-rw-output.ts batches what this makes and sends it. The mapping goes by a
 * point's `kind`, never by its metric's name, so a metric added to the records later flows through:
 *
 * - counter (`http_reqs`, `dropped_iterations`): `svc_harness_<metric>_total`, a monotonic counter. The
 *   records carry increases since the series' last point; this sums them per series, so each sample is
 *   the series' total so far and the last one is the report's count.
 * - rate (`http_req_failed`, `checks`): a pair of counters, one metric with an `outcome` label:
 *   `svc_harness_<metric>_total{outcome="true"}` adds `count` (the failed requests, the passed checks),
 *   `{outcome="false"}` adds `total - count`. A pair of counters, not a gauge of the share: counters
 *   add up over series and time (`rate()` of the true ones over `rate()` of both is the share over any
 *   window), a gauge of one second's share does not, and the counts stay exact (the report's).
 * - gauge (a threshold's current value, once a second): `svc_harness_<metric>` with the value (no
 *   sample while it has none) and `svc_harness_<metric>_ok`, 1 while it holds, else 0;
 * - trend (`http_req_duration`, `message_latency`): gauges of one whole second's latency,
 *   `svc_harness_<metric>_seconds{quantile="0.5"|"0.9"|"0.99"|"1"}` (1 is the max, as a quantile is),
 *   in seconds (Prometheus' base unit; the records are in ms), and a counter of the samples they
 *   describe, `svc_harness_<metric>_seconds_count`, as a Prometheus summary names its count. A whole
 *   scenario's trend (a messaging stream's `message_latency` at its end, `final`) is the gauges' last
 *   sample and adds nothing to the count: its samples were counted in their seconds.
 *
 * The prefix `svc_harness_` (after k6's `k6_`): a k6 run and a harness run can share one Prometheus and
 * one dashboard without their series meeting. Labels: `run_id`, `scenario`, `engine`, `target`, `check`
 * (the records' labels) and the tag set, each tag a label of its own (a name Prometheus does not allow
 * has its other characters made `_`; a tag named as one of the labels above becomes `tag_<name>`).
 * Events (run, scenario, thresholds, cases) are not sent: remote write carries samples; they are in the
 * json output and the reports.
 */
import type { LiveRecord, MetricPoint } from './live-records.ts';

/** One label of a series. */
export interface Label {
  readonly name: string;
  readonly value: string;
}

/** One sample of one series: its labels (sorted by name, `__name__` among them), a value, a time (ms). */
export interface Sample {
  /** The series' identity: its labels as one text. */
  readonly key: string;
  readonly labels: readonly Label[];
  readonly value: number;
  readonly timestampMs: number;
}

export const metricPrefix = 'svc_harness_';

const recordLabelNames = ['run_id', 'scenario', 'engine', 'target', 'check', 'threshold', 'stream', 'process'] as const;
const reserved = new Set<string>([...recordLabelNames, 'outcome', 'quantile', '__name__']);

/** A label name Prometheus takes (`[a-zA-Z_][a-zA-Z0-9_]*`, `__` reserved to it). */
export function labelName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_]/g, '_').replace(/^(?=[0-9])/, '_');
  const safe = clean === '' ? '_' : clean.startsWith('__') ? `tag${clean}` : clean;
  return reserved.has(safe) ? `tag_${safe}` : safe;
}

/** A metric name Prometheus takes (`[a-zA-Z_:][a-zA-Z0-9_:]*`). */
export function metricName(name: string): string {
  return `${metricPrefix}${name.replace(/[^a-zA-Z0-9_:]/g, '_')}`;
}

/** A trend's unit: a time in ms or s becomes seconds (the `_seconds` suffix); any other unit is as it is. */
function trendUnit(unit: string | undefined): { readonly suffix: string; readonly scale: number } {
  if (unit === 'ms') return { suffix: '_seconds', scale: 1 / 1000 };
  if (unit === 's') return { suffix: '_seconds', scale: 1 };
  return { suffix: unit ? `_${unit.replace(/[^a-zA-Z0-9_]/g, '_')}` : '', scale: 1 };
}

const quantiles: readonly (readonly ['p50' | 'p90' | 'p99' | 'max', string])[] = [
  ['p50', '0.5'],
  ['p90', '0.9'],
  ['p99', '0.99'],
  ['max', '1'],
];

/**
 * Records in, samples out, with each counter series' total kept across calls. One instance per
 * output: the totals are that output's.
 */
export class PrometheusSeries {
  readonly #totals = new Map<string, number>();

  /** The samples of `records` (events make none), in the records' order. */
  samples(records: readonly LiveRecord[]): Sample[] {
    const out: Sample[] = [];
    for (const record of records) if (record.type === 'point') this.#point(record, out);
    return out;
  }

  #point(point: MetricPoint, out: Sample[]): void {
    const timestampMs = Date.parse(point.time);
    const base = baseLabels(point);
    const add = (name: string, extra: readonly Label[], increase: number) => {
      const labels = series(name, base, extra);
      const key = keyOf(labels);
      const total = (this.#totals.get(key) ?? 0) + increase;
      this.#totals.set(key, total);
      out.push({ key, labels, value: total, timestampMs });
    };
    switch (point.kind) {
      case 'counter':
        add(metricName(`${point.metric}_total`), [], point.value);
        return;
      case 'rate':
        add(metricName(`${point.metric}_total`), [{ name: 'outcome', value: 'true' }], point.count);
        add(metricName(`${point.metric}_total`), [{ name: 'outcome', value: 'false' }], point.total - point.count);
        return;
      case 'trend': {
        const { suffix, scale } = trendUnit(point.unit);
        const name = metricName(`${point.metric}${suffix}`);
        for (const [field, quantile] of quantiles) {
          const labels = series(name, base, [{ name: 'quantile', value: quantile }]);
          out.push({ key: keyOf(labels), labels, value: point[field] * scale, timestampMs });
        }
        // A whole scenario's trend (message_latency at its end) restates its seconds: counting it would count twice.
        if ('second' in point) add(`${name}_count`, [], point.count);
        return;
      }
      case 'gauge': {
        // A threshold's current value, as the report writes it (no sample while it has no data), or a
        // soak's sample of a process.
        const name = metricName(point.metric);
        const labels = series(name, base, []);
        if (point.value !== null) out.push({ key: keyOf(labels), labels, value: point.value, timestampMs });
        if (point.metric === 'threshold') {
          const okLabels = series(`${name}_ok`, base, []);
          out.push({ key: keyOf(okLabels), labels: okLabels, value: point.ok ? 1 : 0, timestampMs });
        }
        return;
      }
      default:
        point satisfies never;
    }
  }
}

/** A point's own labels and its tags, as label pairs (not yet sorted, no name). */
function baseLabels(point: MetricPoint): Label[] {
  const labels: Label[] = [];
  for (const name of recordLabelNames) {
    const value = point.labels[name];
    if (value !== undefined) labels.push({ name, value });
  }
  const tags = 'tags' in point ? point.tags : {};
  // Two tags whose names clean to one (`a-b`, `a_b`): the first keeps it, as a series may not repeat a name.
  for (const [name, value] of Object.entries(tags)) {
    const clean = labelName(name);
    if (!labels.some((label) => label.name === clean)) labels.push({ name: clean, value });
  }
  return labels;
}

/** A series' labels, `__name__` first among them, sorted by name as the remote-write spec asks. */
function series(name: string, base: readonly Label[], extra: readonly Label[]): Label[] {
  return [{ name: '__name__', value: name }, ...base, ...extra].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
}

const keyOf = (labels: readonly Label[]) => labels.map((label) => `${label.name}=${label.value}`).join('\u0000');
