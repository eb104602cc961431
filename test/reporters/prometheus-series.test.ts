/**
 * The records as Prometheus samples (src/reporters/outputs/prometheus-series.ts), by kind: a counter's
 * increases summed per series into a `_total`, a rate as a pair of `_total` counters split by
 * `outcome`, a trend as quantile gauges in seconds and a `_count` counter; labels sorted with
 * `__name__`, tags as labels (names cleaned, collisions renamed); events make none; a metric the
 * mapping has never heard of flows through by its kind. And the wire format (remote-write.ts) read back.
 */
import { describe, expect, test } from 'vitest';
import { type LiveRecord, LiveRecords } from '../../src/reporters/outputs/live-records.ts';
import { labelName, PrometheusSeries, type Sample } from '../../src/reporters/outputs/prometheus-series.ts';
import { decodeWriteRequest, encodeWriteRequest } from '../../src/reporters/outputs/remote-write.ts';

const labels = { run_id: 'r1', scenario: 'command', engine: 'node', target: 'reference' };
const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 20, 0, second)).toISOString();

const reqs = (second: number, value: number, tags: Record<string, string>): LiveRecord => ({
  type: 'point',
  metric: 'http_reqs',
  kind: 'counter',
  labels,
  tags,
  time: at(second),
  value,
});

const named = (sample: Sample) => Object.fromEntries(sample.labels.map((label) => [label.name, label.value]));

describe('PrometheusSeries', () => {
  test("a counter's increases are summed per series: each sample is the series' total so far", () => {
    const series = new PrometheusSeries();
    const first = series.samples([reqs(1, 10, { op: 'GET' }), reqs(1, 3, { op: 'SET' })]);
    const second = series.samples([reqs(2, 5, { op: 'GET' }), reqs(2, 0, { op: 'SET' })]);
    expect([...first, ...second].map((sample) => [named(sample).op, sample.value])).toEqual([
      ['GET', 10],
      ['SET', 3],
      ['GET', 15],
      ['SET', 3],
    ]);
    expect(named(first[0] as Sample)).toEqual({ __name__: 'svc_harness_http_reqs_total', ...labels, op: 'GET' });
    expect(first[0]?.timestampMs).toBe(Date.parse(at(1)));
    // Sorted by name, as remote write asks.
    const names = first[0]?.labels.map((label) => label.name) ?? [];
    expect(names).toEqual([...names].sort());
  });

  test('a rate is a pair of counters, outcome true (count) and false (total - count)', () => {
    const series = new PrometheusSeries();
    const check = (second: number, count: number, total: number): LiveRecord => ({
      type: 'point',
      metric: 'checks',
      kind: 'rate',
      labels: { ...labels, check: 'status is 200' },
      tags: {},
      time: at(second),
      value: count / total,
      count,
      total,
    });
    const samples = series.samples([check(1, 9, 10), check(2, 20, 20)]);
    expect(samples.map((sample) => [named(sample).__name__, named(sample).outcome, sample.value])).toEqual([
      ['svc_harness_checks_total', 'true', 9],
      ['svc_harness_checks_total', 'false', 1],
      ['svc_harness_checks_total', 'true', 29],
      ['svc_harness_checks_total', 'false', 1],
    ]);
    expect(named(samples[0] as Sample).check).toBe('status is 200');
  });

  test("a trend is gauges of that second's quantiles in seconds, and a counter of the answers they describe", () => {
    const series = new PrometheusSeries();
    const trend = (second: number, count: number): LiveRecord => ({
      type: 'point',
      metric: 'http_req_duration',
      kind: 'trend',
      unit: 'ms',
      labels,
      time: at(second + 1),
      second,
      count,
      p50: 1.5,
      p90: 2,
      p99: 12.5,
      max: 40,
    });
    const samples = series.samples([trend(0, 100), trend(1, 50)]);
    expect(samples.slice(0, 5).map((sample) => [named(sample).__name__, named(sample).quantile, sample.value])).toEqual(
      [
        ['svc_harness_http_req_duration_seconds', '0.5', 0.0015],
        ['svc_harness_http_req_duration_seconds', '0.9', 0.002],
        ['svc_harness_http_req_duration_seconds', '0.99', 0.0125],
        ['svc_harness_http_req_duration_seconds', '1', 0.04],
        ['svc_harness_http_req_duration_seconds_count', undefined, 100],
      ],
    );
    expect(samples.at(-1)?.value).toBe(150);
  });

  test('tags become labels: names Prometheus refuses are cleaned, a name of ours is renamed, a repeat keeps the first', () => {
    expect(labelName('op')).toBe('op');
    expect(labelName('http.method')).toBe('http_method');
    expect(labelName('9lives')).toBe('_9lives');
    expect(labelName('__secret')).toBe('tag__secret');
    expect(labelName('scenario')).toBe('tag_scenario');
    expect(labelName('quantile')).toBe('tag_quantile');
    const [sample] = new PrometheusSeries().samples([reqs(1, 1, { scenario: 'x', 'a-b': '1', a_b: '2' })]);
    expect(named(sample as Sample)).toEqual({
      __name__: 'svc_harness_http_reqs_total',
      ...labels,
      tag_scenario: 'x',
      a_b: '1',
    });
  });

  test('events make no sample; a metric added later flows through by its kind', () => {
    const series = new PrometheusSeries();
    const event: LiveRecord = { type: 'event', event: 'run_start', labels, time: at(0), command: 'load' };
    expect(series.samples([event])).toEqual([]);
    const later = { ...reqs(1, 4, {}), metric: 'messages_delivered' } as unknown as LiveRecord;
    expect(series.samples([later]).map((sample) => [named(sample).__name__, sample.value])).toEqual([
      ['svc_harness_messages_delivered_total', 4],
    ]);
  });
});

describe("the live records' gauges and labels", () => {
  test("a threshold's gauge: its value (none while it has no data) and _ok as 1 or 0, labelled by its expression", () => {
    const series = new PrometheusSeries();
    const gauge = (value: number | null, ok: boolean): LiveRecord =>
      ({
        type: 'point',
        metric: 'threshold',
        kind: 'gauge',
        labels: { ...labels, threshold: 'http_req_duration: p(99) < 1500' },
        time: at(1),
        value,
        ok,
        threshold_metric: 'http_req_duration',
        source: 'scenario',
        elapsed_s: 1,
      }) as LiveRecord;
    const samples = series.samples([gauge(null, false), gauge(12.5, true)]);
    expect(samples.map((sample) => [named(sample).__name__, sample.value])).toEqual([
      ['svc_harness_threshold_ok', 0],
      ['svc_harness_threshold', 12.5],
      ['svc_harness_threshold_ok', 1],
    ]);
    expect(named(samples[1] as Sample).threshold).toBe('http_req_duration: p(99) < 1500');
  });

  test("a soak's sample of a process: its gauge as it stands, labelled by the process, no _ok", () => {
    const series = new PrometheusSeries();
    const records = new LiveRecords(() => new Date(at(2)));
    const samples = series.samples([
      ...records.resources({ process: 'implementation', elapsedS: 1, rssBytes: 83_886_080, cpuCores: null }),
      ...records.resources({ process: 'harness', elapsedS: 1.25, rssBytes: 120_000_000, cpuCores: 0.4 }),
    ]);
    expect(samples.map((sample) => [named(sample).__name__, named(sample).process, sample.value])).toEqual([
      ['svc_harness_process_resident_memory_bytes', 'implementation', 83_886_080],
      ['svc_harness_process_resident_memory_bytes', 'harness', 120_000_000],
      ['svc_harness_process_cpu_cores', 'harness', 0.4],
    ]);
  });
});

describe('the remote-write body', () => {
  test('a snappy-compressed WriteRequest that reads back as the series sent', () => {
    const timeseries = [
      {
        labels: [
          { name: '__name__', value: 'svc_harness_http_reqs_total' },
          { name: 'run_id', value: 'r1' },
        ],
        samples: [
          { value: 10, timestamp: 1_796_000_000_000 },
          { value: 15.5, timestamp: 1_796_000_001_000 },
        ],
      },
    ];
    const body = encodeWriteRequest(timeseries);
    // Snappy's block format starts with the uncompressed length as a varint, no stream identifier.
    expect(body[0]).not.toBe(0xff);
    expect(decodeWriteRequest(body)).toEqual(timeseries);
  });
});
