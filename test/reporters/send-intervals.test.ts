import { describe, expect, test } from 'vitest';
import { defaultSendIntervals, sendIntervalsOf } from '../../src/reporters/outputs/send-intervals.ts';

describe('sendIntervalsOf', () => {
  test('nothing set: once a second for both URL outputs, an OTLP export given 950 ms', () => {
    expect(sendIntervalsOf({}, ['prometheus-rw', 'otlp'])).toEqual({
      remoteWriteEveryMs: 1000,
      otlpExportIntervalMs: 1000,
      otlpExportTimeoutMs: 950,
    });
    expect(defaultSendIntervals).toEqual(sendIntervalsOf({}, []));
  });

  test("remote write's interval is a duration (k6's K6_PROMETHEUS_RW_PUSH_INTERVAL), OTLP's whole ms (the OTel spec's)", () => {
    const env = { SVC_PROMETHEUS_RW_PUSH_INTERVAL: '5s', OTEL_METRIC_EXPORT_INTERVAL: '10000' };
    expect(sendIntervalsOf(env, ['prometheus-rw', 'otlp'])).toEqual({
      remoteWriteEveryMs: 5000,
      otlpExportIntervalMs: 10_000,
      otlpExportTimeoutMs: 9500,
    });
    expect(sendIntervalsOf({ SVC_PROMETHEUS_RW_PUSH_INTERVAL: '1m30s' }, ['prometheus-rw'])).toMatchObject({
      remoteWriteEveryMs: 90_000,
    });
    // An export's timeout as given, but never past its interval (one export at a time).
    expect(
      sendIntervalsOf({ OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_METRIC_EXPORT_TIMEOUT: '30000' }, ['otlp']),
    ).toMatchObject({ otlpExportTimeoutMs: 1000 });
    expect(sendIntervalsOf({ OTEL_METRIC_EXPORT_TIMEOUT: '700' }, ['otlp'])).toMatchObject({
      otlpExportTimeoutMs: 700,
    });
  });

  test('a wrong value is one line naming the variable; only the variables of the kinds in use are read', () => {
    expect(sendIntervalsOf({ SVC_PROMETHEUS_RW_PUSH_INTERVAL: 'often' }, ['prometheus-rw'])).toBe(
      'SVC_PROMETHEUS_RW_PUSH_INTERVAL is "often": give a duration of at least 100ms (5s, 500ms)',
    );
    expect(sendIntervalsOf({ SVC_PROMETHEUS_RW_PUSH_INTERVAL: '10ms' }, ['prometheus-rw'])).toMatch(/at least 100ms/);
    // OTel's variables are milliseconds: `5s` is not one, and a bare `5` would be 5 ms, below the floor.
    expect(sendIntervalsOf({ OTEL_METRIC_EXPORT_INTERVAL: '5s' }, ['otlp'])).toBe(
      'OTEL_METRIC_EXPORT_INTERVAL is "5s": give whole milliseconds, at least 100 (5000 is 5 s)',
    );
    expect(sendIntervalsOf({ OTEL_METRIC_EXPORT_INTERVAL: '5' }, ['otlp'])).toMatch(/at least 100/);
    expect(sendIntervalsOf({ OTEL_METRIC_EXPORT_TIMEOUT: '-1' }, ['otlp'])).toMatch(
      /^OTEL_METRIC_EXPORT_TIMEOUT is "-1"/,
    );
    expect(
      sendIntervalsOf({ SVC_PROMETHEUS_RW_PUSH_INTERVAL: 'often', OTEL_METRIC_EXPORT_INTERVAL: 'x' }, ['json']),
    ).toEqual(defaultSendIntervals);
    // Empty is unset, as the SDKs read it.
    expect(sendIntervalsOf({ OTEL_METRIC_EXPORT_INTERVAL: ' ' }, ['otlp'])).toEqual(defaultSendIntervals);
  });
});
