/**
 * The data a load run produces (one report model with the conformance run): per scenario, request
 * counts, latency as an encoded HDR histogram plus its summary, a per-second series, per-tag metrics,
 * checks, classified errors, thresholds and the scenario's own accounting. No list of samples: every
 * latency lives in a histogram, so merging workers, k6 segments, regions or a baseline is decode and add.
 * Reporters in src/reporters render it; nothing here writes.
 */
import type { Comparison } from './compare.ts';
import { type LatencySummary, mergeEncoded, summarize } from './histogram.ts';

export type { LatencySummary };

/** Which engine made the load: the node engine on raw sockets, the node engine on undici, or k6. */
export type LoadEngineName = 'node' | 'node-undici' | 'k6';

/** Open: requests arrive on a schedule whatever the target does. Closed: N connections, each sends when its answer came. */
export type LoadModel = 'open' | 'closed';

/**
 * What happened to the requests: `sent` = `completed` + `failed` (a request still in flight when the
 * run ended counts as failed, class `cut-short`); `dropped` requests were due but never sent (every
 * allowed request was in flight), counted, never hidden.
 */
export interface RequestCounts {
  readonly sent: number;
  /** Answered, with the status the scenario expects; checks are counted separately. */
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
}

/** One second of a run: counts in that second, latency percentiles (ms) of the requests that ended in it. */
export interface SeriesPoint {
  /** Seconds since the scenario's start (0 = the first second). */
  readonly second: number;
  readonly sent: number;
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** Why a request failed. */
export type ErrorClass = 'refused' | 'reset' | 'timeout' | 'garbage' | 'status' | 'stream-cut' | 'cut-short' | 'other';

export interface ErrorCount {
  readonly kind: ErrorClass;
  readonly count: number;
  /** One redacted example line. */
  readonly example: string;
}

export interface CheckTotals {
  readonly name: string;
  readonly passes: number;
  readonly fails: number;
}

/** The metrics of the requests carrying one set of tags (`{batch: "100", value: "16"}`). */
export interface TagMetrics {
  readonly tags: Readonly<Record<string, string>>;
  readonly requests: RequestCounts;
  /** Key-value commands in those requests (a pipeline of 100 is 100). */
  readonly commands: number;
  readonly latencyMs: LatencySummary;
  /** Encoded HDR histogram (microseconds), as `histogram` below. */
  readonly histogram: string;
}

/** Exact accounting of a fan-out: every message each subscriber should have seen. */
export interface DeliveryAccounting {
  readonly subscribers: number;
  /** Messages whose publish was answered, times the subscribers that should see them. */
  readonly expected: number;
  readonly received: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly outOfOrder: number;
  /** Publish → event, per subscriber, in ms. */
  readonly latencyMs: LatencySummary;
  readonly histogram: string;
}

/** Exact accounting of one stream of a messaging scenario (deliveries, callbacks, failure callbacks, waiters). */
export interface StreamCounts {
  /** Arrivals the accepted iterations must cause (each key once). */
  readonly expected: number;
  /** Expected keys that arrived (each counted once, however often it came). */
  readonly received: number;
  /** expected − received. */
  readonly lost: number;
  /** Arrivals beyond the first of a key (at least once allows them; a threshold may not). */
  readonly duplicated: number;
}

export interface StreamAccounting extends StreamCounts {
  /** Arrivals no accepted iteration expects (a publish whose answer was lost, a wrong key). */
  readonly unexpected: number;
  /**
   * The keys among those (an unexpected key that came twice is two arrivals, one key): what makes the
   * live outputs' `messages_repeated` add up to the end's. Absent in reports made before it was counted.
   */
  readonly unexpectedKeys?: number;
  /** Arrivals whose signature the sink could not verify under the target's scheme. */
  readonly badSignatures: number;
  /** The stream's latency (deliveries and waiters: from the send; callbacks: from the delivery), ms. */
  readonly latencyMs: LatencySummary;
  /** HDR histogram, microseconds, encoded. */
  readonly histogram: string;
  /** The same, per tag set the scenario gave (`{endpoint: "e3"}`). */
  readonly byTags: readonly (StreamCounts & {
    readonly tags: Readonly<Record<string, string>>;
    readonly latencyMs: LatencySummary;
    readonly histogram: string;
  })[];
}

/** One second of arrivals at the sink, per stream: how many, and their latency percentiles (ms). */
export interface ArrivalSeriesPoint {
  readonly second: number;
  readonly stream: 'delivery' | 'callback' | 'failureCallback' | 'waiter';
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** What a messaging scenario's sink saw, accounted exactly once the grace period ended or nothing was missing. */
export interface MessagingAccounting {
  readonly delivery?: StreamAccounting;
  readonly callbacks?: StreamAccounting;
  readonly failureCallbacks?: StreamAccounting;
  readonly waiters?: StreamAccounting;
  /** Per accepted iteration: from its send to the last arrival it caused (every waiter of a notify). */
  readonly complete?: { readonly latencyMs: LatencySummary; readonly histogram: string };
  readonly series: readonly ArrivalSeriesPoint[];
  /** Accepted iterations (publishes, notifies the target took). */
  readonly accepted: number;
  /** How long the sink waited after the load for what was still missing, seconds. */
  readonly waitedS: number;
  /** Requests to the sink for no open inbox, or for this one after it closed. */
  readonly strays: number;
  /** Arrivals at this scenario's inbox that the scenario could not classify (none of its streams). */
  readonly unclassified: number;
  /** Signatures: verified, failed, not checked, and tokens presented twice (replays). */
  readonly signatures: {
    readonly verified: number;
    readonly failed: number;
    readonly unchecked: number;
    readonly replays: number;
  };
}

/** What a scenario counts about the target's behaviour, beyond requests. */
export interface ScenarioAccounting {
  /** Contended counters: increments reported committed but missing from the counter. */
  readonly lostUpdates?: number;
  /** Increments in the counter beyond those committed or of unknown outcome. */
  readonly doubledUpdates?: number;
  /** Transactions whose outcome is unknown (timeout, reset): their increments may or may not be there. */
  readonly unknownOutcomes?: number;
  readonly delivery?: DeliveryAccounting;
  /** A messaging scenario's: everything that should have reached the sink. */
  readonly messaging?: MessagingAccounting;
}

export interface ThresholdResult {
  /** As written: `http_req_duration{batch:100}: p(99)<50`. */
  readonly expression: string;
  readonly metric: string;
  /** Where it came from: the scenario's defaults or the command line. */
  readonly source: 'scenario' | 'cli';
  readonly ok: boolean;
  /** The value compared (ms for durations, a fraction for rates, a count); null when no data. */
  readonly value: number | null;
}

export interface ScenarioSettings {
  /** Requests per second (open model). */
  readonly rate?: number;
  /** Ramp stages as given, `10s:100,30s:500`. */
  readonly ramp?: string;
  readonly durationS: number;
  /** Seconds of unmeasured load before the measured run (none when absent): in no histogram or count. */
  readonly warmupS?: number;
  readonly connections: number;
  readonly workers: number;
  /** k6: the processes the load was split over (execution segments), merged into this one result. */
  readonly segments?: number;
  /** k6: the version that ran. */
  readonly k6Version?: string;
  readonly seed: number;
  readonly batch?: readonly number[];
  readonly valueSize?: readonly number[];
  /** The scenario's parameters it ran with (`--param`, else each one's default); absent where unknown (`k6 merge`). */
  readonly params?: Readonly<Record<string, number>>;
}

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly engine: LoadEngineName;
  readonly model: LoadModel;
  readonly settings: ScenarioSettings;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly requests: RequestCounts;
  /** Key-value commands sent in completed requests. */
  readonly commands: number;
  readonly throughput: { readonly requestsPerSecond: number; readonly commandsPerSecond: number };
  readonly latencyMs: LatencySummary;
  /** Every request's latency, HDR histogram in microseconds, compressed base64 (hdr-histogram-js encoding). */
  readonly histogram: string;
  readonly series: readonly SeriesPoint[];
  readonly tags: readonly TagMetrics[];
  readonly checks: readonly CheckTotals[];
  readonly errors: readonly ErrorCount[];
  readonly counters: Readonly<Record<string, number>>;
  readonly accounting: ScenarioAccounting;
  readonly thresholds: readonly ThresholdResult[];
  /** Set when the scenario could not run or stopped (target lacks the area, setup failed, interrupted). */
  readonly problem?: string;
}

export interface LoadRun {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  /** The target's name; `embedded` when the run started the reference itself. */
  readonly target: string;
  readonly embedded: boolean;
  readonly scenarios: readonly ScenarioResult[];
  readonly problems: readonly string[];
  /** Scenarios asked for that the engine cannot run, and why (k6 has no client for server-sent events); not a failure. */
  readonly skipped?: readonly { readonly name: string; readonly reason: string }[];
  readonly aborted?: string;
  readonly exitCode: number;
  /** The load against its baseline (`load --baseline`). */
  readonly compare?: Comparison;
}

/** One point of the pipeline curve: a batch size, what it carried and how long it took. */
export interface BatchPoint {
  readonly batch: number;
  readonly requestsPerSecond: number;
  readonly commandsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** The batch-size curve of a scenario whose requests carry a `batch` tag, smallest batch first. */
export function batchCurve(scenario: ScenarioResult): BatchPoint[] {
  // Per second of load, not of the scenario's whole time (setup and finish send nothing measured).
  const seconds =
    scenario.settings.durationS > 0 ? scenario.settings.durationS : Math.max(scenario.durationMs, 1) / 1000;
  const byBatch = new Map<number, TagMetrics[]>();
  for (const tag of scenario.tags) {
    const batch = Number(tag.tags.batch);
    if (!Number.isInteger(batch)) continue;
    byBatch.set(batch, [...(byBatch.get(batch) ?? []), tag]);
  }
  return [...byBatch.entries()]
    .sort(([a], [b]) => a - b)
    .map(([batch, tags]) => {
      // Exact percentiles of the batch size over every value size: decode and add.
      const merged = mergeEncoded(tags.map((tag) => tag.histogram));
      const summary = summarize(merged);
      merged.destroy();
      return {
        batch,
        requestsPerSecond: tags.reduce((sum, tag) => sum + tag.requests.completed, 0) / seconds,
        commandsPerSecond: tags.reduce((sum, tag) => sum + tag.commands, 0) / seconds,
        p50: summary.p50,
        p99: summary.p99,
      };
    });
}
