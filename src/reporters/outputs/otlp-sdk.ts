/**
 * The OTLP output's SDK side (otlp-output.ts loads it on first use, so a CLI that sends no OTLP never
 * loads the OpenTelemetry SDK): a MeterProvider with a PeriodicExportingMetricReader and the OTLP/HTTP
 * protobuf exporter, and the mapping of the records by kind, which otlp-output.ts describes.
 */
import { type Attributes, type Counter, type Gauge, type Meter, ValueType } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { toolVersion } from '../../shared/tool-version.ts';
import type { LiveRecord, MetricPoint, RecordLabels } from './live-records.ts';
import type { OutputWriter } from './output-writer.ts';
import { defaultSendIntervals } from './send-intervals.ts';

/** The prefix of every metric's name: k6's names (live-records.ts) under the harness's namespace. */
export const otlpMetricPrefix = 'svc_harness';

/** The statistics of a trend record sent as gauges, in the record's unit (converted to seconds). */
const trendStatistics = ['p50', 'p90', 'p99', 'max'] as const;

/** A count's unit by metric (UCUM annotations, as OTel's semantic conventions write them); `1` else. */
const countUnits: Readonly<Record<string, string>> = {
  http_reqs: '{request}',
  http_req_failed: '{request}',
  http_req_duration: '{request}',
  dropped_iterations: '{iteration}',
  checks: '{check}',
  messages_arrived: '{message}',
  messages_repeated: '{message}',
  message_latency: '{message}',
};

// `stream` and `process` tell a messaging stream's and a soak process's series apart (without them
// the delivery and callback counters would add into one), `threshold` one threshold's from another's.
const labelNames: readonly (keyof RecordLabels)[] = [
  'run_id',
  'scenario',
  'engine',
  'target',
  'check',
  'threshold',
  'stream',
  'process',
];

/** The record's attributes: its labels, then its tags (a tag named as a label under `tag.<name>`). */
export function otlpAttributes(point: MetricPoint): Attributes {
  const attributes: Record<string, string> = {};
  for (const name of labelNames) {
    const value = point.labels[name];
    if (value !== undefined) attributes[name] = value;
  }
  const tags = 'tags' in point ? point.tags : {};
  for (const [key, value] of Object.entries(tags)) {
    attributes[(labelNames as readonly string[]).includes(key) ? `tag.${key}` : key] = value;
  }
  return attributes;
}

/** A duration in the record's unit as seconds; a value of another unit as it is. */
const toSeconds = (value: number, unit: string) => (unit === 'ms' ? value / 1000 : value);

/** The instruments of one meter, made on first use of each name. */
class Instruments {
  readonly #meter: Meter;
  readonly #counters = new Map<string, Counter>();
  readonly #gauges = new Map<string, Gauge>();

  constructor(meter: Meter) {
    this.#meter = meter;
  }

  counter(name: string, unit: string, description: string): Counter {
    let counter = this.#counters.get(name);
    if (counter === undefined) {
      counter = this.#meter.createCounter(name, { unit, description, valueType: ValueType.INT });
      this.#counters.set(name, counter);
    }
    return counter;
  }

  gauge(name: string, unit: string, description: string): Gauge {
    let gauge = this.#gauges.get(name);
    if (gauge === undefined) {
      gauge = this.#meter.createGauge(name, { unit, description, valueType: ValueType.DOUBLE });
      this.#gauges.set(name, gauge);
    }
    return gauge;
  }
}

/** Records one metric point into the instruments, by its kind. */
function recordPoint(instruments: Instruments, point: MetricPoint): void {
  const name = `${otlpMetricPrefix}.${point.metric}`;
  const unit = countUnits[point.metric] ?? '1';
  const attributes = otlpAttributes(point);
  switch (point.kind) {
    case 'counter':
      instruments
        .counter(name, unit, `${point.metric}: k6's counter, as the NDJSON output's`)
        .add(point.value, attributes);
      return;
    case 'rate':
      instruments.counter(`${name}.count`, unit, `${point.metric}: what the rate counts`).add(point.count, attributes);
      instruments.counter(`${name}.total`, unit, `${point.metric}: what it is a share of`).add(point.total, attributes);
      return;
    case 'trend': {
      // Every trend's unit is ms (live-record-types.ts): sent in seconds, OTel's unit for durations.
      const seconds = 's';
      for (const statistic of trendStatistics) {
        instruments
          .gauge(`${name}.${statistic}`, seconds, `${point.metric}: ${statistic} of one whole second`)
          .record(toSeconds(point[statistic], point.unit), attributes);
      }
      // A whole scenario's trend (message_latency at its end) restates its seconds: counting it would count twice.
      if ('second' in point) {
        instruments
          .counter(`${name}.count`, unit, `${point.metric}: the samples of its seconds`)
          .add(point.count, attributes);
      }
      return;
    }
    case 'gauge':
      if (point.metric === 'threshold') {
        // A threshold's value as the report writes it (ms, a fraction, a count: the unit is the
        // threshold's metric's, so `1`), none while it has no data, and whether it holds (1 or 0),
        // as remote write sends `svc_harness_threshold` and `svc_harness_threshold_ok`.
        if (point.value !== null) {
          instruments
            .gauge(name, '1', 'a threshold: the value it compares, over the load so far')
            .record(point.value, attributes);
        }
        instruments
          .gauge(`${name}.ok`, '1', 'a threshold: 1 while it holds, 0 while it fails')
          .record(point.ok ? 1 : 0, attributes);
        return;
      }
      instruments
        .gauge(name, point.unit === 'bytes' ? 'By' : '1', `${point.metric}: a soak's sample of a process`)
        .record(point.value, attributes);
      return;
  }
}

/** An error's first line with any URL's user and password taken out. */
function safeLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // The exporter's HTTP errors carry the status as a number (`Bad Request` alone says too little).
  const status = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  const text = typeof status === 'number' ? `HTTP ${status} ${message}` : message;
  return (text.split('\n')[0] ?? '').replace(/(\w+:\/\/)[^/\s@]*@/g, '$1***@').slice(0, 300);
}

/**
 * Wraps the exporter so each export's outcome is counted: a batch written, or dropped with its error.
 * Exports still out when the writer closes are counted as dropped then, and not again when they end.
 */
function countingExporter(inner: PushMetricExporter) {
  const counts = { written: 0, dropped: 0, error: undefined as string | undefined };
  const out = new Set<object>();
  let closed = false;
  const exporter: PushMetricExporter = {
    export(metrics, done) {
      const batch = {};
      out.add(batch);
      const settle = (ok: boolean, error?: unknown) => {
        if (!out.delete(batch) || closed) return;
        if (ok) counts.written++;
        else {
          counts.dropped++;
          counts.error ??= safeLine(error ?? 'export failed');
        }
      };
      try {
        inner.export(metrics, (result) => {
          settle(result.code === ExportResultCode.SUCCESS, result.error);
          done(result);
        });
      } catch (error) {
        settle(false, error);
        done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    ...(inner.selectAggregationTemporality && {
      selectAggregationTemporality: inner.selectAggregationTemporality.bind(inner),
    }),
    ...(inner.selectAggregation && { selectAggregation: inner.selectAggregation.bind(inner) }),
  };
  const close = () => {
    closed = true;
    counts.dropped += out.size;
    out.clear();
  };
  return { exporter, counts, close };
}

export interface OtlpOutputOptions {
  /** How often the reader collects and exports. @default 1000 (send-intervals.ts) */
  readonly exportIntervalMs?: number;
  /** How long one export may take, its HTTP request included. @default 950, and never more than the interval */
  readonly exportTimeoutMs?: number;
}

/** The writer sending to `url` (the metrics endpoint, otlpMetricsUrl's). */
export function openOtlpSdkWriter(url: string, options: OtlpOutputOptions = {}): OutputWriter {
  const intervalMs = options.exportIntervalMs ?? defaultSendIntervals.otlpExportIntervalMs;
  const timeoutMs = Math.min(options.exportTimeoutMs ?? defaultSendIntervals.otlpExportTimeoutMs, intervalMs);
  const counting = countingExporter(new OTLPMetricExporter({ url, timeoutMillis: timeoutMs, concurrencyLimit: 4 }));
  const reader = new PeriodicExportingMetricReader({
    exporter: counting.exporter,
    exportIntervalMillis: intervalMs,
    exportTimeoutMillis: timeoutMs,
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'svc-harness', 'service.version': toolVersion() }),
    readers: [reader],
  });
  const instruments = new Instruments(provider.getMeter('svc-harness'));
  let closed = false;
  let failedRecords = 0;
  const totals = () => ({
    written: counting.counts.written,
    dropped: counting.counts.dropped,
    ...(counting.counts.error !== undefined && { error: counting.counts.error }),
    ...(failedRecords > 0 && counting.counts.error === undefined && { error: `${failedRecords} points not recorded` }),
  });
  return {
    unit: 'batches',
    write(records: readonly LiveRecord[]) {
      if (closed) return;
      for (const record of records) {
        if (record.type !== 'point') continue;
        try {
          recordPoint(instruments, record);
        } catch {
          failedRecords++;
        }
      }
    },
    totals,
    async close(withinMs) {
      if (closed) return totals();
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      // Shutting down collects and exports once more (what the last interval had), then stops the
      // reader's timer and the exporter; past `withinMs` the run's end goes on without it.
      await Promise.race([
        provider.shutdown({ timeoutMillis: withinMs }).catch(() => {}),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, withinMs);
        }),
      ]);
      clearTimeout(timer);
      counting.close();
      return totals();
    },
  };
}
