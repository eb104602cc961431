/**
 * The records every live output writes (live-records.ts makes them): metric points and events, one
 * closed union, so each output kind maps each record by its `metric`/`event` and `kind` to its own wire
 * format. Kinds: `counter` (an increase since the series' last point), `rate` (`count` of `total`
 * since then), `trend` (latency percentiles, ms: one second's while the load runs, or a whole
 * scenario's, `final`, at its end), `gauge` (a value as it stands: a threshold's).
 */
import type { ThresholdResult } from '../../results/load-run.ts';

/** Who a record is about: the run, and for load the scenario, its engine and target (a check's name too). */
export interface RecordLabels {
  readonly run_id?: string;
  readonly scenario?: string;
  readonly engine?: string;
  readonly target?: string;
  readonly check?: string;
  /** A threshold's point: its expression, as written (`http_req_duration{op:GET}: p(99)<50`). */
  readonly threshold?: string;
  /** A messaging stream's point: `delivery`, `callback`, `failure_callback`, `waiter`, or `fanout` (kv-fanout's subscribers). */
  readonly stream?: MessageStream;
  /** A soak's resource point: `implementation` or `harness`. */
  readonly process?: 'implementation' | 'harness';
}

/** The streams a messaging scenario accounts for, and kv-fanout's deliveries to its subscribers. */
export type MessageStream = 'delivery' | 'callback' | 'failure_callback' | 'waiter' | 'fanout';

interface RecordBase {
  /** ISO time the record was made. */
  readonly time: string;
  readonly labels: RecordLabels;
}

/** A counter's increase since the series' last point, live or at the end (`final`). */
interface LiveCounter extends RecordBase {
  readonly type: 'point';
  readonly kind: 'counter';
  readonly value: number;
  /** The scenario's tag set the requests carried (`{}`: none, and the requests counted without tags). */
  readonly tags: Readonly<Record<string, string>>;
  /** Per second over the interval since the series' last point (live points only). */
  readonly rate?: number;
  /** Seconds since the scenario's measured load began (live points only). */
  readonly elapsed_s?: number;
  /** What the live points had not counted, at the scenario's end. */
  readonly final?: true;
}

/** The requests that ended, and the arrivals due and never sent. */
export interface CounterPoint extends LiveCounter {
  readonly metric: 'http_reqs' | 'dropped_iterations';
}

/** A share since the series' last point: `count` of `total` (`value` = count / total, 0 when total is 0). */
export interface RatePoint extends RecordBase {
  readonly type: 'point';
  readonly metric: 'http_req_failed' | 'checks';
  readonly kind: 'rate';
  readonly value: number;
  readonly count: number;
  readonly total: number;
  readonly tags: Readonly<Record<string, string>>;
  readonly elapsed_s?: number;
  readonly final?: true;
}

/** One second's latency statistics, ms. */
interface SecondTrend extends RecordBase {
  readonly type: 'point';
  readonly kind: 'trend';
  readonly unit: 'ms';
  /** That second, from 0 at the scenario's start. */
  readonly second: number;
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** Latency of the answers completed in one whole second of the scenario (the report's series point). */
export interface TrendPoint extends SecondTrend {
  readonly metric: 'http_req_duration';
}

/**
 * A threshold's value over the scenario's load so far, once a second while it runs (`labels.threshold`
 * its expression): what it would be judged if the scenario ended now.
 */
export interface ThresholdPoint extends RecordBase {
  readonly type: 'point';
  readonly metric: 'threshold';
  readonly kind: 'gauge';
  /** The value compared (ms, a fraction, a count, as in the report); null while there is no data. */
  readonly value: number | null;
  /** It holds (false while there is no data, as at the end). */
  readonly ok: boolean;
  /** The threshold's metric (`http_req_duration`). */
  readonly threshold_metric: string;
  readonly source: ThresholdResult['source'];
  readonly elapsed_s: number;
}

/**
 * A messaging stream's accounting at its scenario's end (`final`, `labels.stream`): which keys were
 * expected is known only once the load is over, so these have no live points. `messages_expected` the
 * arrivals the accepted iterations must cause; `_received` those that came (each once), `_lost` those
 * that did not, `_duplicated` arrivals beyond a key's first, `_unexpected` arrivals nothing expected,
 * `_out_of_order` (fan-out only) deliveries behind a later one.
 */
export interface MessageCounterPoint extends RecordBase {
  readonly type: 'point';
  readonly metric:
    | 'messages_expected'
    | 'messages_received'
    | 'messages_lost'
    | 'messages_duplicated'
    | 'messages_unexpected'
    | 'messages_out_of_order';
  readonly kind: 'counter';
  readonly value: number;
  readonly tags: Readonly<Record<string, string>>;
  readonly final: true;
}

/**
 * A messaging stream's arrivals at the sink since the series' last point (`labels.stream`), live each
 * second: `messages_arrived` every arrival, `messages_repeated` those of a key that had arrived before
 * (duplicates, and an unexpected key again). At the end, `final`, what the live points had not counted
 * (what came in the end's wait), so a stream's points add up to the end's accounting exactly: arrived =
 * received + duplicated + unexpected, repeated = duplicated + unexpected − the unexpected keys.
 */
export interface MessageArrivalPoint extends LiveCounter {
  readonly metric: 'messages_arrived' | 'messages_repeated';
}

/** A messaging stream's latency over the whole scenario (deliveries and waiters from the send, callbacks from the delivery). */
export interface MessageLatencyPoint extends RecordBase {
  readonly type: 'point';
  readonly metric: 'message_latency';
  readonly kind: 'trend';
  readonly unit: 'ms';
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly final: true;
}

/**
 * A messaging stream's latency of the keys that first arrived in one second of the load (`second`,
 * from 0; the interval since the previous progress event), live: expected or not, as the sink saw them.
 */
export interface MessageSecondLatencyPoint extends SecondTrend {
  readonly metric: 'message_latency';
}

/**
 * A soak's sample of a process (`labels.process`), every few seconds while its load runs, Prometheus's
 * own names: `process_resident_memory_bytes`, and `process_cpu_cores`, the cores it used since the
 * previous sample of the same lifetime (none for a lifetime's first: after each start).
 */
export interface ResourcePoint extends RecordBase {
  readonly type: 'point';
  readonly metric: 'process_resident_memory_bytes' | 'process_cpu_cores';
  readonly kind: 'gauge';
  readonly unit: 'bytes' | 'cores';
  readonly value: number;
  readonly elapsed_s: number;
}

export type MetricPoint =
  | CounterPoint
  | RatePoint
  | TrendPoint
  | ThresholdPoint
  | ResourcePoint
  | MessageCounterPoint
  | MessageArrivalPoint
  | MessageLatencyPoint
  | MessageSecondLatencyPoint;

/** Something that happened: `event` says what, the other fields its facts (snake_case). */
export interface EventRecord extends RecordBase {
  readonly type: 'event';
  readonly event:
    | 'run_start'
    | 'target'
    | 'case'
    | 'problem'
    | 'scenario_start'
    | 'phase_start'
    | 'phase_end'
    | 'fault_start'
    | 'fault_end'
    | 'threshold'
    | 'threshold_crossed'
    | 'scenario_end'
    | 'run_end';
  readonly [fact: string]: unknown;
}

export type LiveRecord = MetricPoint | EventRecord;
