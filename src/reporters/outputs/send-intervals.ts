/**
 * How often the URL outputs send, read from the environment the way their ecosystems set it, so a
 * user of k6 or of an OpenTelemetry SDK finds the knob where they look for it:
 *
 * - `prometheus-rw`: `SVC_PROMETHEUS_RW_PUSH_INTERVAL`, a duration (`5s`, `500ms`), after k6's
 *   `K6_PROMETHEUS_RW_PUSH_INTERVAL`;
 * - `otlp`: `OTEL_METRIC_EXPORT_INTERVAL` and `OTEL_METRIC_EXPORT_TIMEOUT`, whole milliseconds, as the
 *   OpenTelemetry specification defines them for a periodic metric reader.
 *
 * Both default to 1 s, the records' own pace: a dashboard shows each second as it ends, and OTLP's
 * latency statistics, which are gauges of one whole second, miss none. k6 pushes remote write every
 * 5 s and its OTLP output exports every 10 s; measured here (bench/outputs-cost.ts, every output on at
 * 3,000 req/s), sending every 5 s instead of every second showed no gain the machine's noise did not
 * swallow (geometric means 1.10 and 1.01 of the CPU per request against no output, in that order), so
 * the finer default stays. Remote write loses nothing at a longer interval (its samples keep their
 * seconds); OTLP then carries the last whole second's gauges at each export.
 */
import { parseDurationMs } from '../../shared/duration.ts';

export interface SendIntervals {
  /** How often remote write seals a batch of samples and sends it. */
  readonly remoteWriteEveryMs: number;
  /** How often the OTLP reader collects and exports. */
  readonly otlpExportIntervalMs: number;
  /** How long one OTLP export may take; never more than its interval (one export at a time). */
  readonly otlpExportTimeoutMs: number;
}

/** Once a second, as the records come, for both URL outputs. */
const defaultSendEveryMs = 1000;
/** What an export may take by default: the interval less room for the next one to start on time. */
const defaultTimeoutShareOfInterval = 0.95;

/** Shortest interval accepted: below it the sending is the run's main cost, not its record. */
const shortestMs = 100;

type Env = Readonly<Record<string, string | undefined>>;

const given = (env: Env, name: string) => {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
};

/** Whole milliseconds, as OTEL_METRIC_EXPORT_* are; undefined when `text` is not. */
const wholeMs = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : undefined);

/**
 * The intervals the outputs of `kinds` send at, from `env`, or the one line saying which variable is
 * wrong (only the variables of the kinds in use are read: a json output needs none). `kinds` are
 * strings: output-kinds.ts's type would close an import cycle through the writers.
 */
export function sendIntervalsOf(env: Env, kinds: readonly string[]): SendIntervals | string {
  let remoteWriteEveryMs = defaultSendEveryMs;
  let otlpExportIntervalMs = defaultSendEveryMs;
  let otlpTimeout: number | undefined;
  if (kinds.includes('prometheus-rw')) {
    const text = given(env, 'SVC_PROMETHEUS_RW_PUSH_INTERVAL');
    if (text !== undefined) {
      const ms = parseDurationMs(text);
      if (ms === undefined || ms < shortestMs) {
        return `SVC_PROMETHEUS_RW_PUSH_INTERVAL is ${JSON.stringify(text)}: give a duration of at least ${shortestMs}ms (5s, 500ms)`;
      }
      remoteWriteEveryMs = ms;
    }
  }
  if (kinds.includes('otlp')) {
    const interval = given(env, 'OTEL_METRIC_EXPORT_INTERVAL');
    if (interval !== undefined) {
      const ms = wholeMs(interval);
      if (ms === undefined || ms < shortestMs) {
        return `OTEL_METRIC_EXPORT_INTERVAL is ${JSON.stringify(interval)}: give whole milliseconds, at least ${shortestMs} (5000 is 5 s)`;
      }
      otlpExportIntervalMs = ms;
    }
    const timeout = given(env, 'OTEL_METRIC_EXPORT_TIMEOUT');
    if (timeout !== undefined) {
      const ms = wholeMs(timeout);
      if (ms === undefined || ms < 1) {
        return `OTEL_METRIC_EXPORT_TIMEOUT is ${JSON.stringify(timeout)}: give whole milliseconds (30000 is 30 s)`;
      }
      otlpTimeout = ms;
    }
  }
  return {
    remoteWriteEveryMs,
    otlpExportIntervalMs,
    otlpExportTimeoutMs: Math.min(
      otlpTimeout ?? Math.round(otlpExportIntervalMs * defaultTimeoutShareOfInterval),
      otlpExportIntervalMs,
    ),
  };
}

/** The defaults, as sendIntervalsOf gives them with nothing set. */
export const defaultSendIntervals: SendIntervals = sendIntervalsOf({}, []) as SendIntervals;
