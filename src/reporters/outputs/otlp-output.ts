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
 *   keeps as they are;
 * - a gauge (a threshold's value over the load so far, a soak's sample of a process): a Gauge
 *   `svc_harness.<metric>` of the value as it stands, and for a threshold `svc_harness.threshold.ok`
 *   (1 while it holds, 0 while it fails), as remote write sends them.
 *
 * Attributes are the record's labels (`run_id`, `scenario`, `engine`, `target`, `check`, `threshold`,
 * `stream`, `process`) and its tag
 * set, each tag under its own key (`tag.<key>` when it is one of the labels' names); the resource is
 * `service.name=svc-harness` with `service.version`. Events are not metrics and are not sent.
 *
 * It never hurts the run (output-writer.ts): recording is a synchronous add to the SDK's in-memory
 * aggregation, the reader exports once a second (send-intervals.ts) off the caller's path, one export
 * at a time, each bounded by a timeout; an export that fails or times out is one dropped batch,
 * counted with its first error (no credential in it), and since the sums are cumulative the next
 * export that gets through carries what the dropped one had. `close(withinMs)` shuts the provider down (a last collection and
 * export, then the exporter), bounded by `withinMs`; exports still out then are counted as dropped.
 *
 * The SDK side is otlp-sdk.ts, loaded on the first open: a CLI that sends no OTLP (most of its starts)
 * never loads the SDK. Records written while it loads (a few milliseconds: the run's start) are kept
 * and handed over once it has.
 */
import type { LiveRecord } from './live-records.ts';
import type { OtlpOutputOptions } from './otlp-sdk.ts';
import type { OutputWriter } from './output-writer.ts';

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

/** Records kept while the SDK loads, at most: far more than the run's first second makes. */
const maxQueued = 10_000;

/**
 * Opens the OTLP output at `destination` (the OTLP/HTTP base URL or its `/v1/metrics` endpoint; throws
 * on anything else). Headers (a token) come from the SDK's own OTEL_EXPORTER_OTLP_HEADERS or
 * OTEL_EXPORTER_OTLP_METRICS_HEADERS, never from the command line, so none is printed.
 */
export function openOtlpOutput(destination: string, options: OtlpOutputOptions = {}): OutputWriter {
  const url = otlpMetricsUrl(destination);
  let writer: OutputWriter | undefined;
  let failed: string | undefined;
  let queued: LiveRecord[] = [];
  let lost = 0;
  let closed = false;
  const loaded = import('./otlp-sdk.ts').then(
    (sdk) => {
      // Closed before the SDK came: nothing is opened (no reader left running), what was kept is lost.
      if (closed) lost += queued.length;
      else {
        writer = sdk.openOtlpSdkWriter(url, options);
        writer.write(queued);
      }
      queued = [];
    },
    (error: unknown) => {
      failed = `the OpenTelemetry SDK did not load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      queued = [];
    },
  );
  const totals = () => {
    const inner = writer?.totals() ?? { written: 0, dropped: 0 };
    const dropped = inner.dropped + (lost > 0 || failed !== undefined ? 1 : 0);
    const error = inner.error ?? failed ?? (lost > 0 ? `${lost} points not kept while the SDK loaded` : undefined);
    return { written: inner.written, dropped, ...(error !== undefined && { error }) };
  };
  return {
    unit: 'batches',
    write(records) {
      if (closed || failed !== undefined) return;
      if (writer !== undefined) return writer.write(records);
      const room = Math.max(0, maxQueued - queued.length);
      queued.push(...records.slice(0, room));
      lost += Math.max(0, records.length - room);
    },
    totals,
    async close(withinMs) {
      if (closed) return totals();
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loaded, new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))]);
      clearTimeout(timer);
      closed = true;
      if (writer !== undefined) await writer.close(Math.max(0, withinMs - (Date.now() - started)));
      return totals();
    },
  };
}
