/**
 * `--out otlp=URL`: the run's metric points as OpenTelemetry metrics over OTLP/HTTP (protobuf), sent by
 * the OpenTelemetry JS SDK (a MeterProvider, a PeriodicExportingMetricReader, the OTLP/HTTP metric
 * exporter); only the mapping of the records is written here, and it goes by a record's `kind`, never
 * by its name, so a metric added to live-records.ts later flows through unchanged:
 *
 * - a counter (`http_reqs`): an OTel Counter `svc_harness.<metric>` of the record's `value` (the
 *   records carry increments; the exporter sends cumulative sums);
 * - a rate (`http_req_failed`, `checks`): two Counters, `svc_harness.<metric>.count` (the failed
 *   requests, the passed checks) and `svc_harness.<metric>.total` (what they are a share of), which
 *   add up exactly where a share would not: the share over any window is count / total;
 * - a trend (`http_req_duration`, one whole second's latency): Gauges
 *   `svc_harness.<metric>.p50|p90|p99|max` in seconds (`s`, OTel's unit for durations; the records'
 *   ms divided by 1000) and a Counter `svc_harness.<metric>.count` of the answers they describe. A
 *   histogram would need every sample; the records carry each second's percentiles, which a gauge
 *   keeps as they are.
 *
 * Attributes are the record's labels (`run_id`, `scenario`, `engine`, `target`, `check`) and its tag
 * set, each tag under its own key (`tag.<key>` when it is one of the labels' names); the resource is
 * `service.name=svc-harness` with `service.version`. Events are not metrics and are not sent.
 *
 * It never hurts the run (output-writer.ts): recording is a synchronous add to the SDK's in-memory
 * aggregation, the reader exports once a second off the caller's path, one export at a time, each
 * bounded by a timeout; an export that fails or times out is one dropped batch, counted with its first
 * error (no credential in it), and since the sums are cumulative the next export that gets through
 * carries what the dropped one had. `close(withinMs)` shuts the provider down (a last collection and
 * export, then the exporter), bounded by `withinMs`; exports still out then are counted as dropped.
 */
import { type Attributes, type Counter, type Gauge, type Meter, ValueType } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { toolVersion } from '../../shared/tool-version.ts';
import type { LiveRecord, MetricPoint, RecordLabels } from './live-records.ts';
import type { OutputWriter } from './output-writer.ts';

/** The prefix of every metric's name: k6's names (live-records.ts) under the harness's namespace. */
export const otlpMetricPrefix = 'svc_harness';
/** How often the reader collects and exports: the records come once a second. */
export const otlpExportIntervalMs = 1000;
/** How long one export may take, the HTTP request included (within the interval: one at a time). */
export const otlpExportTimeoutMs = 950;

/** The statistics of a trend record sent as gauges, in the record's unit (converted to seconds). */
const trendStatistics = ['p50', 'p90', 'p99', 'max'] as const;

/** A count's unit by metric (UCUM annotations, as OTel's semantic conventions write them); `1` else. */
const countUnits: Readonly<Record<string, string>> = {
  http_reqs: '{request}',
  http_req_failed: '{request}',
  http_req_duration: '{request}',
  dropped_iterations: '{iteration}',
  checks: '{check}',
};

const labelNames: readonly (keyof RecordLabels)[] = ['run_id', 'scenario', 'engine', 'target', 'check'];

/**
 * The metrics endpoint of `destination`: a URL ending in `/v1/metrics` as it is, else the OTLP/HTTP
 * base URL it is (`http://collector:4318`, `https://otlp.example/otlp`) with `v1/metrics` appended, as
 * the OpenTelemetry SDKs read OTEL_EXPORTER_OTLP_ENDPOINT. Throws on anything but http(s).
 */
export function otlpMetricsUrl(destination: string): string {
  const url = new URL(destination);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${url.protocol} is not http: or https:`);
  }
  if (!/\/v1\/metrics\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/metrics`;
  return url.href;
}

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
      const seconds = point.unit === 'ms' ? 's' : point.unit;
      for (const statistic of trendStatistics) {
        instruments
          .gauge(`${name}.${statistic}`, seconds, `${point.metric}: ${statistic} of one whole second`)
          .record(toSeconds(point[statistic], point.unit), attributes);
      }
      instruments
        .counter(`${name}.count`, unit, `${point.metric}: the samples of its seconds`)
        .add(point.count, attributes);
      return;
    }
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
  /** @default otlpExportIntervalMs */
  readonly exportIntervalMs?: number;
  /** @default otlpExportTimeoutMs */
  readonly exportTimeoutMs?: number;
}

/**
 * Opens the OTLP output at `destination` (the OTLP/HTTP base URL or its `/v1/metrics` endpoint).
 * Headers (a token) come from the SDK's own OTEL_EXPORTER_OTLP_HEADERS or
 * OTEL_EXPORTER_OTLP_METRICS_HEADERS, never from the command line, so none is printed.
 */
export function openOtlpOutput(destination: string, options: OtlpOutputOptions = {}): OutputWriter {
  const intervalMs = options.exportIntervalMs ?? otlpExportIntervalMs;
  const timeoutMs = Math.min(options.exportTimeoutMs ?? otlpExportTimeoutMs, intervalMs);
  const counting = countingExporter(
    new OTLPMetricExporter({ url: otlpMetricsUrl(destination), timeoutMillis: timeoutMs, concurrencyLimit: 4 }),
  );
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
